/**
 * Priming of the read stage's pixel loops, run in the background once an isolate's first request is answered
 * (src/index.ts warmUp).
 *
 * An isolate's first Process request ran the read stage's loops (the warp's proj4 lattice and index map, the NEAREST
 * gather, the scene mask, the unit conversion, the mosaic's count) over 2 x 262k pixels before V8 had compiled them:
 * the V8 CPU profile of a cold NDVI 512 PNG request showed 5-15 ms each in convertUnits, centres, nearWindow, allValid
 * and ones, against well under 1 ms warm. Running the same code a few times over a small in-memory raster after the
 * first request (usually the token request) lets V8 compile them before real pixels come. Measured on fresh `wrangler
 * dev` servers (main and this, alternating, 5 each, a loaded machine): the first NDVI 512 PNG after start, read stage
 * 81-166 -> 52-108 ms, the request 178-405 -> 144-403 ms (median 285 -> 171), the token request before it unchanged
 * (median 151 vs 155 ms; priming while it waited for I/O instead cost it ~20 ms). Priming the decode core too (a 256 x
 * 256 block inflated each round) showed no gain beyond the noise (read 62-85 vs 52-90 ms) and made the token request
 * slower (116-223 vs 128-253 ms): not done. It keeps nothing in the caches a request reads (the warp's NEAREST map is
 * not cached; the prepared warp of the synthetic layout takes one LRU entry).
 */
import { crsFromEpsg, transformBounds } from "../raster/crs";
import { bboxOf, pyramidLevels, type RasterReader } from "../raster/reader";
import type { GeoTransform, Grid } from "../raster/types";
import { readWarped } from "../raster/warp";
import { unitsScale } from "./bands";
import type { BandDef, DataCollection } from "./collections";
import { mosaicScenes } from "./mosaic";
import type { AreaPlan } from "./plan";
import { allValid } from "./read";
import type { StacItem } from "../storage/stac";
import type { Scene } from "./scenes";

const SIZE = 256;

/** A 256 x 256 px UINT16 raster in memory, UTM zone 29N at 100 m (as a Sentinel-2 overview), DN 0 in its first rows. */
function syntheticReader(): RasterReader {
  const gt: GeoTransform = [300000, 100, 0, 2800000, 0, -100];
  const dn = new Uint16Array(SIZE * SIZE);
  for (let i = SIZE * 8; i < dn.length; i++) dn[i] = 500 + (i % 4000);
  const window = (w: { x0: number; y0: number; width: number; height: number }) => {
    const out = new Uint16Array(w.width * w.height);
    for (let y = 0; y < w.height; y++)
      out.set(dn.subarray((w.y0 + y) * SIZE + w.x0, (w.y0 + y) * SIZE + w.x0 + w.width), y * w.width);
    return out;
  };
  return {
    id: "prime",
    crs: crsFromEpsg(32629),
    width: SIZE,
    height: SIZE,
    geoTransform: gt,
    bbox: bboxOf(gt, SIZE, SIZE),
    bandCount: 1,
    sampleType: "UINT16",
    nodata: 0,
    levels: pyramidLevels(gt, [{ width: SIZE, height: SIZE, blockWidth: SIZE, blockHeight: SIZE }]),
    read: async (_l, bands, w) => bands.map(() => Float32Array.from(window(w))),
    readNative: async (_l, bands, w) => bands.map(() => window(w)),
    readBlocks: async (_l, bands) => bands.map(() => ({ blocks: [dn], fill: 0 })),
  };
}

/**
 * Runs the read stage's loops `rounds` times on a synthetic UTM scene warped to EPSG:4326 (96 x 96 px, two "files"),
 * each round after a timer so that requests in flight go first. Resolves when done; throws what the engine throws.
 */
export async function primeReadStage(rounds = 6): Promise<void> {
  const reader = syntheticReader();
  const wgs84 = crsFromEpsg(4326);
  const grid: Grid = { crs: wgs84, bbox: transformBounds(reader.bbox, reader.crs, wgs84), width: 96, height: 96 };
  const n = grid.width * grid.height;
  const def = { units: ["REFLECTANCE", "DN"] } as unknown as BandDef;
  const c = { optical: true } as unknown as DataCollection;
  const item = { properties: { "s2:processing_baseline": "04.00" }, assets: {} } as unknown as StacItem;
  const plan = { grid, geometryMask: null } as unknown as AreaPlan;
  for (let r = 0; r < rounds; r++) {
    await new Promise((resolve) => setTimeout(resolve, 0)); // after the requests in flight
    const files = new Map<string, { data: Float32Array; valid: Uint8Array }>();
    const scales = [unitsScale(def, "REFLECTANCE", c, item, true)];
    for (const name of ["a", "b"]) {
      const opts = { resampling: "NEAREST", nodata: 0, cacheIndex: false, scales } as const;
      files.set(name, (await readWarped(reader, [0], grid, opts))[0]!);
    }
    const { valid } = allValid(files, n);
    const bands = Object.fromEntries([...files].map(([k, f]) => [k, f.data]));
    await mosaicScenes(
      "SIMPLE",
      [{ info: { id: "prime", date: "2020-01-01T00:00:00Z" }, scenes: [{} as Scene] }],
      async () => ({ bands, valid, zeroed: true }),
      plan,
      ["a", "b"],
    );
  }
}
