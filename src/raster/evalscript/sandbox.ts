/**
 * The sandbox isolate of one compiled evalscript, through the Worker Loader binding: modules, limits and the
 * RPC surface (sandbox/rpc.ts, served by sandbox/entry.js). The isolate is cached by the script's hash and the
 * account ({@link isolateName}; shared by that account's requests with the same script: sandbox/harden.js freezes
 * everything a script could leave state in) and recycled after a byte budget (generations, sandboxgen.ts; the
 * host-made main module's Recycler entrypoint aborts the old one), has no network
 * (`globalOutbound: null`) and no bindings (`env: {}`), and runs the script as a CommonJS module (sloppy mode).
 *
 * The isolate's modules are the plain ES modules of sandbox/*.js, imported here as text (wrangler.toml `rules`,
 * type "Text", which `wrangler types` turns into the `*.js` text module declaration of worker-configuration.d.ts)
 * and type-checked as JavaScript by `npm run typecheck` (sandbox/tsconfig.json), plus two made from host
 * constants ({@link SANDBOX_MODULES}), the main module ("main.js", {@link MAIN_JS}) and the compiled script
 * ("evalscript.js").
 */
import type { CompiledEvalscript } from "./compile";
import { leaseGeneration, SANDBOX_RECYCLE_BYTES } from "./sandboxgen";
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

export { SANDBOX_RECYCLE_BYTES } from "./sandboxgen";
export type { Block, BlockValues, Reply, SandboxApi, SceneRef, SessionParams, SessionStub } from "./sandbox/rpc";

/** Bump when the sandbox code changes so that isolates of an older runtime are not reused. */
export const RUNTIME_VERSION = "eo-edge-evalscript-15";

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
 * A script's sandbox for one account: {@link Sandbox.acquire} leases the isolate of the current generation
 * (sandboxgen.ts recycles it after a byte budget).
 */
export interface Sandbox {
  /** Leases the current isolate for a sequence of calls; release the lease in a `finally`. */
  acquire(): SandboxLease;
}

/** One lease of a sandbox isolate: its RPC surface, its id, and the release that meters it. */
export interface SandboxLease {
  api: SandboxApi;
  /** A random id the isolate draws on the first call of this (tests tell a recycled isolate by it). */
  isolateId(): Promise<string>;
  /** Ends the lease, charging `bytes` (pixels sent, values returned) to the isolate; never throws. */
  release(bytes: number): Promise<void>;
}

/** Surface of the host-made main module's Recycler entrypoint ({@link MAIN_JS}). */
interface Recycler {
  id(): Promise<string>;
  recycle(): Promise<void>;
}

/**
 * The sandbox's main module: entry.js's default entrypoint, plus the Recycler entrypoint that aborts the isolate
 * (`abortIsolate` of cloudflare:workers: workerd removes an aborted dynamic isolate from the loader's cache and
 * frees it once its calls are done; workerd never evicts a named isolate on its own). Scripts cannot reach it:
 * it is another entrypoint of the host's stub. The id is drawn on first use (no random values at load). A runtime
 * without abortIsolate loads all the same and keeps the old isolates, as it did before recycling.
 */
const MAIN_JS = `import * as workers from "cloudflare:workers";
export { default } from "./entry.js";
let id;
export class Recycler extends workers.WorkerEntrypoint {
  id() { return (id ??= crypto.randomUUID()); }
  recycle() { workers.abortIsolate?.("evalscript sandbox recycled after its byte budget"); }
}
`;

/**
 * The sandbox of `compiled` for `tenant`: one isolate per script hash and account ({@link isolateName}) and
 * generation, loaded on first use and recycled after `recycleBytes` ({@link SANDBOX_RECYCLE_BYTES}).
 * @param cpuMs Worker Loader CPU limit per call (enforced on Cloudflare, not by local workerd).
 * @param tenant the account the isolate belongs to ("" for engine-internal use and tests).
 */
export function sandboxFor(
  loader: WorkerLoader,
  compiled: CompiledEvalscript,
  hash: string,
  cpuMs: number,
  tenant = "",
  recycleBytes = SANDBOX_RECYCLE_BYTES,
): Sandbox {
  const code = (): WorkerLoaderWorkerCode => ({
    compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
    mainModule: "main.js",
    modules: { ...SANDBOX_MODULES, "main.js": MAIN_JS, "evalscript.js": { cjs: compiled.code } },
    env: {},
    globalOutbound: null,
    limits: { cpuMs },
  });
  return {
    acquire: () => {
      const lease = leaseGeneration(isolateName(hash, tenant), recycleBytes);
      const stub = loader.get(lease.name, code);
      const recycler = () => stub.getEntrypoint("Recycler") as unknown as Recycler;
      return {
        api: stub.getEntrypoint(undefined, { limits: { cpuMs } }) as unknown as SandboxApi,
        isolateId: () => recycler().id(),
        release: async (bytes) => {
          if (!lease.release(bytes)) return;
          await recycler()
            .recycle()
            .catch(() => undefined); // the abort ends this call with an error
        },
      };
    },
  };
}

/** Releases an RPC stub (workerd keeps the remote object alive until then). */
export function dispose(stub: unknown): void {
  const key = (Symbol as unknown as { dispose?: symbol }).dispose;
  const d = key && stub ? (stub as Record<symbol, unknown>)[key] : undefined;
  if (typeof d === "function") d.call(stub);
}
