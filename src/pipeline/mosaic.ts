/**
 * Mosaicking of scenes into evalscript samples (SIMPLE, ORBIT, TILE), see pipeline.ts for the semantics.
 */
import { EngineError } from "../raster/errors";
import type { SceneInfo } from "../raster/evalscript";
import type { AreaPlan } from "./plan";
import type { SceneRaster } from "./read";
import type { Scene } from "./scenes";

export interface Sample {
  info: SceneInfo;
  bands: Record<string, Float32Array>;
  dataMask: Uint8Array;
}

/** Upper bound on pixels x samples x bands held in memory for one request. */
export const MAX_SAMPLE_VALUES = 250_000_000;

/** A TILE scene as evalscripts see it (scenes.tiles entries, preProcessScenes input). */
export function tileInfo(s: Scene, index: number): SceneInfo {
  return {
    id: s.item.id,
    date: new Date(s.time).toISOString(),
    cloudCoverage: s.cloudCover ?? undefined,
    dataPath: `${s.item.collection}/${s.item.id}`,
    tileOriginalId: s.item.id,
    shId: index + 1,
  };
}

/** An ORBIT scene: the scenes of one UTC day (dateFrom/dateTo span the day, as Sentinel Hub). */
export function orbitInfo(day: string, scenes: Scene[], offset: number): SceneInfo {
  const tiles = scenes.map((s, i) => tileInfo(s, offset + i));
  return {
    id: day,
    date: tiles[0]!.date,
    dateFrom: `${day}T00:00:00Z`,
    dateTo: `${day}T23:59:59Z`,
    cloudCoverage: tiles[0]!.cloudCoverage,
    tiles,
  };
}

/** A group of scenes mosaicked into one sample, with the metadata the script sees for it. */
export interface SceneGroup {
  info: SceneInfo;
  scenes: Scene[];
}

/** Groups scenes by UTC day, keeping their order (ORBIT). */
export function orbitGroups(scenes: Scene[]): SceneGroup[] {
  const days = new Map<string, Scene[]>();
  for (const s of scenes) {
    const day = new Date(s.time).toISOString().slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), s]);
  }
  let offset = 0;
  return [...days].map(([day, list]) => {
    const g = { info: orbitInfo(day, list, offset), scenes: list };
    offset += list.length;
    return g;
  });
}

/** One group per scene (TILE). */
export const tileGroups = (scenes: Scene[]): SceneGroup[] =>
  scenes.map((s, i) => ({ info: tileInfo(s, i), scenes: [s] }));

type Reader = (s: Scene) => Promise<SceneRaster>;

/**
 * Copies the pixels of scene raster `r` that are not yet filled (and inside `target`) into `bands`.
 * @returns the number of pixels taken.
 */
function mergeScene(
  r: SceneRaster,
  bands: Record<string, Float32Array>,
  filled: Uint8Array,
  target: Uint8Array | null,
): number {
  const names = Object.keys(bands);
  const src = names.map((b) => r.bands[b]!);
  const dst = names.map((b) => bands[b]!);
  const valid = r.valid;
  let taken = 0;
  for (let i = 0; i < filled.length; i++) {
    if (filled[i] || !valid[i] || (target && !target[i])) continue;
    filled[i] = 1;
    taken++;
    for (let j = 0; j < dst.length; j++) dst[j]![i] = src[j]![i]!;
  }
  return taken;
}

/**
 * Number of 1s in a 0/1 mask: four pixels per step where the mask is 4-byte aligned (the byte sum of a word is the top
 * byte of word * 0x01010101). 0.26-0.31 against 0.93-1.12 ms per Mpx byte by byte (workerd, vitest probe, 100
 * interleaved rounds; ~0.7 ms of a 1024 x 1024 request).
 */
function ones(mask: Uint8Array): number {
  const words = mask.byteOffset % 4 === 0 ? mask.length >> 2 : 0;
  const w32 = new Uint32Array(mask.buffer, mask.byteOffset, words);
  let n = 0;
  for (let i = 0; i < words; i++) n += Math.imul(w32[i]!, 0x01010101) >>> 24;
  for (let i = words * 4; i < mask.length; i++) n += mask[i]!;
  return n;
}

/** First scene of a mosaic: its arrays are taken over, pixels without data (or outside `target`) zeroed. */
function firstScene(r: SceneRaster, filled: Uint8Array, target: Uint8Array | null): number {
  if (r.zeroed && !target) {
    filled.set(r.valid);
    return ones(r.valid);
  }
  const arrays = Object.values(r.bands);
  let taken = 0;
  for (let i = 0; i < filled.length; i++) {
    if (r.valid[i] && (!target || target[i])) {
      filled[i] = 1;
      taken++;
    } else for (let j = 0; j < arrays.length; j++) arrays[j]![i] = 0;
  }
  return taken;
}

/** SIMPLE mosaic of `scenes` (in order): first scene with data wins per pixel; stops once all pixels are filled. */
async function simpleMosaic(group: SceneGroup, read: Reader, plan: AreaPlan): Promise<Sample | null> {
  const scenes = group.scenes;
  const n = plan.grid.width * plan.grid.height;
  const target = plan.geometryMask;
  let remaining = target ? target.reduce((a, v) => a + v, 0) : n;
  const filled = new Uint8Array(n);
  let bands: Record<string, Float32Array> | null = null;
  for (let k = 0; k < scenes.length && remaining > 0; k++) {
    const r = await read(scenes[k]!);
    const taken = bands ? mergeScene(r, bands, filled, target) : firstScene(r, filled, target);
    bands ??= r.bands;
    remaining -= taken;
  }
  return bands ? { info: group.info, bands, dataMask: filled } : null;
}

/**
 * Throws EngineError invalid-argument (limit "sample values") when holding the samples of `parts` (per data source: samples x bands) on `n` pixels at once would
 * take more than MAX_SAMPLE_VALUES values; with data fusion all sources count together.
 */
export function checkSampleValues(n: number, parts: { samples: number; bands: number }[]): void {
  const values = parts.reduce((a, p) => a + n * p.samples * Math.max(1, p.bands), 0);
  if (values > MAX_SAMPLE_VALUES)
    throw new EngineError(
      "invalid-argument",
      `The request needs ${parts.map((p) => `${p.samples} samples x ${p.bands} bands`).join(" + ")} of ${n} px = ${values} values; at most ${MAX_SAMPLE_VALUES} are allowed. Narrow the time range or the output size.`,
      undefined,
      { name: "sample values", max: MAX_SAMPLE_VALUES },
    );
}

/**
 * Builds the samples for the script from scene groups (SIMPLE: one group). `emptyBands` names the bands of an
 * all-nodata sample (no scene found). The caller checks the memory bound first (checkSampleValues).
 */
export async function mosaicScenes(
  mosaicking: string,
  groups: SceneGroup[],
  read: Reader,
  plan: AreaPlan,
  emptyBands: string[],
): Promise<Sample[]> {
  const n = plan.grid.width * plan.grid.height;
  const samples: Sample[] = [];
  const empty = (info: SceneInfo): Sample => ({
    info,
    bands: Object.fromEntries(emptyBands.map((b) => [b, new Float32Array(n)])),
    dataMask: new Uint8Array(n),
  });
  for (const g of groups) {
    samples.push((await simpleMosaic(g, read, plan)) ?? empty(g.info)); // one sample per group, also where no scene has pixels here
  }
  if (mosaicking === "SIMPLE" && samples.length === 0)
    samples.push(empty({ id: "none", date: new Date(0).toISOString() }));
  return samples;
}
