/**
 * The features of a Batch `GeoPackageInput` (OpenAPI BatchV2GeoPackageInput / BatchV2GeoPackageFeatureDefaults):
 * one output tile per feature of the GeoPackage's (first) feature layer, Polygon / MultiPolygon in the layer's CRS.
 *
 * API (stable; used by batch analysis):
 * - `batchFeatures(layer, defaults?)` -> {@link BatchFeature}[] in fid order, each with what a synchronous Process
 *   request over the feature needs: `bounds` = the feature geometry in `epsg`, `bbox` its envelope, and `output` =
 *   `{width, height}` or `{resx, resy}` (the feature's columns when set, else the request's `defaults`).
 * Columns (as Sentinel Hub names them): `identifier` (text or integer, unique, used as the tile name in output
 * paths; when the layer has no such column the fid is used), `width` and `height` (integer pixels, 1..3500, both or
 * neither) and `resolution` (layer CRS units, > 0). Width/height and resolution exclude each other, in a feature
 * and in the defaults ("Only width and height or resolution can be set at the same time").
 * Failures throw EngineError invalid-argument naming the feature (fid and identifier) and the column.
 */
import type { MultiPolygon, Polygon } from "geojson";
import { EngineError } from "../raster/errors";
import { polygonBounds } from "./bounds";
import type { GeoPackageFeature, GeoPackageLayer } from "./geopackage";

/** OpenAPI BatchV2GeoPackageFeatureDefaults. */
export interface FeatureDefaults {
  width?: number;
  height?: number;
  resolution?: number;
}

/** The output size of a feature: pixels, or resolution in the layer CRS units (as Process `output`). */
export type FeatureOutput = { width: number; height: number } | { resx: number; resy: number };

/** One feature of a GeoPackageInput, ready to be processed as its own tile. */
export interface BatchFeature {
  identifier: string;
  fid: number;
  /** EPSG code of the layer CRS (the CRS of geometry and bbox). */
  epsg: number;
  geometry: Polygon | MultiPolygon;
  /** [minX, minY, maxX, maxY] of the geometry. */
  bbox: [number, number, number, number];
  output: FeatureOutput;
}

/** Largest width / height of a feature (OpenAPI GeoPackageFeatureDefaults maximum). */
export const MAX_FEATURE_PIXELS = 3500;

function invalid(message: string): EngineError {
  return new EngineError("invalid-argument", message);
}

/** The size a feature (or the defaults, `where` = "defaults") asks for; undefined when it asks for none. */
function sizeOf(values: FeatureDefaults, where: string): FeatureOutput | undefined {
  const { width, height, resolution } = values;
  const hasSize = width != null || height != null;
  if (hasSize && resolution != null) throw invalid(`${where}: set either width and height or resolution, not both.`);
  if (hasSize) {
    for (const [name, v] of [
      ["width", width],
      ["height", height],
    ] as const) {
      if (v == null) throw invalid(`${where}: width and height must be set together (${name} is missing).`);
      if (!Number.isInteger(v) || v < 1 || v > MAX_FEATURE_PIXELS)
        throw invalid(`${where}: ${name} ${v} must be an integer from 1 to ${MAX_FEATURE_PIXELS}.`);
    }
    return { width: width!, height: height! };
  }
  if (resolution != null) {
    if (!(typeof resolution === "number" && resolution > 0 && Number.isFinite(resolution)))
      throw invalid(`${where}: resolution ${resolution} must be a number > 0.`);
    return { resx: resolution, resy: resolution };
  }
  return undefined;
}

/** A number column value (null when unset). @throws invalid-argument for text or blobs. */
function numberColumn(f: GeoPackageFeature, column: string, where: string): number | undefined {
  const v = f.properties[column];
  if (v == null) return undefined;
  if (typeof v !== "number")
    throw invalid(
      `${where}: column ${column} holds ${JSON.stringify(v instanceof Uint8Array ? "a blob" : v)}, not a number.`,
    );
  return v;
}

/** The identifier of a feature (the `identifier` column, else the fid). */
function identifierOf(f: GeoPackageFeature, hasColumn: boolean): string {
  if (!hasColumn) return String(f.fid);
  const v = f.properties.identifier;
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  if (typeof v !== "string" || !v.trim())
    throw invalid(`Feature ${f.fid}: column identifier must be a non-empty text or integer.`);
  if (/[/\\]/.test(v) || v === "." || v === "..")
    throw invalid(
      `Feature ${f.fid}: identifier "${v}" must not contain / or \\ or be . or .. (it names output files).`,
    );
  return v;
}

/**
 * The features of a GeoPackageInput layer (see the module note).
 * @throws EngineError invalid-argument when the defaults are inconsistent, an identifier is missing, duplicated or
 *   not path-safe, a size column is malformed, a feature has no geometry or no size (and there are no defaults),
 *   or the layer has no features.
 */
export function batchFeatures(layer: GeoPackageLayer, defaults: FeatureDefaults = {}): BatchFeature[] {
  const fallback = sizeOf(defaults, "defaults");
  const hasIdentifier = layer.columns.includes("identifier");
  const seen = new Map<string, number>();
  const out = layer.features.map((f): BatchFeature => {
    const identifier = identifierOf(f, hasIdentifier);
    const where = `Feature ${f.fid} ("${identifier}")`;
    const previous = seen.get(identifier);
    if (previous !== undefined)
      throw invalid(
        `${where}: identifier "${identifier}" is also used by feature ${previous}; identifiers must be unique.`,
      );
    seen.set(identifier, f.fid);
    if (!f.geometry || (f.geometry.type !== "Polygon" && f.geometry.type !== "MultiPolygon"))
      throw invalid(`${where} has no Polygon or MultiPolygon geometry.`);
    const own = sizeOf(
      {
        width: numberColumn(f, "width", where),
        height: numberColumn(f, "height", where),
        resolution: numberColumn(f, "resolution", where),
      },
      where,
    );
    const output = own ?? fallback;
    if (!output) throw invalid(`${where} has no width and height or resolution, and the request sets no defaults.`);
    return { identifier, fid: f.fid, epsg: layer.epsg, geometry: f.geometry, bbox: polygonBounds(f.geometry), output };
  });
  if (!out.length) throw invalid(`Layer "${layer.name}" of the GeoPackage has no features.`);
  return out;
}
