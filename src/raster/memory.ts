/**
 * The memory budgets of one isolate, in one place: Cloudflare gives every isolate 128 MB, shared by the
 * requests it serves at once, and local workerd enforces none of it. What an isolate holds is
 *   its code and module state (BASELINE_BYTES, measured)
 *   + the per-isolate caches (CACHE_BUDGETS, each an LRU or a WebAssembly instance bounded by its budget here)
 *   + the requests in flight (REQUEST_BYTES: the admission of src/pipeline/admission.ts keeps their estimated
 *     bytes within it; a request estimated larger runs only alone).
 * `BASELINE_BYTES + sum(CACHE_BUDGETS) + REQUEST_BYTES <= ISOLATE_MEMORY_BYTES` holds by construction and
 * test/pipeline/admission.test.ts checks it with the largest Processing request (2500 x 2500 FLOAT32).
 *
 * Evalscript sandboxes are isolates of their own (Dynamic Workers, src/raster/evalscript/host/sandbox.ts): Cloudflare
 * states no other memory limit for them, so each has the Workers limit of 128 MB too, and a sandbox isolate holds
 *   its code (SANDBOX_BASELINE_BYTES) + one call's block in and its values out (2 x SANDBOX_BLOCK_BYTES)
 *   + the garbage of earlier calls, which V8 collects under that limit (measured, SANDBOX_RECYCLE_BYTES).
 * Local workerd has no such limit and collects lazily: recycling an isolate after SANDBOX_RECYCLE_BYTES
 * (sandboxgen.ts) and SANDBOX_POOL_BYTES for all sandbox isolates of one process together bound it there (one
 * process, no per-isolate limit, no eviction of named isolates; at the edge each has its own 128 MB).
 *
 * The JS memory figures are the Worker isolate's V8 heap plus ArrayBuffer backing stores (Runtime.getHeapUsage
 * usedSize + backingStorageSize over the DevTools protocol, bench/bench-memory.mjs), garbage included.
 */

const MIB = 1024 * 1024;

/** Memory of one isolate at the edge: 128 MB (Cloudflare Workers limits, "Memory"; MB read as 10^6 bytes). */
export const ISOLATE_MEMORY_BYTES = 128_000_000;

/**
 * The Worker isolate's own JS memory with its caches nearly empty and no request in flight: modules, zod schemas,
 * the router, the WebAssembly instances. Measured by bench/bench-memory.mjs after a full GC of a server that had
 * served one 16 x 16 request: 16.7-16.8 MiB on b143cf5, 19.3-19.8 MiB once third-party import, the task engine's
 * plug-ins and the strip JPEG encoder were added (README, Benchmarks).
 */
export const BASELINE_BYTES = 20 * MIB;

/**
 * Decoded COG blocks kept per isolate (src/raster/cog/blocks.ts): five 1024 x 1024 UINT16 Sentinel-2 blocks (eight
 * until the baseline grew by 2 MiB, seven until the caches below were sized in bytes: their 5.25 MiB
 * came from here, so the requests' share stays above the largest Processing request's 59.4 MB).
 */
export const BLOCK_CACHE_BYTES = 10 * MIB;
/**
 * NEAREST index maps kept per isolate (src/raster/warp/near.ts): 4 bytes per output pixel plus a block map's runs
 * (8 bytes a run, 32 KiB for the bench's 1024 x 1024 grid over 512 px blocks), two 1024 x 1024 maps.
 */
export const INDEX_CACHE_BYTES = 8 * MIB + 128 * 1024;
/**
 * Value tables of the NEAREST gather from blocks (src/raster/warp/values.ts): one per stored type, nodata and unit
 * conversion, 256 KiB for a 16-bit type; two of them (the reflectance of a Sentinel-2 request and one other).
 */
export const VALUE_TABLE_BYTES = MIB / 2;
/** Parsed COG headers kept per isolate (src/raster/cog/index.ts): about 16 bytes per block of each file. */
export const HEADER_CACHE_BYTES = 2 * MIB;
/**
 * WebAssembly memory of the warp kernels' kept instance (src/raster/warp/kernels.ts; larger needs use a throwaway
 * one): the source window of a bilinear or cubic strip, e.g. about 3000 x 260 Float32 pixels for a 2500 px wide strip.
 */
export const WARP_WASM_BYTES = 8 * MIB;
/** WebAssembly memory of the decode core's kept instance (src/raster/codec/core.ts; a larger one is dropped after its call). */
export const DECODE_WASM_BYTES = 8 * MIB;
/**
 * WebAssembly memory of the statistics kernels' kept instance (src/raster/stats/kernels.ts): the high-bit and eight
 * low-bit histograms of a radix select, a histogram's threshold keys, one chunk of samples and one of a data mask
 * band (2.9 MiB).
 */
export const STATS_WASM_BYTES = 3 * MIB;
/**
 * WebAssembly memory of the host path's kept instance (src/raster/evalscript/hostpath/simd.ts): one chunk of
 * SIMD_CHUNK pixels of three Float32 bands, their dataMask bytes and their 32-bit output words (272 KiB), and the
 * NDI classes' table of 512 words (2 KiB): 320 KiB in whole 64 KiB pages. True colour in FLOAT32 (12 bytes out per
 * pixel) runs chunks of half as many pixels inside the three bands' bytes, so needs no more.
 */
export const HOSTPATH_WASM_BYTES = 320 * 1024;

/**
 * Scene searches kept per isolate (src/storage/scenes.ts): parsed STAC items, sized by their JSON text (see
 * SCENE_BYTES_PER_CHAR there); a WMTS map panned over many tiles makes one entry per tile's bbox.
 */
export const SCENE_CACHE_BYTES = 1 * MIB;
/** Opened archive files kept per isolate (src/storage/sources.ts): each holds its first PREFIX_BYTES (16 KiB). */
export const FILE_CACHE_BYTES = 2 * MIB;
/**
 * Compiled evalscripts, their setup() results and their column programs kept per isolate (src/raster/evalscript):
 * half for the compiled scripts, an eighth for setups, an eighth for literal setups and a quarter for programs
 * (hostpath/runtime.ts).
 */
export const SCRIPT_CACHE_BYTES = 1 * MIB;
/** Prepared warps kept per isolate (src/raster/warp/prepared.ts): the lattice of source coordinates of a grid. */
export const PREPARED_WARP_BYTES = 1 * MIB;
/**
 * The request path's small caches together (verified tokens and clients, src/auth/verified.ts; rate-limiter ids
 * and headroom, src/ratelimit; bucket owners, src/buckets/owners.ts), each a share of this.
 */
export const REQUEST_CACHE_BYTES = MIB / 4;

/** Every per-isolate cache budget by name (the sum is what the caches may hold together). */
export const CACHE_BUDGETS: Readonly<Record<string, number>> = {
  BLOCK_CACHE_BYTES,
  INDEX_CACHE_BYTES,
  VALUE_TABLE_BYTES,
  HEADER_CACHE_BYTES,
  WARP_WASM_BYTES,
  DECODE_WASM_BYTES,
  STATS_WASM_BYTES,
  HOSTPATH_WASM_BYTES,
  SCENE_CACHE_BYTES,
  FILE_CACHE_BYTES,
  SCRIPT_CACHE_BYTES,
  PREPARED_WARP_BYTES,
  REQUEST_CACHE_BYTES,
};

/** Sum of {@link CACHE_BUDGETS}. */
export const CACHE_BYTES = Object.values(CACHE_BUDGETS).reduce((a, b) => a + b, 0);

/** What the requests in flight of one isolate may hold together (estimated bytes, src/pipeline/admission.ts). */
export const REQUEST_BYTES = ISOLATE_MEMORY_BYTES - BASELINE_BYTES - CACHE_BYTES;

/** Bytes of pixels per RPC to a sandbox, each way (src/raster/evalscript/host/runtime.ts blockBytes; larger requests go in blocks of rows). */
export const SANDBOX_BLOCK_BYTES = 16 * MIB;

/** A sandbox isolate's own JS memory (the sandbox modules, a script): a few MiB, budgeted generously. */
export const SANDBOX_BASELINE_BYTES = 16 * MIB;

/**
 * Bytes (pixels sent plus values returned) after which a sandbox isolate is recycled (sandboxgen.ts): bounds the
 * garbage local workerd leaves in it. Not needed for the 128 MB: under the edge's limit (EDGE_V8_ENV of
 * scripts/lib/bench.mjs) V8 collects it, measured without any recycling: 30 requests of 2500 x 2500
 * FLOAT32 NDVI (75 MB through the sandbox each) left workerd at 503 MiB RSS, as with recycling (507), no abort.
 * Each recycle costs the next request a cold isolate (+25-40 ms eval), so this was raised from 74 MiB (the 128 MB
 * less code and one call each way) to 256 MiB: interleaved servers, 30-40 requests each, eval stage p50 / mean:
 * Statistical API 29RKH 1098² NDVI + SCL (30 MB a request) 59 / 58.1 -> 44 / 47.6 ms (wall p50 124 -> 104 ms;
 * with the edge flags 45 / 47.0 -> 32 / 38.8 ms), NDVI PNG 1024² 21 / 26.2 -> 20 / 23.0 ms, 512² 7 / 8.0 ->
 * 7 / 7.0 ms; workerd RSS after 30 of the 29RKH requests 609 -> 721 MiB without the flags, 523 -> 512 with them.
 */
export const SANDBOX_RECYCLE_BYTES = 256 * MIB;

/**
 * Bytes charged to all live sandbox isolates of this Worker isolate together after which idle ones are aborted
 * (sandboxgen.ts evictIdle): bounds local workerd's resident memory (one process for every isolate); at the edge
 * each sandbox isolate has its own limit and Cloudflare evicts idle ones.
 */
export const SANDBOX_POOL_BYTES = 512 * MIB;
