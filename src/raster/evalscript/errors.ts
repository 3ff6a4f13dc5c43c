/**
 * Turns a failure reported by the sandbox into the EngineError users see (rendered as 400 EXECUTION_ERROR by
 * src/http/errors.ts): kind script-error, budget-exceeded or limit-exceeded, and a message in Sentinel Hub's
 * style ("Failed to evaluate script! <error>") that names the position in the USER's script (stack positions
 * of the instrumented module are mapped back with the SourceMap).
 */
import { EngineError, scriptSyntax, type EngineErrorKind, type EngineLimit } from "../errors";
import type { CompiledEvalscript } from "./compile/compile";
import { RESERVED_PREFIX } from "./compile/wrapper";

/** What the sandbox returns for a failed call (see sandbox/entry.ts `failure`). */
export interface SandboxFailure {
  stage: string;
  /**
   * What stopped the script, when not its own error: "budget" (a call's ticks), "total" (the request's ticks),
   * "limit" (a sandbox or output limit; `message` names it, see limits.ts).
   */
  cause?: "budget" | "total" | "limit";
  name: string;
  message: string;
  stack: string;
  pixel?: { col: number; row: number };
}

/**
 * Execution budgets, in ticks: loop iterations + function calls (instrument.ts) + allocation units (bytes
 * allocated / 16, elements walked by an Array method / 4, see limits.ts and sandbox/harden.ts).
 */
export interface Budget {
  /** Per call of a script function (one evaluatePixel call, setup, preProcessScenes, top-level code). */
  perCall: number;
  /** Per evaluation session (all pixels of a request). */
  total: number;
}

/**
 * The first stack frame in the user's script: function name and generated line/column. Frames in the wrapper
 * text before the script (line 1 up to `prefixLength`: the stop function) and in functions named with the
 * reserved prefix (the instance factory, whose call of the script's top level lies after the script) are skipped.
 */
function userFrame(stack: string, prefixLength: number): { fn?: string; line: number; column: number } | undefined {
  for (const line of stack.split("\n")) {
    const m = /^\s*at (?:(.+?) \()?evalscript\.js:(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m || (m[2] === "1" && Number(m[3]) <= prefixLength)) continue;
    const fn = m[1]?.replace(/^Object\./, "");
    if (fn?.startsWith(RESERVED_PREFIX)) continue;
    return { fn, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

/** Prefix of every message of a failure while the script runs (Sentinel Hub's wording). */
const FAILED = "Failed to evaluate script! ";

/**
 * The EngineError for a sandbox failure: budget-exceeded (cause "budget"/"total", with the broken tick limit),
 * limit-exceeded (cause "limit") or script-error; details: stage, function, user line/column, output pixel.
 */
export function executionError(compiled: CompiledEvalscript, f: SandboxFailure, budget: Budget): EngineError {
  const frame = userFrame(f.stack, compiled.prefixLength);
  const pos = frame ? compiled.map.toUser(frame.line, frame.column) : undefined;
  const where = pos ? ` at line ${pos.line}, column ${pos.column}` : "";
  const stage = f.stage === "init" ? "top-level code" : f.stage;
  const inner = frame?.fn && frame.fn !== f.stage && frame.fn !== "module.exports" ? frame.fn : undefined;
  const fn = inner ? `${stage}, in ${inner}` : stage;
  const pixel = f.pixel ? `, output pixel column ${f.pixel.col}, row ${f.pixel.row}` : "";
  let what: string;
  const kind: EngineErrorKind = f.cause === "limit" ? "limit-exceeded" : f.cause ? "budget-exceeded" : "script-error";
  let limit: EngineLimit | undefined;
  if (f.cause === "total") {
    limit = { name: "ticksPerRequest", max: budget.total };
    what =
      `The evalscript was stopped${where} (${fn}${pixel}): it exceeded the execution budget of this request ` +
      `(${budget.total} loop iterations, function calls and allocation units). Make the per-pixel work smaller or request fewer pixels.`;
  } else if (f.cause === "limit") {
    what = `The evalscript was stopped${where} (${fn}${pixel}): ${f.message}.`;
  } else if (f.cause === "budget") {
    limit = { name: "ticksPerCall", max: budget.perCall };
    what =
      `The evalscript was stopped${where} (${fn}${pixel}): one call ran more than ${budget.perCall} loop iterations, ` +
      `function calls and allocation units - an endless loop? Check the loop's exit condition.`;
  } else if (f.name === "RangeError" && /call stack/i.test(f.message)) {
    what = `${f.name}: ${f.message}${where} (${fn}${pixel}) - endless recursion? Check the recursion's base case.`;
  } else {
    what = `${f.name}: ${f.message}${where} (${fn}${pixel}).`;
  }
  const detail = { stage, function: inner, line: pos?.line, column: pos?.column, pixel: f.pixel };
  return new EngineError(kind, FAILED + what, [detail], limit);
}

/**
 * The error for an RPC to the sandbox that failed outright (not a script failure reply): a syntax error only
 * the JavaScript engine rejects (acorn accepted it) becomes script-syntax, a production limit (CPU time,
 * memory) that ended the isolate limit-exceeded; anything else is returned as is (an internal error).
 */
export function sandboxCrash(compiled: CompiledEvalscript, err: unknown, cpuMs: number): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const syntax = /SyntaxError: ([^\n]*)/.exec(message);
  if (syntax) {
    const at = /evalscript\.js:(\d+):(\d+)/.exec(message);
    // workerd reports the start column of a compile error 0-based (v8::Message), stack frames 1-based
    const pos = at ? compiled.map.toUser(Number(at[1]), Number(at[2]) + 1) : undefined;
    const where = pos ? ` at line ${pos.line}, column ${pos.column}` : "";
    return scriptSyntax(`Evalscript syntax error${where}: ${syntax[1]}.`, {
      line: pos?.line,
      column: pos?.column,
      message: syntax[1],
    });
  }
  if (/exceeded (its )?CPU/i.test(message)) {
    const limit = { name: "cpuMs", max: cpuMs };
    return new EngineError(
      "limit-exceeded",
      `${FAILED}The evalscript exceeded the CPU time limit (${cpuMs} ms per call).`,
      undefined,
      limit,
    );
  }
  if (/exceeded (its )?memory|out of memory/i.test(message)) {
    return new EngineError("limit-exceeded", `${FAILED}The evalscript exceeded the memory limit of its sandbox.`);
  }
  return err;
}
