/**
 * Output tiles of a GeoPackageInput (OpenAPI `BatchV2GeoPackageInput`): one tile per feature of the GeoPackage's
 * first feature layer (read with src/vector), in the layer's CRS, covering the feature's bounding box.
 * - `<tileName>`: the feature's `identifier` column (Sentinel Hub's required column), else its `name`, else its fid;
 *   names must be unique.
 * - Size: the feature's `width` and `height` columns, else its `resolution` column, else the request's
 *   `defaults` (width/height or resolution). With a resolution the grid starts at the box's west / north edge and
 *   spans ceil(extent / resolution) pixels of exactly that size (so the box grows east / south by under a pixel).
 * Errors (EngineError invalid-argument, the task then FAILS at analysis with the message): unreadable GeoPackage,
 * a feature without geometry or size, sizes above 3500 px, duplicate names.
 */
import type { Env } from "../env";
import { EngineError } from "../raster/errors";
import { readGeoPackageObject, type GeoPackageFeature } from "../vector/geopackage";
import { bucketObject } from "./delivery";
import type { GeoPackageInput } from "./schema";
import type { BatchTile } from "./tiles";

/** Largest width / height of a feature's output (OpenAPI `BatchV2GeoPackageFeatureDefaults`: maximum 3500). */
export const MAX_FEATURE_SIZE = 3500;

const invalid = (message: string) => new EngineError("invalid-argument", message);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** [minX, minY, maxX, maxY] of a feature: the GeoPackage envelope, else its coordinates. */
function featureBox(f: GeoPackageFeature, name: string): [number, number, number, number] {
  if (f.envelope) return [...f.envelope];
  if (!f.geometry) throw invalid(`GeoPackage feature '${name}' has no geometry.`);
  const xy = JSON.stringify(f.geometry).match(/-?\d+(\.\d+)?([eE][-+]?\d+)?/g)!.map(Number);
  const xs = xy.filter((_, i) => i % 2 === 0), ys = xy.filter((_, i) => i % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Width and height of a feature's box: given in pixels, or from a resolution (the box then grows east / south). */
function featureSize(box: [number, number, number, number], size: { width?: number; height?: number; resolution?: number }): { width: number; height: number } | undefined {
  if (size.width !== undefined && size.height !== undefined) return { width: size.width, height: size.height };
  const r = size.resolution;
  if (r === undefined) return undefined;
  const width = Math.max(1, Math.ceil((box[2] - box[0]) / r - 1e-9));
  const height = Math.max(1, Math.ceil((box[3] - box[1]) / r - 1e-9));
  box[2] = box[0] + width * r;
  box[1] = box[3] - height * r;
  return { width, height };
}

/** The tile of one feature (see the module comment for names and sizes). */
function featureTile(f: GeoPackageFeature, epsg: number, defaults: GeoPackageInput["defaults"]): BatchTile {
  const p = f.properties;
  const name = String(p.identifier ?? p.name ?? f.fid);
  const box = featureBox(f, name);
  const own = { width: num(p.width), height: num(p.height), resolution: num(p.resolution) };
  const size = featureSize(box, own) ?? featureSize(box, defaults ?? {});
  if (!size) throw invalid(`GeoPackage feature '${name}' has no width/height or resolution, and the input has no defaults.`);
  const { width, height } = size;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 1 && height >= 1 && width <= MAX_FEATURE_SIZE && height <= MAX_FEATURE_SIZE))
    throw invalid(`GeoPackage feature '${name}' would be ${width} x ${height} px; each side must be 1..${MAX_FEATURE_SIZE} px.`);
  return { name, epsg, bbox: box, width, height };
}

/**
 * The tiles of a GeoPackageInput, in feature (fid) order.
 * @throws EngineError invalid-argument (see the module comment); for a bad bucket URL too.
 */
export async function geoPackageTiles(env: Env, input: GeoPackageInput): Promise<BatchTile[]> {
  const { store, key } = bucketObject(env, input.features.s3, input.features.s3.url);
  const layer = await readGeoPackageObject(store, key);
  const tiles = layer.features.map((f) => featureTile(f, layer.epsg, input.defaults));
  const seen = new Set<string>();
  for (const t of tiles) {
    if (seen.has(t.name)) throw invalid(`GeoPackage features must have unique identifiers; '${t.name}' appears twice.`);
    seen.add(t.name);
  }
  return tiles;
}
