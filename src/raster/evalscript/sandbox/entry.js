// @ts-check
/**
 * Main module of the sandbox isolate (sandbox.ts loads it as text: a plain ES module, never bundled): a
 * WorkerEntrypoint whose methods the host calls over RPC. Each method instantiates the script afresh (top-level
 * code runs per call, so no state leaks between requests; its cost is lost in an RPC's: best of 200-call loops in
 * workerd on a 16 x 16 block, a no-op call 0.09 ms, one that instantiates 0.10 ms, `evaluate` 0.18 ms, while the
 * first sandbox call of a request costs ~2 ms, workerd's, for a no-op too), runs one script function and returns
 * `{ok: true, ...}` or `{ok: false, error}` (errors are data, mapped to the user's line:column by the host).
 * `evaluate` runs a whole request in one call; `open` returns a Session (an RpcTarget over an Evaluation,
 * evaluation.js) so huge requests can send row blocks while script state (globals, customData,
 * outputMetadata, budget) persists between blocks.
 */
import { WorkerEntrypoint, RpcTarget } from "cloudflare:workers";
import "./lib.js";
import "./visualizers.js";
import "./harden.js";
import { scenesArgument, collectionsArgument, preProcessFusion, timeRangeOf, matchScenes } from "./scenes.js";
import { attempt } from "./script.js";
import { Evaluation } from "./evaluation.js";
import { L } from "./limits.js";

/** @typedef {import("./rpc").SessionParams} SessionParams */
/** @typedef {import("./rpc").Block} Block */

/** Symbol.dispose: an RpcTarget's method of that key is its disposal (the caller dropped every stub of it). */
const DISPOSE = /** @type {{ dispose: symbol }} */ (/** @type {unknown} */ (Symbol)).dispose;

/** Sessions open (opened, neither finished nor disposed), and what runs once none is (see {@link whenIdle}). */
let openSessions = 0;
/** @type {(() => void) | undefined} */
let onIdle;

/**
 * Runs `f` now when no session is open, else just after the last one ends (after its finish() has answered: an
 * abort inside a call fails that call). The host's Recycler aborts the isolate so: a Worker isolate retiring this
 * isolate's name never cuts a multi-block request of another one in the middle (the loader names are the same in
 * every Worker isolate, sandboxgen.ts); single calls never overlap it (this isolate runs one call at a time and
 * its calls do not await).
 * @param {() => void} f
 */
export function whenIdle(f) {
  if (openSessions === 0) f();
  else onIdle = f;
}

/** RPC face of an Evaluation for multi-block requests (its state stays a plain object: fast property access). */
class Session extends RpcTarget {
  /**
   * @param {Evaluation} evaluation
   * @param {ExecutionContext} ctx the context of the open() call (the session's calls run in it)
   */
  constructor(evaluation, ctx) {
    super();
    this.evaluation = evaluation;
    this.ctx = ctx;
    this.open = true;
    openSessions++;
  }
  /** @param {Block} block */
  run(block) {
    return this.evaluation.run(block);
  }
  finish() {
    try {
      return this.evaluation.finish();
    } finally {
      this.end();
    }
  }
  /** A session dropped without finish() (a failed request) ends at its disposal. */
  [DISPOSE]() {
    this.end();
  }
  end() {
    if (!this.open) return;
    this.open = false;
    if (--openSessions === 0 && onIdle) this.ctx.waitUntil(new Promise((r) => setTimeout(r, 0)).then(onIdle));
  }
}

/** The RPC surface (rpc.ts SandboxApi; RPC makes each reply a Promise). */
export default class extends WorkerEntrypoint {
  /** @param {import("../errors").Budget} budget */
  setup(budget) {
    return attempt(budget.perCall, (script) => {
      if (!script.has("setup")) throw new TypeError("setup is not a function: define function setup()");
      return { ok: true, value: script.plain(script.run("setup"), "the value setup() returns", L.setupChars) };
    });
  }
  /** @param {Parameters<import("./rpc").SandboxApi["preProcessScenes"]>[0]} p */
  preProcessScenes(p) {
    return attempt(p.budget.perCall, (script) => {
      let indices = p.infos.map((_, i) => i);
      if (script.has("preProcessScenes") && p.timeRanges) {
        indices = preProcessFusion(p, (c) => script.run("preProcessScenes", c));
      } else if (script.has("preProcessScenes")) {
        const collections = collectionsArgument(p.infos, p.mosaicking, p.timeRange);
        const given = /** @type {unknown[]} */ (collections.scenes.orbits ?? collections.scenes.tiles);
        const ret = script.run("preProcessScenes", collections) ?? collections;
        const list = Array.isArray(ret) ? ret : ret && ret.scenes ? (ret.scenes.orbits ?? ret.scenes.tiles) : undefined;
        indices = matchScenes(given, list).map((i) => indices[i]);
      }
      if (script.has("filterScenes") && !p.timeRanges) {
        const infos = indices.map((i) => p.infos[i]);
        const given = scenesArgument(infos, p.mosaicking);
        const ret = script.run("filterScenes", given, { ...p.inputMetadata, ...timeRangeOf(p.infos, p.timeRange) });
        indices = matchScenes(given, ret).map((i) => indices[i]);
      }
      return { ok: true, indices };
    });
  }
  /**
   * One-block evaluation in one call: updateOutput, all pixels, updateOutputMetadata.
   * @param {SessionParams} p
   * @param {Block} block
   */
  evaluate(p, block) {
    return attempt(p.budget.perCall, (script) => {
      const evaluation = new Evaluation(script, p);
      const bands = evaluation.updateOutput();
      const r = evaluation.run(block);
      if (!r.ok) return r;
      const f = evaluation.finish();
      return f.ok ? { ok: true, bands, values: r.values, userData: f.userData } : f;
    });
  }
  /** Multi-block evaluation: returns the session (an RpcTarget) for run(block) calls and finish(). @param {SessionParams} p */
  open(p) {
    return attempt(p.budget.perCall, (script) => {
      const evaluation = new Evaluation(script, p);
      return { ok: true, bands: evaluation.updateOutput(), session: new Session(evaluation, this.ctx) };
    });
  }
}
