/**
 * Generations of sandbox isolates (host side, per Worker isolate): the isolate of a script and account is named
 * `<isolateName>:<generation>` and replaced by the next generation once it has been sent and has returned
 * {@link SANDBOX_RECYCLE_BYTES}; the old one is aborted when its last lease ends, so a request in flight on it
 * finishes there and no request ever sees a half-recycled isolate.
 *
 * Why: a sandbox isolate collects its garbage lazily. Measured on local workerd (workerd's own inspector,
 * Runtime.getHeapUsage of the isolate "LOADER:evalscript:..."), the isolate serving 2500 x 2500 FLOAT32 NDVI
 * requests held 432 MiB after 6 of them and 1 MiB after a forced GC: every request's transferred arrays stayed,
 * and workerd's RSS grew ~100 MB per heavy request (scripts/bench-memory.mjs: 0.8 -> 3.1 GiB after 30). workerd
 * never evicts a named Worker Loader isolate on its own, so a new name alone would leak the old isolate; the
 * abort (sandbox.ts, Recycler) removes it from the loader's cache and frees it.
 */
import { Lru } from "../lru";

/**
 * Bytes (pixels sent plus values returned) after which a sandbox isolate is recycled: bounds the garbage one
 * isolate holds to about this plus one request, for one cold start (~40 ms, isolation.test.ts) per budget.
 */
export const SANDBOX_RECYCLE_BYTES = 256 * 1024 * 1024;

/** One generation of an isolate name: bytes charged, leases open, retired (a newer one serves new leases). */
interface Generation {
  index: number;
  bytes: number;
  active: number;
  retired: boolean;
}

/** The current generation per isolate name (a name dropped from the bound gets a fresh generation when it comes back). */
const current = new Lru<Generation>(1024);

/**
 * Generation numbers are drawn from one counter per Worker isolate, under a random epoch drawn on first use (random
 * values are not allowed at global scope in workerd), so no Worker Loader name is ever used twice: neither by a name
 * that fell out of `current` and came back, nor by a Worker isolate started after this one (a reload) while the
 * loader still knows this one's names. Loading code under the name of an isolate whose abort is under way was seen
 * to crash workerd (kj/table.c++ "inserted row already exists").
 */
let epoch: string | undefined;
let nextIndex = 0;
const fresh = (): Generation => ({ index: nextIndex++, bytes: 0, active: 0, retired: false });

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
 */
export function leaseGeneration(base: string, budget = SANDBOX_RECYCLE_BYTES): GenerationLease {
  epoch ??= crypto.randomUUID().slice(0, 8);
  let gen = current.get(base);
  if (!gen) current.set(base, (gen = fresh()));
  const leased = gen;
  leased.active++;
  let released = false;
  return {
    name: `${base}:${epoch}.${leased.index}`,
    release(bytes) {
      if (released) return false;
      released = true;
      leased.active--;
      leased.bytes += bytes;
      if (!leased.retired && leased.bytes >= budget) {
        leased.retired = true;
        if (current.get(base) === leased) current.set(base, fresh());
      }
      return leased.retired && leased.active === 0;
    },
  };
}
