/**
 * The sandbox isolate of one compiled evalscript, through the Worker Loader binding: modules, limits and the
 * RPC surface (sandbox/rpc.ts, served by sandbox/entry.js). The isolate is cached by the script's hash and the
 * account ({@link isolateName}; shared by that account's requests with the same script: sandbox/harden.js freezes
 * everything a script could leave state in), has no network
 * (`globalOutbound: null`) and no bindings (`env: {}`), and runs the script as a CommonJS module (sloppy mode).
 *
 * The isolate's modules are the plain ES modules of sandbox/*.js, imported here as text (wrangler.toml `rules`,
 * type "Text", which `wrangler types` turns into the `*.js` text module declaration of worker-configuration.d.ts)
 * and type-checked as JavaScript by `npm run typecheck` (sandbox/tsconfig.json), plus two made from host
 * constants ({@link SANDBOX_MODULES}) and the compiled script ("evalscript.js").
 */
import type { CompiledEvalscript } from "./compile";
import { SANDBOX_LIMITS } from "./limits";
import { regexShape } from "./regex";
import CONCAT_JS from "./sandbox/concat.js";
import ENTRY_JS from "./sandbox/entry.js";
import EVALUATION_JS from "./sandbox/evaluation.js";
import FREEZE_JS from "./sandbox/freeze.js";
import HARDEN_JS from "./sandbox/harden.js";
import LIB_JS from "./sandbox/lib.js";
import PIXELS_JS from "./sandbox/pixels.js";
import SCENES_JS from "./sandbox/scenes.js";
import SCRIPT_JS from "./sandbox/script.js";
import VALUES_JS from "./sandbox/values.js";
import type { SandboxApi } from "./sandbox/rpc";

/** Compatibility date of sandbox isolates (the date the runtime was tested with). */
export const SANDBOX_COMPATIBILITY_DATE = "2026-11-01";

export type { Block, BlockValues, Reply, SandboxApi, SceneRef, SessionParams, SessionStub } from "./sandbox/rpc";

/** Bump when the sandbox code changes so that isolates of an older runtime are not reused. */
export const RUNTIME_VERSION = "eo-edge-evalscript-14";

/**
 * The sandbox's modules by the names they import each other by: the sources of sandbox/*.js as given (the Worker
 * Loader does not bundle) and two modules made from host constants: "limits.js" exports `L` =
 * {@link SANDBOX_LIMITS}, "regex.js" exports {@link regexShape} (its source text; regex.ts keeps it
 * self-contained for this). Their types for the checker: sandbox/limits.d.ts and sandbox/regex.d.ts.
 */
export const SANDBOX_MODULES: Readonly<Record<string, string>> = {
  "concat.js": CONCAT_JS,
  "entry.js": ENTRY_JS,
  "evaluation.js": EVALUATION_JS,
  "pixels.js": PIXELS_JS,
  "values.js": VALUES_JS,
  "lib.js": LIB_JS,
  "harden.js": HARDEN_JS,
  "freeze.js": FREEZE_JS,
  "scenes.js": SCENES_JS,
  "script.js": SCRIPT_JS,
  "limits.js": `export const L = ${JSON.stringify(SANDBOX_LIMITS)};\n`,
  "regex.js": `export ${regexShape.toString()}\n`,
};

/** SHA-256 (hex) of the runtime version and the compiled code: the isolate's cache key. */
export async function scriptHash(compiled: CompiledEvalscript): Promise<string> {
  const known = hashes.get(compiled);
  if (known) return known;
  const bytes = new TextEncoder().encode(`${RUNTIME_VERSION}\0${compiled.code}`);
  const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
  hashes.set(compiled, hash);
  return hash;
}

const hashes = new WeakMap<CompiledEvalscript, string>();

/**
 * The Worker Loader name of a script's isolate: one isolate per script hash and tenant (the account of the
 * token), so two accounts sending the same script never share an isolate, whatever the in-isolate freeze holds.
 */
export function isolateName(hash: string, tenant = ""): string {
  return `evalscript:${encodeURIComponent(tenant)}:${hash}`;
}

/**
 * The sandbox entrypoint of `compiled`, loading the isolate on first use (cache key: {@link isolateName}).
 * @param cpuMs Worker Loader CPU limit per call (enforced on Cloudflare, not by local workerd).
 * @param tenant the account the isolate belongs to ("" for engine-internal use and tests).
 */
export function sandboxFor(loader: WorkerLoader, compiled: CompiledEvalscript, hash: string, cpuMs: number, tenant = ""): SandboxApi {
  const stub = loader.get(isolateName(hash, tenant), () => ({
    compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
    mainModule: "entry.js",
    modules: { ...SANDBOX_MODULES, "evalscript.js": { cjs: compiled.code } },
    env: {},
    globalOutbound: null,
    limits: { cpuMs },
  }));
  return stub.getEntrypoint(undefined, { limits: { cpuMs } }) as unknown as SandboxApi;
}

/** Releases an RPC stub (workerd keeps the remote object alive until then). */
export function dispose(stub: unknown): void {
  const key = (Symbol as unknown as { dispose?: symbol }).dispose;
  const d = key && stub ? (stub as Record<symbol, unknown>)[key] : undefined;
  if (typeof d === "function") d.call(stub);
}
