/**
 * Evalscript validation and compilation: the size limit (limits.ts), the `//VERSION=3` header, a parse with
 * acorn (syntax errors with the user's line and column), checks that setup() and evaluatePixel() are defined,
 * that no identifier uses the runtime's reserved prefix and no regex literal can backtrack exponentially
 * (regex.ts), budget instrumentation and the CommonJS wrapper (wrapper.ts) the sandbox runs (CommonJS so scripts keep sloppy mode: real scripts assign
 * undeclared variables).
 */
import { parse, type Node } from "acorn";
import { EngineError, invalidArgument, scriptSyntax, unsupported } from "../../errors";
import { approxBytes, Lru } from "../../lru";
import { bindableGlobals, scanNames } from "./globals";
import { walk } from "./ast";
import { instrument, ticks, type SourceMap } from "./instrument";
import { HOST_LIMITS } from "../limits";
import { regexShape } from "./regex";
import { LIBRARY_NAMES } from "../sandbox/library";
import { RESERVED_PREFIX, wrapperNames, wrapperPrefix, wrapperSuffix } from "./wrapper";
import { SCRIPT_CACHE_BYTES } from "../../memory";

/** The script functions the wrapper exports (undefined when the script does not define one). */
export const SCRIPT_FUNCTIONS = [
  "setup",
  "evaluatePixel",
  "preProcessScenes",
  "filterScenes",
  "updateOutput",
  "updateOutputMetadata",
] as const;

/** A validated, instrumented evalscript, ready for {@link loadEvalscript}. */
export interface CompiledEvalscript {
  /** The script as the user sent it. */
  readonly source: string;
  /** CommonJS module text run in the sandbox (the wrapper of wrapper.ts around the instrumented script). */
  readonly code: string;
  /** Maps positions in `code` back to `source`. */
  readonly map: SourceMap;
  /** Length of the wrapper text on line 1 before the script: stack frames there are the wrapper's own. */
  readonly prefixLength: number;
}

const DOCS = "https://docs.sentinel-hub.com/api/latest/evalscript/v3/";

/**
 * Checks the version header: the first non-blank line must start with `//VERSION=3` (text after the 3 that
 * does not continue the number is tolerated, e.g. `//VERSION=3.Landslide_detection`, as Sentinel Hub does).
 * The message quotes nothing of the script: a script may come from a bucket object (evalscriptReference), and an
 * error message must not hand out that object's bytes.
 */
function checkVersion(source: string): void {
  const first =
    source
      .replace(/^\uFEFF/, "")
      .split(/\r\n|\r|\n/)
      .find((l) => l.trim() !== "") ?? "";
  if (!/^\s*\/\/VERSION=3(?![0-9])/.test(first)) {
    throw unsupported(
      `Invalid evalscript: the first line must be //VERSION=3${first ? "" : " (the script is empty)"}. ` +
        `EO Edge runs evalscript version 3 only, see ${DOCS}`,
    );
  }
}

/** Parses as a classic (sloppy) script; a syntax error becomes a 400 naming the user's line and column. */
function parseScript(source: string): Node {
  try {
    return parse(source, { ecmaVersion: "latest", sourceType: "script", locations: true, allowHashBang: false });
  } catch (err) {
    const e = err as SyntaxError & { loc?: { line: number; column: number } };
    const line = e.loc?.line ?? 1;
    const column = (e.loc?.column ?? 0) + 1;
    const reason = e.message.replace(/\s*\(\d+:\d+\)$/, "");
    const v1 = /'return' outside of function/.test(reason)
      ? " The script starts with //VERSION=3 but its body is a version 1 script (a top-level return with band " +
        "variables); a V3 script must define setup() and evaluatePixel(sample)."
      : "";
    throw scriptSyntax(`Evalscript syntax error at line ${line}, column ${column}: ${reason}.${v1} See ${DOCS}`, {
      line,
      column,
      message: reason,
    });
  }
}

/** Recently compiled scripts by source text (scripts up to CACHE_MAX_CHARS), oldest evicted first. */
const compiledCache = new Lru<CompiledEvalscript>(64, SCRIPT_CACHE_BYTES / 2, approxBytes, true);
const CACHE_MAX_CHARS = 100_000;

/** The compiled-script cache's entries, bytes and budget (tests). */
export const compiledCacheStats = () => compiledCache.stats;

/**
 * Validates and instruments an evalscript (cached by source text).
 * @param source the evalscript text (`//VERSION=3` first).
 * @returns the compiled script; run it with `loadEvalscript`.
 * @throws EngineError invalid-argument for an empty script, one over HOST_LIMITS.scriptChars (with `limit`) or
 *   one that defines no `setup` or no `evaluatePixel`; unsupported for a bad version header; script-syntax for a
 *   syntax error, a name starting with `__eo$` or a regex literal with nested repetition (details: line, column).
 */
export function compileEvalscript(source: string): CompiledEvalscript {
  const cached = typeof source === "string" ? compiledCache.get(source) : undefined;
  if (cached) return cached;
  const compiled = compile(source);
  if (source.length <= CACHE_MAX_CHARS) {
    compiledCache.set(source, compiled);
  }
  return compiled;
}

function compile(source: string): CompiledEvalscript {
  if (typeof source !== "string" || source.trim() === "")
    throw invalidArgument("The evalscript is empty: send a //VERSION=3 script.");
  if (source.length > HOST_LIMITS.scriptChars) {
    const limit = { name: "scriptChars", max: HOST_LIMITS.scriptChars };
    throw new EngineError(
      "invalid-argument",
      `The evalscript has ${source.length} characters; the limit is ${limit.max} characters.`,
      undefined,
      limit,
    );
  }
  checkVersion(source);
  const program = parseScript(source);
  const names = scanNames(program);
  for (const fn of ["setup", "evaluatePixel"]) {
    if (!names.declared.has(fn) && !names.assigned.has(fn) && !names.members.has(fn)) {
      throw invalidArgument(
        `Invalid evalscript: it does not define ${fn}(). A V3 evalscript must define function setup() and function evaluatePixel(sample). See ${DOCS}`,
      );
    }
  }
  rejectUnsafe(program);
  const wrapper = wrapperNames();
  const tickNames = { counter: wrapper.counter, stop: wrapper.stop };
  const prefix = wrapperPrefix(wrapper, bindableGlobals(names, LIBRARY_NAMES), ticks(tickNames).statement);
  const { code, map } = instrument(source, program, prefix, wrapperSuffix(wrapper, SCRIPT_FUNCTIONS), tickNames);
  return { source, code, map, prefixLength: prefix.length };
}

/**
 * Rejects a script that names an identifier with the wrapper's reserved prefix, or has a regex literal that
 * can backtrack catastrophically (regex.ts): 400 with line and column.
 */
function rejectUnsafe(program: Node): void {
  walk(program, (n) => {
    const regex = n.regex as { pattern: string } | undefined;
    const hazard = n.type === "Literal" && regex ? regexShape(regex.pattern).hazard : "";
    if (hazard) {
      const at = n.loc!.start;
      throw scriptSyntax(
        `Invalid evalscript: the regular expression /${regex!.pattern.slice(0, 80)}/ at line ${at.line}, column ${at.column + 1} ` +
          `is refused: ${hazard}. Rewrite it without nested repetition.`,
        { line: at.line, column: at.column + 1, message: hazard },
      );
    }
    const name = n.type === "Identifier" || n.type === "PrivateIdentifier" ? String(n.name) : "";
    if (!name.startsWith(RESERVED_PREFIX)) return;
    const at = n.loc!.start;
    throw scriptSyntax(
      `Invalid evalscript: the name "${name.slice(0, 40)}" at line ${at.line}, column ${at.column + 1} starts with ` +
        `"${RESERVED_PREFIX}", which is reserved for the runtime; rename it.`,
      { line: at.line, column: at.column + 1, message: `reserved name ${name.slice(0, 40)}` },
    );
  });
}
