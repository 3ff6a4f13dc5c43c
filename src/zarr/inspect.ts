/**
 * Reads a Zarr v2 group in a bucket and checks it against Sentinel Hub's Zarr import constraints
 * (docs.sentinel-hub.com/api/latest/api/zarr, "Data constraints"): a group (.zgroup) holding exactly two spatial
 * coordinate arrays (x and y, or lon and lat; regularly spaced pixel centres), an optional time coordinate array
 * (required for 3-D data, with a `units` attribute "<unit> since <instant>", unit days / hours / minutes /
 * seconds / millis / micros / nanos), and data arrays with JavaScript-identifier names, 2 ([y, x]) or 3
 * ([time, y, x]) dimensions matching the coordinate arrays, order C, chunks of at most 3072 pixels spatially, and a
 * 32- or 64-bit data type. EO Edge reads the data types u4, i4, f4 and f8 (i8 is refused: no raster sample type
 * holds it). Dimension names come from `_ARRAY_DIMENSIONS` (xarray's convention) when present.
 * Every array's metadata must also be what the Zarr reader reads (src/raster/zarr/limits.ts: compressor none,
 * zlib or gzip, no filters, a numeric fill_value, chunks >= 1 of at most 72 MiB) within the reader's limits, and
 * the group holds at most MAX_ARRAYS arrays and MAX_TIME_STEPS time steps; all of it is checked before any
 * coordinate array is read. Every violation is collected as one message; nothing is written.
 */
import * as zarr from "zarrita";
import type { ObjectStore } from "../buckets";
import { EngineError } from "../raster/errors";
import { geoTransformOf, readVector } from "../raster/zarr/reader";
import { ZARR_LIMITS, zarrayProblems } from "../raster/zarr/limits";
import { zarrFailure } from "../raster/zarr/guard";
import type { GeoTransform } from "../raster/types";
import { objectZarrStore, readObject } from "../storage/zarrstore";
import type { ZarrArrayInfo } from "./records";

/** A group that passed: its attributes, arrays, grid and time steps. */
export interface InspectedGroup {
  zattrs: Record<string, unknown> | null;
  arrays: ZarrArrayInfo[];
  /** Data arrays (bands) in name order. */
  bands: ZarrArrayInfo[];
  width: number;
  height: number;
  geoTransform: GeoTransform;
  /** Acquisition times, ms since the Unix epoch, one per index of the time dimension; [] for 2-D data. */
  times: number[];
  /** Names of the x and y coordinate arrays: ["x", "y"] or ["lon", "lat"]. */
  coords: [string, string];
}

const DATA_TYPES = new Set(["<u4", "<i4", "<f4", "<f8", ">u4", ">i4", ">f4", ">f8"]);
const MAX_CHUNK = 3072;
/** Arrays of a group (each is listed, its metadata read and stored with the collection). */
export const MAX_ARRAYS = 256;
/** Time steps of a group (each becomes a catalog item, written at ingestion). */
export const MAX_TIME_STEPS = 10_000;
const IDENTIFIER = /^[\p{L}$_][\p{L}$_0-9]*$/u;
const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static enum await implements package protected interface private public".split(
    " ",
  ),
);
const UNIT_MS: Record<string, number> = {
  days: 86_400_000,
  hours: 3_600_000,
  minutes: 60_000,
  seconds: 1000,
  millis: 1,
  micros: 1e-3,
  nanos: 1e-6,
};

/**
 * A metadata object as JSON, or null when it is missing or not JSON.
 * @throws EngineError invalid-file when it is larger than ZARR_LIMITS.metadataBytes.
 */
async function readJson(store: ObjectStore, key: string): Promise<Record<string, unknown> | null> {
  const bytes = await readObject(store, key, ZARR_LIMITS.metadataBytes);
  if (!bytes) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** A group breaking a limit of its own (not of an array): ingestion reports the message. */
class GroupError extends Error {}

/** The arrays directly under `prefix` (sub-directories holding a .zarray), in name order. @throws GroupError past MAX_ARRAYS. */
async function listArrays(store: ObjectStore, prefix: string): Promise<ZarrArrayInfo[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ prefix, delimiter: "/", cursor });
    names.push(...page.prefixes.map((p) => p.slice(prefix.length).replace(/\/$/, "")));
    if (names.length > MAX_ARRAYS) throw new GroupError(`the group holds more than ${MAX_ARRAYS} arrays`);
    cursor = page.cursor;
  } while (cursor);
  const infos = await Promise.all(
    names.sort().map(async (name) => {
      const zarray = await readJson(store, `${prefix}${name}/.zarray`);
      return zarray ? { name, zarray, zattrs: await readJson(store, `${prefix}${name}/.zattrs`) } : null;
    }),
  );
  return infos.filter((a): a is ZarrArrayInfo => a !== null);
}

const shapeOf = (a: ZarrArrayInfo): number[] => (a.zarray.shape as number[]) ?? [];

/** Checks of one data array against the coordinate arrays; returns the problems found. */
function checkDataArray(a: ZarrArrayInfo, width: number, height: number, times: number | null): string[] {
  const errors: string[] = [];
  const shape = shapeOf(a);
  const chunks = (a.zarray.chunks as number[]) ?? [];
  if (!IDENTIFIER.test(a.name) || RESERVED.has(a.name))
    errors.push(`array name '${a.name}' is not a valid JavaScript identifier`);
  if (shape.length !== 2 && shape.length !== 3)
    return [...errors, `array ${a.name} has ${shape.length} dimensions; 2 ([y, x]) or 3 ([time, y, x]) are needed`];
  if (a.zarray.order !== "C") errors.push(`array ${a.name} must be stored in order "C"`);
  if (!DATA_TYPES.has(String(a.zarray.dtype)))
    errors.push(`array ${a.name} has dtype ${JSON.stringify(a.zarray.dtype)}; supported: u4, i4, f4, f8`);
  const [h, w] = shape.slice(-2);
  if (h !== height || w !== width)
    errors.push(`array ${a.name} is ${w}x${h} (x by y) but the coordinate arrays are ${width}x${height}`);
  if (shape.length === 3 && times === null)
    errors.push(`array ${a.name} has a time dimension but the group has no time coordinate array`);
  if (shape.length === 3 && times !== null && shape[0] !== times)
    errors.push(`array ${a.name} has ${shape[0]} time steps but the time array has ${times}`);
  if (chunks.slice(-2).some((c) => c > MAX_CHUNK))
    errors.push(`array ${a.name} has spatial chunks ${chunks.slice(-2).join("x")}; at most ${MAX_CHUNK}`);
  return errors;
}

/** ms per unit and the epoch (ms) of a CF-style `<unit> since <instant>`, or null when it is not one. */
export function parseTimeUnits(units: unknown): { scale: number; epoch: number } | null {
  const m = /^\s*(\w+)\s+since\s+(.+?)\s*$/.exec(String(units ?? ""));
  const scale = m ? UNIT_MS[m[1]!.toLowerCase()] : undefined;
  if (!m || scale === undefined) return null;
  const text = m[2]!.includes("T") || !m[2]!.includes(" ") ? m[2]! : m[2]!.replace(" ", "T");
  const epoch = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || !text.includes("T") ? text : `${text}Z`);
  return Number.isFinite(epoch) ? { scale, epoch } : null;
}

/** True when consecutive values step evenly (to 1e-6 of the step). */
function regular(v: Float64Array): boolean {
  const step = (v[v.length - 1]! - v[0]!) / (v.length - 1);
  return step !== 0 && v.every((x, i) => Math.abs(x - (v[0]! + i * step)) <= Math.abs(step) * 1e-6);
}

/** The group's problems found without reading any chunk: coordinate arrays and time units, every array's metadata. */
function metadataErrors(
  arrays: ZarrArrayInfo[],
  byName: Map<string, ZarrArrayInfo>,
  coords: [string, string],
): string[] {
  const errors: string[] = [];
  if (!byName.has(coords[0]) || !byName.has(coords[1]))
    errors.push(
      `missing coordinate arrays: the group needs x and y (or lon and lat); found ${arrays.map((a) => a.name).join(", ") || "no arrays"}`,
    );
  const timeArr = byName.get("time");
  if (timeArr && !parseTimeUnits(timeArr.zattrs?.units))
    errors.push(
      `the time array's units attribute ${JSON.stringify(timeArr.zattrs?.units ?? null)} is not "<days|hours|minutes|seconds|millis|micros|nanos> since <ISO 8601 instant>"`,
    );
  if (timeArr && (shapeOf(timeArr)[0] ?? 0) > MAX_TIME_STEPS)
    errors.push(`the time array has ${shapeOf(timeArr)[0]} time steps; at most ${MAX_TIME_STEPS}`);
  return [...errors, ...arrays.flatMap((a) => zarrayProblems(a.name, a.zarray))];
}

/** inspectGroup without the conversion of limit breaches into errors. */
async function inspect(store: ObjectStore, prefix: string): Promise<InspectedGroup | { errors: string[] }> {
  const base = prefix ? `${prefix}/` : "";
  const zgroup = await readJson(store, `${base}.zgroup`);
  if (!zgroup) return { errors: [`s3://${store.bucket}/${base} holds no Zarr group (no .zgroup)`] };
  if (zgroup.zarr_format !== 2)
    return { errors: [`the group's zarr_format is ${JSON.stringify(zgroup.zarr_format)}; Zarr v2 is supported`] };
  const arrays = await listArrays(store, base);
  const byName = new Map(arrays.map((a) => [a.name, a]));
  const [xName, yName] = byName.has("x") || byName.has("y") ? ["x", "y"] : ["lon", "lat"];
  const errors = metadataErrors(arrays, byName, [xName, yName]);
  if (errors.length) return { errors };
  const zstore = objectZarrStore(store, prefix);
  const vector = async (name: string) =>
    readVector(await zarr.open.v2(zarr.root(zstore).resolve(name), { kind: "array", attrs: false }));
  const timeArr = byName.get("time");
  const [x, y, t] = await Promise.all([vector(xName), vector(yName), timeArr ? vector("time") : Promise.resolve(null)]);
  if (x.length < 2 || y.length < 2 || !regular(x) || !regular(y))
    errors.push(`coordinate arrays ${xName} and ${yName} must hold at least 2 regularly spaced values each`);
  const coordNames = new Set([xName, yName, "time"]);
  const bands = arrays.filter((a) => !coordNames.has(a.name));
  if (!bands.length) errors.push("the group has no data arrays besides the coordinate arrays");
  for (const b of bands) errors.push(...checkDataArray(b, x.length, y.length, t ? t.length : null));
  if (errors.length) return { errors };
  const time = timeArr ? parseTimeUnits(timeArr.zattrs?.units) : null;
  const times = t && time ? Array.from(t, (v) => time.epoch + v * time.scale) : [];
  return {
    zattrs: await readJson(store, `${base}.zattrs`),
    arrays,
    bands,
    width: x.length,
    height: y.length,
    geoTransform: geoTransformOf(x, y),
    times,
    coords: [xName, yName],
  };
}

/**
 * Inspects the group at `prefix` (no trailing `/`) of `store`.
 * @returns the group, or `{errors}` listing every violated constraint (a missing group is one error; a breach of
 *   the Zarr reader's limits found while reading, e.g. an oversized metadata object or coordinate array, is one).
 * @throws storage faults.
 */
export async function inspectGroup(store: ObjectStore, prefix: string): Promise<InspectedGroup | { errors: string[] }> {
  try {
    return await inspect(store, prefix);
  } catch (e) {
    const failure = e instanceof GroupError ? e : zarrFailure(e);
    if (failure instanceof GroupError || (failure instanceof EngineError && failure.kind === "invalid-file"))
      return { errors: [failure.message] };
    throw failure;
  }
}
