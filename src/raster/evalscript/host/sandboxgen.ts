/**
 * Generations of sandbox isolates (host side, per Worker isolate): the isolate of a script and account is named
 * `<isolateName>:<generation>` and replaced by the next generation once it has been sent and has returned
 * {@link SANDBOX_RECYCLE_BYTES}; the old one is aborted when its last lease ends (and, inside it, once no script
 * session of any Worker isolate is open in it: sandbox/entry.js whenIdle), so a request in flight on it finishes
 * there and no request ever sees a half-recycled isolate.
 *
 * Why: without the edge's memory limit a sandbox isolate collects its garbage lazily. Measured on local workerd
 * (workerd's own inspector, Runtime.getHeapUsage of the isolate "LOADER:evalscript:..."), the isolate serving
 * 2500 x 2500 FLOAT32 NDVI requests held 432 MiB after 6 of them and 1 MiB after a forced GC, and workerd's RSS
 * grew ~100 MB per heavy request (bench/bench-memory.mjs: 0.8 -> 3.1 GiB after 30); under the edge's limit V8
 * collects it (src/raster/memory.ts SANDBOX_RECYCLE_BYTES). workerd
 * never evicts a named Worker Loader isolate on its own, so a new name alone would leak the old isolate; the
 * abort (sandbox.ts, Recycler) removes it from the loader's cache and frees it. Still needed with the host path
 * (issue 39 A/B): after the same ~110 requests of the bench's sandbox scripts, workerd held 2748 MiB RSS without
 * generations and 1185 MiB with them, eval times within noise.
 */
import { Lru } from "../../lru";
import { SANDBOX_POOL_BYTES, SANDBOX_RECYCLE_BYTES } from "../../memory";

/**
 * SANDBOX_RECYCLE_BYTES (src/raster/memory.ts): bytes (pixels sent plus values returned) after which a sandbox
 * isolate is recycled: bounds the garbage one isolate holds locally to about this plus one call, for one cold
 * start (+25-40 ms on the next request's eval stage) per budget.
 *
 * SANDBOX_POOL_BYTES (src/raster/memory.ts): bytes charged to all live sandbox isolates together (every script and
 * account) after which idle ones are aborted, least recently leased first ({@link evictIdle}). Why: an isolate
 * keeps its garbage until it is recycled, and a script sent a few times never reaches its own budget. Measured on
 * `npm start`: 20 real scripts in turn, six 1024² requests each, grew workerd from 0.56 to 2.8 GB RSS, and the
 * first script, sent again, evaluated in 222-303 ms instead of 106-148 ms.
 */
export { SANDBOX_POOL_BYTES, SANDBOX_RECYCLE_BYTES };

/** Aborts the isolate of a loader name (sandbox.ts: the Recycler entrypoint of that name). */
export type AbortIsolate = (name: string) => Promise<unknown>;

/** One generation of an isolate name: bytes charged, leases open, retired (a newer one serves new leases). */
interface Generation {
  base: string;
  /** The Worker Loader name: `<base>:<generation number>` (never used twice by this Worker isolate). */
  name: string;
  bytes: number;
  active: number;
  retired: boolean;
  /** Aborts this generation's isolate (given by its first lease). */
  abort?: AbortIsolate;
}

/** Live generations (loaded and not yet aborted), least recently leased first, and the bytes charged to them. */
const live = new Set<Generation>();
let liveBytes = 0;

/** Drops a generation from the live ones (it is being aborted). */
function forget(g: Generation): void {
  if (live.delete(g)) liveBytes -= g.bytes;
}

/** Retires a generation: the next lease of its name gets a new one. */
function retire(g: Generation): void {
  g.retired = true;
  if (current.get(g.base) === g) current.set(g.base, fresh(g.base));
}

/** Isolate names whose current generation is kept, and live generations at most ({@link evictIdle}). */
const NAMES = 1024;

/** The current generation per isolate name (a name dropped from the bound gets a fresh generation when it comes back). */
const current = new Lru<Generation>(NAMES);

/**
 * Generation numbers per isolate name, kept for 4 times as many names as {@link current} (a name that fell out of it
 * comes back under its next number, never one a live or aborting isolate of this Worker isolate may still hold:
 * loading code under the name of an isolate whose abort is under way was seen to crash workerd, kj/table.c++
 * "inserted row already exists"). Loader names are thus deterministic, `<isolateName>:<generation>` (the script
 * hash with the runtime version, the account, the generation), the same in every Worker isolate: the Worker Loader
 * bills each unique (name, code) once a day, so the names of a day number about (scripts x accounts) x (recycles of
 * the busiest isolate + 1), whatever the number of edge isolates (README, "Deploy to Cloudflare").
 */
const generations = new Lru<number>(4 * NAMES);

/** A new generation of `base`, named by its next generation number. */
function fresh(base: string): Generation {
  const n = generations.get(base) ?? 0;
  generations.set(base, n + 1);
  return { base, name: `${base}:${n}`, bytes: 0, active: 0, retired: false };
}

/** A lease of the current generation of `base`: its loader name, and `release(bytes)`. */
export interface GenerationLease {
  /** The Worker Loader name of the leased isolate. */
  name: string;
  /** Ends the lease, charging `bytes`. @returns true when the caller must abort the isolate now (retired, idle). */
  release(bytes: number): boolean;
}

/**
 * Leases the current generation of isolate name `base`. A generation whose charged bytes reach `budget` is
 * retired (the next lease gets a new generation); it is to be aborted by the release that leaves it idle.
 * `abort` aborts the generation's isolate when {@link evictIdle} picks it (the first lease's is kept).
 */
export function leaseGeneration(base: string, budget = SANDBOX_RECYCLE_BYTES, abort?: AbortIsolate): GenerationLease {
  let leased = current.get(base);
  if (!leased) current.set(base, (leased = fresh(base)));
  leased.active++;
  leased.abort ??= abort;
  live.delete(leased);
  live.add(leased);
  let released = false;
  return {
    name: leased.name,
    release(bytes) {
      if (released) return false;
      released = true;
      leased.active--;
      leased.bytes += bytes;
      if (live.has(leased)) liveBytes += bytes;
      if (!leased.retired && leased.bytes >= budget) retire(leased);
      const idleRetired = leased.retired && leased.active === 0;
      if (idleRetired) forget(leased);
      return idleRetired;
    },
  };
}

/**
 * Picks the live generations to abort so that those left hold at most `pool` bytes and number at most 1024 (the
 * names `current` keeps: a generation whose name fell out of it would otherwise never be aborted): idle ones with
 * an abort function, least recently leased first. They are retired and forgotten here (their names are never
 * leased again); the caller runs the returned thunks, each once.
 */
export function evictIdle(pool = SANDBOX_POOL_BYTES): (() => Promise<unknown>)[] {
  const out: (() => Promise<unknown>)[] = [];
  for (const g of live) {
    if (liveBytes <= pool && live.size <= NAMES) break;
    const abort = g.abort;
    if (g.active > 0 || !abort) continue;
    retire(g);
    forget(g);
    out.push(() => abort(g.name));
  }
  return out;
}

/** Live generations and the bytes charged to them (diagnostics and tests). */
export function poolStats(): { generations: number; bytes: number } {
  return { generations: live.size, bytes: liveBytes };
}
