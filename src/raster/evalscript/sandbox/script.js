// @ts-check
/**
 * Sandbox module with the script instance (Script: a fresh wrapper instance per call or
 * session, wrapper.ts, its budget reset per call) and the failure replies: thrown values are read with the
 * budget exhausted (a getter, Proxy trap or toString in script code stops at its first tick) and their message
 * and stack cut (SANDBOX_LIMITS.messageChars), so no script value reaches the RPC uncapped.
 */
import { enter } from "./harden.js";
import { setOverrideReader } from "./lib.js";
import { toPlain } from "./scenes.js";
import factory from "./evalscript.js";
import { L } from "./limits.js";

/** @typedef {import("../errors").SandboxFailure} SandboxFailure */
/** @typedef {{ ok: false, error: SandboxFailure }} Failure */

/** Thrown by the host side of the sandbox when a request's total budget is spent. */
export class TotalBudgetError extends Error {}

const MAX_STACK = 8192;

/**
 * A string cut to n characters, saying how long it was.
 * @param {string} s
 * @param {number} n
 */
function cut(s, n) {
  return s.length <= n ? s : s.slice(0, n) + "... (" + (s.length - n) + " more characters)";
}

/**
 * name, message and stack of a thrown value, read with the script's budget exhausted (a getter, a Proxy trap or
 * toString in script code stops at its first tick) and sizes capped (a 32 MiB message must not reach the RPC).
 * @param {unknown} err
 * @returns {{ name: string, message: string, stack: string }}
 */
function describe(err) {
  try {
    if (!(err instanceof Error)) return { name: "Error", message: cut(String(err), L.messageChars), stack: "" };
    const name = cut(String(err.name), 200),
      message = String(err.message);
    let stack = typeof err.stack === "string" ? err.stack : "";
    const header = name + (message ? ": " + message : "");
    if (stack.startsWith(header)) stack = stack.slice(header.length);
    return { name, message: cut(message, L.messageChars), stack: cut(stack, MAX_STACK) };
  } catch {
    return { name: "Error", message: "(the thrown value could not be read)", stack: "" };
  }
}

/**
 * The failure reply for an error of 'script' (may be undefined before the instance exists).
 * @param {Script | undefined} script
 * @param {unknown} err
 * @param {{ pixel?: { col: number, row: number } }} [extra]
 * @returns {Failure}
 */
export function failure(script, err, extra) {
  const cause = script ? script.inst.cause() : "";
  if (script) script.inst.set(-1);
  const total = err instanceof TotalBudgetError;
  const kind = total ? "total" : cause === "budget" ? "budget" : cause ? "limit" : undefined;
  const d = kind === "limit" ? { ...describe(err), message: cause } : describe(err);
  return { ok: false, error: { stage: script ? script.stage : "init", cause: kind, ...d, ...extra } };
}

/**
 * A fresh script instance (wrapper.ts): its own budget counter, reset per call. 'current' points the
 * allocation and regex guards of harden.js at the running instance.
 */
export class Script {
  /** @param {number} perCall ticks per call (Budget.perCall) */
  constructor(perCall) {
    this.perCall = perCall;
    this.stage = "init";
    this.inst = factory();
    /** The script's functions (set by start). @type {import("./evalscript.js").ScriptFunctions} */
    this.fns = {};
  }
  /** Runs the script's top-level code (stage "init"). */
  start() {
    this.fns = this.call("init", () => this.inst.init());
  }
  /**
   * Runs fn as the script's stage 'stage' with a fresh per-call budget.
   * @template T
   * @param {string} stage
   * @param {() => T} fn
   * @returns {T}
   */
  call(stage, fn) {
    this.stage = stage;
    enter(this.inst);
    setOverrideReader(this.inst.override);
    try {
      this.inst.set(this.perCall);
      const r = fn();
      if (this.inst.left() < 0) this.inst.stop();
      return r;
    } finally {
      enter(null);
      setOverrideReader(null);
    }
  }
  /**
   * Ends the script with a limit breach: the failure reports 'message' (a 400).
   * @param {string} message
   * @returns {void} never returns: stop() throws
   */
  refuse(message) {
    this.inst.stop(message);
  }
  /**
   * A copy of a script value (toPlain) whose JSON has at most 'max' characters.
   * @param {unknown} value
   * @param {string} what the value's name in the message
   * @param {number} max
   */
  plain(value, what, max) {
    const out = toPlain(value);
    const n = out === undefined ? 0 : JSON.stringify(out).length;
    if (n > max) this.refuse(what + " is " + n + " characters of JSON; the limit is " + max);
    return out;
  }
  /** @param {string} name */
  has(name) {
    return typeof this.fns[name] === "function";
  }
  /**
   * Calls the script's function 'name' (has(name) checked by the caller).
   * @param {string} name
   * @param {...unknown} args
   */
  run(name, ...args) {
    return this.call(name, () => /** @type {Function} */ (this.fns[name])(...args));
  }
}

/**
 * body(script) for a fresh, started Script; its failure reply when it throws.
 * @template R
 * @param {number} perCall
 * @param {(script: Script) => R} body
 * @returns {R | Failure}
 */
export function attempt(perCall, body) {
  let script;
  try {
    script = new Script(perCall);
    script.start();
    return body(script);
  } catch (err) {
    return failure(script, err);
  }
}
