/**
 * The EPSG CRSs EO Edge accepts: exactly the list of Sentinel Hub's Processing API "CRS support" page
 * (docs.sentinel-hub.com/api/latest/api/process/crs/): WGS 84 (EPSG:4326, also as OGC CRS84), WGS 84 /
 * Pseudo-Mercator (3857), the WGS 84 / UTM zones 32601-32660 and 32701-32760, and 24 national / polar CRSs
 * (2154 Lambert-93, 3035 LAEA Europe, 3031 / 3413 / 3995 polar stereographic, 28992 RD New, 5514 Krovak, ...).
 *
 * Definitions (proj4 string, name, geographic or projected, EPSG area of use) are those of the epsg-index npm
 * package (EPSG registry through PROJ), copied for only these codes into definitions.json by
 * `npm run crs:definitions` (scripts/crs-definitions.mjs), so the Worker bundles ~30 KB instead of the whole index.
 * One exception: the datum shift. Each `+towgs84` is PROJ's preferred grid-less transformation to WGS 84 (e.g.
 * EPSG:4833 "Amersfoort to WGS 84 (4)" for 28992, where epsg-index's value is ~170 m off), converted by the
 * generator to proj4js's convention and recorded per code in `datumShift`.
 * test/raster/crs/definitions.test.ts checks the file against the package and proj4's results against PROJ's.
 */
import { unsupported } from "../errors";
import definitions from "./definitions.json";

/**
 * Where a definition's `+towgs84` comes from: the EPSG transformation to WGS 84 that PROJ prefers (`operation`
 * "EPSG:<code>", `name`, `accuracy` in metres; operation null for a pure conversion), `source` the PROJ version,
 * `epsgIndex` the value epsg-index had.
 */
export interface DatumShift {
  operation: string | null;
  name: string;
  accuracy: number | null;
  source: string;
  epsgIndex: string;
}

/**
 * One CRS definition from epsg-index. `area` is the EPSG area of use [west, south, east, north] in degrees;
 * `datumShift` is present when `proj4` has a `+towgs84` (position vector, m / arc-seconds / ppm).
 */
export interface EpsgDefinition {
  name: string;
  kind: string;
  proj4: string;
  area: [number, number, number, number];
  datumShift?: DatumShift;
}

const DEFINITIONS = definitions.crs as unknown as Record<string, EpsgDefinition>;

/** Where the supported list is documented (Sentinel Hub's page, which EO Edge follows). */
export const CRS_DOCUMENTATION = definitions.documentation;

/** Every supported EPSG code, ascending. */
export const SUPPORTED_EPSG: readonly number[] = Object.keys(DEFINITIONS)
  .map(Number)
  .sort((a, b) => a - b);

/** Which EPSG codes are supported, as a sentence for error messages, with where the list is documented. */
export const SUPPORTED_CRS =
  "EPSG:4326 (or OGC CRS84), EPSG:3857, the WGS 84 / UTM zones EPSG:32601-32660 and EPSG:32701-32760, and EPSG:" +
  SUPPORTED_EPSG.filter((c) => c !== 4326 && c !== 3857 && !utmZone(c)).join(", ") +
  ` (the list of ${CRS_DOCUMENTATION})`;

/** UTM zone and hemisphere of a WGS 84 / UTM EPSG code, or null. */
export function utmZone(epsg: number): { zone: number; south: boolean } | null {
  if (epsg >= 32601 && epsg <= 32660) return { zone: epsg - 32600, south: false };
  if (epsg >= 32701 && epsg <= 32760) return { zone: epsg - 32700, south: true };
  return null;
}

/** The epsg-index definition of a supported code, or null for any other code. */
export function epsgDefinition(epsg: number): EpsgDefinition | null {
  return Number.isInteger(epsg) ? (DEFINITIONS[String(epsg)] ?? null) : null;
}

/**
 * The epsg-index definition of a supported code.
 * @throws EngineError unsupported naming the code, the supported CRSs and where they are documented.
 */
export function requireEpsg(epsg: number, what = `CRS EPSG:${epsg}`): EpsgDefinition {
  const def = epsgDefinition(epsg);
  if (!def) throw unsupported(`${what} is not supported. Supported: ${SUPPORTED_CRS}.`);
  return def;
}
