/**
 * CQL2 text -> CQL2 JSON, parsed by cql2-rs (the `cql2-wasm` package, developmentseed/cql2-rs 0.5.0-rc1).
 *
 * The package is a wasm-pack "bundler" build; workerd cannot compile wasm at run time, so the module is imported
 * statically and instantiated here with the package's own glue. Three gaps of that release are closed here:
 * - its grammar has no end-of-input anchor, so `a = 1 AND` or `a << 1` parse as a prefix and the rest is dropped:
 *   the text is parsed wrapped in parentheses, which forces the whole input to be consumed (a stray `)` is
 *   caught before parsing, since it would otherwise close the wrapper early);
 * - numbers in exponent notation (`1e3`) make it trap (`unreachable`): they are rewritten as plain decimals first;
 * - any other trap leaves the instance unusable (its shadow stack is not unwound), so it is replaced by a fresh
 *   instance of the same compiled module; growing the old memory by 0 pages detaches its buffer, which makes the
 *   glue drop its cached views of the old memory.
 */
import wasmModule from "cql2-wasm/cql2_wasm_bg.wasm";
import * as glue from "cql2-wasm/cql2_wasm_bg.js";
import { badRequest } from "../../http/errors";
import { MAX_FILTER_DEPTH } from "./limits";

let instance: WebAssembly.Instance | null = null;

function ensureInstance(): void {
  if (instance) return;
  const created = new WebAssembly.Instance(wasmModule, {
    "./cql2_wasm_bg.js": glue as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(created.exports);
  (created.exports.__wbindgen_start as () => void)();
  instance = created;
}

function replaceInstance(): void {
  const old = instance;
  instance = null;
  ensureInstance();
  (old?.exports.memory as WebAssembly.Memory | undefined)?.grow(0);
}

/** Splits text into segments outside quotes (even indices) and quoted literals/identifiers (odd indices). */
function segments(text: string): string[] {
  return text.split(/('(?:[^']|'')*'|"[^"]*")/);
}

/** Position (0-based) of the first `)` that closes nothing (or -1), and the deepest nesting of parentheses. */
function parentheses(text: string): { stray: number; depth: number } {
  let depth = 0;
  let deepest = 0;
  let pos = 0;
  for (const [i, seg] of segments(text).entries()) {
    if (i % 2 === 0) {
      for (let j = 0; j < seg.length; j++) {
        if (seg[j] === "(") deepest = Math.max(deepest, ++depth);
        else if (seg[j] === ")" && --depth < 0) return { stray: pos + j, depth: deepest };
      }
    }
    pos += seg.length;
  }
  return { stray: -1, depth: deepest };
}

const PLAIN = new Intl.NumberFormat("en-US", { useGrouping: false, maximumSignificantDigits: 17 });

/** Rewrites numeric literals in exponent notation (outside quotes) as plain decimals. */
function plainNumbers(text: string): string {
  return segments(text)
    .map((seg, i) =>
      i % 2 ? seg : seg.replace(/(?<![\w:.])(\d+(?:\.\d*)?|\.\d+)[eE]([+-]?\d+)\b/g, (m) => PLAIN.format(Number(m))),
    )
    .join("");
}

/** Turns a pest error (" --> 1:18 ... = expected X") into a 400 naming the position in the user's text. */
function syntaxError(text: string, message: string): Error {
  const at = / --> (\d+):(\d+)/.exec(message);
  const expected = /= (expected [^\n]+)/.exec(message)?.[1] ?? "invalid syntax";
  if (!at) return badRequest(`Invalid CQL2 text filter: ${expected}.`);
  const line = Number(at[1]);
  const column = Number(at[2]) - (line === 1 ? 1 : 0); // minus the wrapping "("
  const offset =
    text
      .split("\n")
      .slice(0, line - 1)
      .reduce((n, l) => n + l.length + 1, 0) +
    column -
    1;
  const near = text.slice(offset, offset + 20);
  return badRequest(
    `Invalid CQL2 text filter at line ${line}, column ${column} (character ${offset + 1})` +
      `${near ? ` near '${near}'` : " (end of the filter)"}: ${expected}.`,
  );
}

/**
 * Parses a CQL2 text filter (OGC 21-065 cql2-text) into its CQL2 JSON form (an unvalidated object tree).
 * Throws a 400 ApiError naming the line/column for syntax errors.
 */
export function parseCql2Text(text: string): unknown {
  if (!text.trim()) throw badRequest("The CQL2 text filter is empty.");
  const { stray, depth } = parentheses(text);
  if (stray >= 0) throw badRequest(`Invalid CQL2 text filter at character ${stray + 1}: ')' closes no '('.`);
  if (depth > MAX_FILTER_DEPTH)
    throw badRequest(`The filter nests parentheses deeper than ${MAX_FILTER_DEPTH} levels; flatten it.`);
  ensureInstance();
  let expr: glue.Expr | undefined;
  try {
    expr = glue.parseText(`(${plainNumbers(text)})`);
    return JSON.parse(expr.to_json());
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      expr?.__destroy_into_raw();
      expr = undefined;
      replaceInstance();
      throw badRequest(
        `Invalid CQL2 text filter: the parser could not read it; check operators and literals (and nesting: at most ${MAX_FILTER_DEPTH} levels).`,
      );
    }
    throw syntaxError(text, e instanceof Error ? e.message : String(e));
  } finally {
    expr?.free();
  }
}
