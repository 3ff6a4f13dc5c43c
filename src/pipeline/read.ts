/**
 * Reads the bands of one scene onto the output grid: COG windows from R2 (through the raster engine), warped,
 * converted to the requested units, plus derived (CLM) and angle bands.
 */
import type { Env } from "../env";
import { openCog } from "../raster/cog";
import { readWarped } from "../raster/warp";
import type { Grid, Resampling, ValueScale } from "../raster/types";
import { openAsset } from "../archive";
import { locateBand } from "../storage/items";
import type { StacItem } from "../storage/stac";
import { invalidArgument } from "../raster/errors";
import type { DataCollection } from "./collections";
import { clmFromScl, convertUnits, sceneAngles, unitsScale } from "./bands";
import { openZarrAsset } from "../storage/zarr";

export interface BandRequest {
  name: string;
  units: string;
}

export interface ReadOptions {
  upsampling: Resampling;
  downsampling: Resampling;
  harmonize: boolean;
  /** Keep NEAREST index maps for later requests (WarpOptions.cacheIndex; false for the strips of a large request). */
  cacheIndex?: boolean;
}

export interface SceneRaster {
  /** Band values in requested units, width*height each. */
  bands: Record<string, Float32Array>;
  /** 1 where the scene has data. */
  valid: Uint8Array;
  /** True when every band is already 0 wherever `valid` is 0 (mosaicking then need not zero them). */
  zeroed?: boolean;
}

/** Output pixel size in metres (approximate for geographic grids, at the grid's centre latitude). */
function outputMetres(grid: Grid): number {
  const res = (grid.bbox[2] - grid.bbox[0]) / grid.width;
  if (!grid.crs.geographic) return res;
  const lat = ((grid.bbox[1] + grid.bbox[3]) / 2) * (Math.PI / 180);
  return res * 111320 * Math.cos(lat);
}

/** Upsampling kernel when the output is finer than the source (native gsd in metres), else downsampling. */
export function chooseResampling(grid: Grid, gsd: number | undefined, o: ReadOptions): Resampling {
  if (!gsd) return o.downsampling;
  return outputMetres(grid) < gsd ? o.upsampling : o.downsampling;
}

/**
 * Opens a scene file of collection `c`: from the local store as its owner (src/storage/sources.ts openFile), or from
 * the upstream archive for an item the archive answered (src/archive).
 * @throws Error when it is missing from storage; BucketAccessDenied when the owner may not use its bucket;
 *   UpstreamError (502 / 503) when the archive fails.
 */
async function sceneFile(env: Env, c: DataCollection, key: string, item: StacItem) {
  const source = await openAsset(env, c, item, key);
  if (!source) throw new Error(`scene file ${key} of item ${item.id} is missing from storage`);
  return source;
}

/**
 * The no-data value of a built-in's band whose file declares none: the registry's (Sentinel Hub's documented value,
 * e.g. DN 0 of Sentinel-1 GRD measurements, which their GeoTIFFs do not tag); null for other collections.
 */
function builtinNodata(c: DataCollection, band: string): number | null {
  return c.kind === "builtin" ? (c.bands.get(band)?.nodata ?? null) : null;
}

/**
 * Reads the file bands `names` of an item: grouped per asset file, all files concurrently. Nodata: the file's, else
 * `nodataDefault`, else the built-in band's (builtinNodata). A band named in `scales` comes converted by its scale
 * (readWarped's WarpOptions.scales), the others as stored.
 */
async function readFileBands(
  env: Env,
  c: DataCollection,
  item: StacItem,
  names: string[],
  grid: Grid,
  o: ReadOptions,
  nodataDefault: number | null,
  scales: Map<string, ValueScale | null>,
) {
  const byKey = new Map<string, { names: string[]; indices: number[]; gsd?: number }>();
  for (const name of names) {
    const loc = locateBand(item, name);
    if (!loc) throw invalidArgument(`Band ${name} is not available in scene ${item.id}.`);
    const entry = byKey.get(loc.key) ?? {
      names: [],
      indices: [],
      gsd: Object.values(item.assets).find((a) => a.href === loc.key)?.gsd as number | undefined,
    };
    entry.names.push(name);
    entry.indices.push(loc.index);
    byKey.set(loc.key, entry);
  }
  const out = new Map<string, { data: Float32Array; valid: Uint8Array }>();
  const files = [...byKey];
  // all files opened before any is warped: their reads then leave together instead of one after the other file's
  // CPU work (the warp's planning), which matters when opening costs a round trip (an upstream archive)
  const readers = await Promise.all(
    files.map(async ([key]) =>
      c.kind === "zarr" ? openZarrAsset(env, c, item, key) : openCog(await sceneFile(env, c, key, item)),
    ),
  );
  await Promise.all(
    files.map(async ([, e], i) => {
      const cog = readers[i]!;
      const warped = await readWarped(cog, e.indices, grid, {
        resampling: chooseResampling(grid, e.gsd, o),
        nodata: cog.nodata ?? nodataDefault ?? builtinNodata(c, e.names[0]!),
        cacheIndex: o.cacheIndex,
        scales: e.names.map((n) => scales.get(n) ?? null),
      });
      e.names.forEach((n, i) => out.set(n, warped[i]!));
    }),
  );
  return out;
}

/**
 * Pixels where every file band has data: the files' valid masks (0/1, width*height) ANDed, all 1 without files;
 * `same` tells whether all masks were equal (then each band's own mask is the scene's). ANDs four pixels per
 * step where the masks are 4-byte aligned (as readWarped allocates them).
 */
export function allValid(files: Map<string, { valid: Uint8Array }>, n: number): { valid: Uint8Array; same: boolean } {
  const masks = [...files.values()].map((f) => f.valid);
  if (masks.length === 0) return { valid: new Uint8Array(n).fill(1), same: true };
  if (masks.length === 1) return { valid: masks[0]!, same: true };
  const valid = masks[0]!.slice();
  let same = true;
  for (const m of masks.slice(1)) {
    const words = m.byteOffset % 4 === 0 ? n >> 2 : 0;
    const [v32, m32] = [new Uint32Array(valid.buffer, 0, words), new Uint32Array(m.buffer, m.byteOffset, words)];
    for (let i = 0; i < words; i++) {
      if (v32[i] !== m32[i]) same = false;
      v32[i] &= m32[i]!;
    }
    for (let i = words * 4; i < n; i++) {
      if (valid[i] !== m[i]) same = false;
      valid[i] &= m[i]!;
    }
  }
  return { valid, same };
}

/**
 * Reads one scene. Derived bands are computed before unit conversion (which works in place). Throws EngineError invalid-argument for bands the item lacks; errors for missing files are internal (5xx).
 */
export async function readScene(
  env: Env,
  c: DataCollection,
  item: StacItem,
  req: BandRequest[],
  grid: Grid,
  o: ReadOptions,
): Promise<SceneRaster> {
  const n = grid.width * grid.height;
  const defs = req.filter((b) => b.name !== "dataMask").map((b) => ({ ...b, def: c.bands.get(b.name)! }));
  const fileNames = new Set<string>();
  for (const b of defs) {
    if (b.def.kind === "file") fileNames.add(b.name);
    if (b.def.kind === "derived") fileNames.add(b.def.from!);
  }
  // file bands no derived band reads come in the requested units (the warp converts them as it gathers)
  const scales = new Map<string, ValueScale | null>();
  for (const b of defs)
    if (b.def.kind === "file" && !defs.some((d) => d.def.kind === "derived" && d.def.from === b.name))
      scales.set(b.name, unitsScale(b.def, b.units, c, item, o.harmonize));
  // Sentinel-2 files use DN 0 for no data even where no nodata tag is set.
  const files = fileNames.size
    ? await readFileBands(env, c, item, [...fileNames], grid, o, c.optical ? 0 : null, scales)
    : new Map();
  const { valid, same } = allValid(files, n);
  const angles = defs.some((b) => b.def.kind === "angle") ? sceneAngles(item) : {};
  const bands: Record<string, Float32Array> = {};
  const order = [...defs].sort((a, b) => Number(a.def.kind === "file") - Number(b.def.kind === "file"));
  for (const b of order) {
    if (b.def.kind === "angle") bands[b.name] = new Float32Array(n).fill(angles[b.name]!);
    else if (b.def.kind === "derived")
      bands[b.name] = clmFromScl(files.get(b.def.from!)!.data, files.get(b.def.from!)!.valid);
    else if (scales.has(b.name)) bands[b.name] = files.get(b.name)!.data;
    else
      bands[b.name] = convertUnits(
        files.get(b.name)!.data,
        files.get(b.name)!.valid,
        b.def,
        b.units,
        c,
        item,
        o.harmonize,
      );
  }
  // each file band is 0 where its own mask is 0 (converted by the warp or convertUnits); with equal masks that is the scene's mask
  return { bands, valid, zeroed: same && defs.every((b) => b.def.kind === "file") };
}
