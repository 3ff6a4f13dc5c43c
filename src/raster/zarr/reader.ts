/**
 * A Zarr v2 group as a RasterReader (src/raster/reader.ts): one time slice of one or more data arrays of the group
 * (each array is one band), read with zarrita (github.com/manzt/zarrita.js) from any zarrita store.
 *
 * Layout (Sentinel Hub's Zarr import constraints, docs.sentinel-hub.com/api/latest/api/zarr "Data constraints";
 * xarray's Zarr encoding for `_ARRAY_DIMENSIONS`): 1-D coordinate arrays `x` and `y` holding pixel-centre
 * coordinates in the CRS (regularly spaced; y usually descending), data arrays of dimensions [y, x] or
 * [time, y, x] in C order. The geotransform is GDAL's: origin = first centre minus half a pixel, pixel size =
 * (last centre - first centre) / (n - 1).
 * Resolution levels: level 0 is the group itself; when the group attribute `overviews` lists sub-group names
 * (EO Edge's convention, finest first), each sub-group holds the same data arrays at a coarser size over the same
 * extent, and its geotransform is level 0's rescaled by the size ratio (as GDAL does for overviews).
 * Stores come through the guard of ./guard.ts (file limits of ./limits.ts); whatever is wrong with a store is an
 * EngineError invalid-file.
 */
import * as zarr from "zarrita";
import type { Readable } from "zarrita";
import type { Crs } from "../types";
import {
  bboxOf,
  checkWindow,
  pyramidLevels,
  type PixelWindow,
  type RasterLevel,
  type RasterReader,
  type SampleType,
} from "../reader";
import type { GeoTransform } from "../types";
import { invalidFile } from "../errors";
import { zarrFailure } from "./guard";
import { ZARR_LIMITS } from "./limits";

type ZArray = zarr.Array<zarr.DataType, Readable>;

const SAMPLE_TYPES: Record<string, SampleType> = {
  uint8: "UINT8",
  int8: "INT8",
  uint16: "UINT16",
  int16: "INT16",
  uint32: "UINT32",
  int32: "INT32",
  float32: "FLOAT32",
  float64: "FLOAT64",
};

/** What to open: the data arrays (bands, in order), the time index for 3-D arrays, the CRS and an identity. */
export interface ZarrSliceOptions {
  arrays: string[];
  /** Index along the time dimension (3-D arrays); ignored for 2-D arrays. */
  time?: number;
  crs: Crs;
  /** Stable identity for messages and caches (e.g. `s3://bucket/path#t=3`). */
  id: string;
  /** Names of the x and y coordinate arrays (default ["x", "y"]; Sentinel Hub also allows ["lon", "lat"]). */
  coords?: [string, string];
}

/** The Processing API sample type of a zarrita data type, or undefined for types a raster cannot hold (int64, bool, strings). */
export function sampleTypeOf(dtype: string): SampleType | undefined {
  return SAMPLE_TYPES[dtype];
}

/**
 * The geotransform of pixel-centre coordinate vectors (north-up, no rotation).
 * @throws EngineError invalid-file for fewer than 2 coordinates on an axis (the pixel size is then unknown).
 */
export function geoTransformOf(x: ArrayLike<number>, y: ArrayLike<number>): GeoTransform {
  if (x.length < 2 || y.length < 2)
    throw invalidFile(`coordinate arrays x and y need at least 2 values each (x: ${x.length}, y: ${y.length}).`);
  const dx = (x[x.length - 1]! - x[0]!) / (x.length - 1);
  const dy = (y[y.length - 1]! - y[0]!) / (y.length - 1);
  return [x[0]! - dx / 2, dx, 0, y[0]! - dy / 2, 0, dy];
}

/**
 * Reads a whole 1-D numeric array (a coordinate array) as float64 values.
 * @throws EngineError invalid-file unless it is 1-D with 1 to ZARR_LIMITS.coordinates values.
 */
export async function readVector(arr: ZArray): Promise<Float64Array> {
  const n = arr.shape[0] ?? 0;
  if (arr.shape.length !== 1 || n < 1 || n > ZARR_LIMITS.coordinates)
    throw invalidFile(
      `coordinate array ${arr.path.slice(1)} has shape ${JSON.stringify(arr.shape)}; 1-D with 1 to zarr.coordinates = ${ZARR_LIMITS.coordinates} values is supported.`,
    );
  const chunk = await zarr.get(arr);
  return Float64Array.from(chunk.data as ArrayLike<number | bigint>, Number);
}

async function openLevel(group: zarr.Location<Readable>, arrays: string[]): Promise<ZArray[]> {
  return Promise.all(arrays.map((name) => zarr.open.v2(group.resolve(name), { kind: "array", attrs: false })));
}

function blockOf(a: ZArray): { width: number; height: number; blockWidth: number; blockHeight: number } {
  const n = a.shape.length;
  return {
    width: a.shape[n - 1]!,
    height: a.shape[n - 2]!,
    blockWidth: a.chunks[n - 1]!,
    blockHeight: a.chunks[n - 2]!,
  };
}

class ZarrSlice implements RasterReader {
  readonly bbox: [number, number, number, number];
  constructor(
    readonly id: string,
    readonly crs: Crs,
    readonly geoTransform: GeoTransform,
    readonly levels: readonly RasterLevel[],
    readonly sampleType: SampleType,
    readonly nodata: number | null,
    private readonly bands: ZArray[][],
    private readonly time: number,
  ) {
    this.bbox = bboxOf(geoTransform, this.width, this.height);
  }
  get width(): number {
    return this.levels[0]!.width;
  }
  get height(): number {
    return this.levels[0]!.height;
  }
  get bandCount(): number {
    return this.bands[0]!.length;
  }

  async read(level: number, bands: number[], w: PixelWindow): Promise<Float32Array[]> {
    checkWindow(this, level, bands, w);
    const { blockWidth: cw, blockHeight: ch } = this.levels[level]!;
    const chunks =
      (Math.floor((w.x0 + w.width - 1) / cw) - Math.floor(w.x0 / cw) + 1) *
      (Math.floor((w.y0 + w.height - 1) / ch) - Math.floor(w.y0 / ch) + 1);
    if (chunks > ZARR_LIMITS.chunksPerRead)
      throw invalidFile(
        `Zarr ${this.id}: a ${w.width} x ${w.height} px window spans ${chunks} chunks of ${cw} x ${ch} px; at most zarr.chunksPerRead = ${ZARR_LIMITS.chunksPerRead} (use larger chunks).`,
        { name: "zarr.chunksPerRead", max: ZARR_LIMITS.chunksPerRead },
      );
    const rows = zarr.slice(w.y0, w.y0 + w.height);
    const cols = zarr.slice(w.x0, w.x0 + w.width);
    return Promise.all(
      bands.map(async (b) => {
        const arr = this.bands[level]![b]!;
        const sel = arr.shape.length === 3 ? [this.time, rows, cols] : [rows, cols];
        const chunk = await zarr.get(arr, sel).catch((e: unknown) => Promise.reject(zarrFailure(e, this.id)));
        return Float32Array.from(chunk.data as ArrayLike<number>);
      }),
    );
  }
}

/** Checks the bands of every level against the first: same dtype and dimensions, [y, x] or [time, y, x]. */
function checkBands(bands: ZArray[][], names: string[], width: number, height: number): SampleType {
  const first = bands[0]![0]!;
  const sampleType = sampleTypeOf(first.dtype);
  if (!sampleType) throw invalidFile(`array ${names[0]} has data type ${first.dtype}, which a raster cannot hold.`);
  for (const [i, a] of bands[0]!.entries()) {
    if (a.shape.length !== 2 && a.shape.length !== 3)
      throw invalidFile(
        `array ${names[i]} has ${a.shape.length} dimensions; 2 ([y, x]) or 3 ([time, y, x]) are needed.`,
      );
    if (a.dtype !== first.dtype || a.shape.join() !== first.shape.join())
      throw invalidFile(`arrays ${names[0]} and ${names[i]} differ in shape or data type.`);
  }
  const [h, w] = first.shape.slice(-2);
  if (h !== height || w !== width)
    throw invalidFile(`array ${names[0]} is ${w}x${h} (x by y) but the coordinate arrays are ${width}x${height}.`);
  return sampleType;
}

/** openZarrSlice without the conversion of failures. */
async function openSlice(store: Readable, opts: ZarrSliceOptions): Promise<RasterReader> {
  const root = zarr.root(store);
  const group = await zarr.open.v2(root, { kind: "group" });
  const overviews = Array.isArray(group.attrs.overviews) ? (group.attrs.overviews as unknown[]) : [];
  if (overviews.length > ZARR_LIMITS.overviews || !overviews.every((o) => typeof o === "string"))
    throw invalidFile(
      `the group's overviews attribute must list at most zarr.overviews = ${ZARR_LIMITS.overviews} sub-group names.`,
      { name: "zarr.overviews", max: ZARR_LIMITS.overviews },
    );
  const locations = [root, ...(overviews as string[]).map((o) => root.resolve(o))];
  const bands = await Promise.all(locations.map((l) => openLevel(l, opts.arrays)));
  const [x, y] = await Promise.all(
    (opts.coords ?? ["x", "y"]).map(async (n) =>
      readVector(await zarr.open.v2(root.resolve(n), { kind: "array", attrs: false })),
    ),
  );
  const sampleType = checkBands(bands, opts.arrays, x!.length, y!.length);
  const first = bands[0]![0]!;
  const time = opts.time ?? 0;
  if (first.shape.length === 3 && !(time >= 0 && time < first.shape[0]!))
    throw invalidFile(`time index ${time} outside 0..${first.shape[0]! - 1}.`);
  const gt = geoTransformOf(x!, y!);
  const levels = pyramidLevels(
    gt,
    bands.map((l) => blockOf(l[0]!)),
  );
  const fill = first.fillValue;
  const nodata = typeof fill === "number" ? fill : null;
  return new ZarrSlice(opts.id, opts.crs, gt, levels, sampleType, nodata, bands, time);
}

/**
 * Opens one time slice of the data arrays `opts.arrays` of the Zarr v2 group at the root of `store` (a guarded
 * store: src/storage/zarrstore.ts).
 * @throws EngineError invalid-file when the group, an array or a coordinate array is missing or breaks a limit, the
 *   arrays differ in shape or type, are not 2-D / 3-D or do not match the coordinate arrays, the time index is
 *   outside the time dimension, or x / y are too short; the storage's Error when a read fails.
 */
export async function openZarrSlice(store: Readable, opts: ZarrSliceOptions): Promise<RasterReader> {
  return openSlice(store, opts).catch((e: unknown) => Promise.reject(zarrFailure(e, opts.id)));
}
