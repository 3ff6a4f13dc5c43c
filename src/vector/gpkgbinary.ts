/**
 * GeoPackage geometry blobs (OGC GeoPackage Encoding Standard 1.3, clause 2.1.3 "GeoPackageBinary"):
 *
 *   magic "GP" | version (0 = 1.x) | flags | srs_id (int32) | envelope (0, 4, 6, 6 or 8 doubles) | WKB geometry
 *
 * flags: bit 0 = byte order of srs_id and envelope (1 = little endian), bits 1-3 = envelope contents
 * (0 none, 1 [minx, maxx, miny, maxy], 2 + [minz, maxz], 3 + [minm, maxm], 4 + z and m; 5-7 invalid), bit 4 = empty
 * geometry, bit 5 = ExtendedGeoPackageBinary (a vendor extension geometry, refused here).
 * The WKB after the header (ISO 13249-3 / OGC SFA 1.2.1, either byte order, Z/M variants) is parsed by the `wkx`
 * package into GeoJSON coordinates (Z kept as a third ordinate, M dropped).
 */
import { Buffer } from "node:buffer";
import wkx from "wkx";
import type { Geometry } from "geojson";
import { EngineError } from "../raster/errors";

/** Doubles in the envelope for each value of the envelope-contents indicator (flag bits 1-3). */
const ENVELOPE_DOUBLES = [0, 4, 6, 6, 8];

/** A decoded GeoPackageBinary blob. */
export interface GpkgGeometry {
  /** srs_id of the header (the id in gpkg_spatial_ref_sys, not necessarily an EPSG code). */
  srsId: number;
  /** The header's envelope [minX, minY, maxX, maxY] in the layer CRS, or null when the header has none. */
  envelope: [number, number, number, number] | null;
  /** The geometry as GeoJSON coordinates in the layer CRS (x = easting / lon), null for an empty geometry. */
  geometry: Geometry | null;
}

function invalid(message: string): EngineError {
  return new EngineError("invalid-argument", message);
}

/**
 * Decodes one GeoPackageBinary geometry blob. `where` names the feature in error messages.
 * @throws EngineError invalid-argument when the blob is not GeoPackageBinary (magic, version, envelope flags), is an
 *   ExtendedGeoPackageBinary geometry, or its WKB is truncated or of a type WKB parsing does not know (curves, TINs...).
 */
export function decodeGpkgGeometry(blob: Uint8Array, where: string): GpkgGeometry {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50)
    throw invalid(`${where}: the geometry is not a GeoPackage geometry blob (no "GP" magic)`);
  if (blob[2] !== 0)
    throw invalid(
      `${where}: GeoPackage geometry blob version ${blob[2]} is not supported (only version 0, GeoPackage 1.x)`,
    );
  const flags = blob[3]!;
  if (flags & 0x20) throw invalid(`${where}: extended (non-standard) GeoPackage geometry types are not supported`);
  const indicator = (flags >> 1) & 7;
  const doubles = ENVELOPE_DOUBLES[indicator];
  if (doubles === undefined)
    throw invalid(`${where}: invalid envelope indicator ${indicator} in the GeoPackage geometry header`);
  const little = (flags & 1) === 1;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const start = 8 + 8 * doubles;
  if (blob.length < start) throw invalid(`${where}: the GeoPackage geometry header is truncated`);
  const env = Array.from({ length: doubles }, (_, i) => view.getFloat64(8 + 8 * i, little));
  const envelope: GpkgGeometry["envelope"] = doubles ? [env[0]!, env[2]!, env[1]!, env[3]!] : null;
  const srsId = view.getInt32(4, little);
  if (flags & 0x10) return { srsId, envelope, geometry: null };
  return { srsId, envelope, geometry: parseWkb(blob.subarray(start), where) };
}

/** WKB -> GeoJSON geometry with wkx. @throws EngineError invalid-argument for malformed or unknown WKB. */
function parseWkb(wkb: Uint8Array, where: string): Geometry {
  try {
    const parsed = wkx.Geometry.parse(Buffer.from(wkb.buffer, wkb.byteOffset, wkb.byteLength));
    return parsed.toGeoJSON() as Geometry;
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw invalid(
      `${where}: the WKB geometry cannot be read (${reason}); supported: Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon, GeometryCollection`,
    );
  }
}
