/**
 * Sentinel-1 GRD from an upstream archive: Sentinel Hub's S1 processing options (docs.sentinel-hub.com/api/latest/
 * data/sentinel-1-grd/#processing-options: backCoeff, orthorectify, demInstance, speckleFilter), validated with
 * their exact names and values, and what each archive can serve of them.
 *
 * The GRD measurement GeoTIFFs (Earth Search `sentinel-1-grd` over the requester-pays `sentinel-s1-l1c` bucket, the
 * Planetary Computer's `sentinel-1-grd`) are in radar geometry, georeferenced by ground control points only. They are
 * warped with GDAL's default GCP polynomial (src/raster/gcp.ts): Sentinel Hub's `orthorectify: false`, its default.
 * There is no orthorectification (range-Doppler terrain correction) here, so `orthorectify: true` is a 400, and no
 * radiometric calibration (the items' calibration annotations are not read): without `backCoeff` the GRD amplitudes
 * are served as stored (DN, as the bundled samples); a `backCoeff` is served only where calibrated backscatter exists
 * upstream (the Planetary Computer's `sentinel-1-rtc`: GAMMA0_TERRAIN, orthorectified), else a 400 naming what is
 * supported. speckleFilter: NONE only.
 */
import { EngineError } from "../raster/errors";
import type { ArchiveKind } from "../storage/archives";

/** Sentinel Hub's S1 backCoeff values. */
export const BACK_COEFFS = ["BETA0", "SIGMA0_ELLIPSOID", "GAMMA0_ELLIPSOID", "GAMMA0_TERRAIN"];
/** Sentinel Hub's S1 processing.demInstance values (used only to orthorectify). */
export const S1_DEM_INSTANCES = ["MAPZEN", "COPERNICUS", "COPERNICUS_30", "COPERNICUS_90"];
/** Sentinel Hub's speckleFilter types. */
export const SPECKLE_FILTERS = ["NONE", "LEE"];

/** The S1 members of a data source's `processing` (others, e.g. upsampling, are not looked at). */
export interface S1Processing {
  backCoeff?: unknown;
  orthorectify?: unknown;
  demInstance?: unknown;
  speckleFilter?: unknown;
}

const bad = (message: string) => new EngineError("invalid-argument", message);

/** True when the archive serves `backCoeff` as calibrated backscatter (the Planetary Computer's RTC). */
function calibrated(archive: ArchiveKind, backCoeff: unknown): boolean {
  return archive === "planetary-computer" && backCoeff === "GAMMA0_TERRAIN";
}

/** What the archive supports, for messages. */
function supported(archive: ArchiveKind): string {
  const grd = "backCoeff omitted (the GRD amplitudes as stored, DN, georeferenced by their ground control points)";
  return archive === "planetary-computer"
    ? `${grd}, or backCoeff GAMMA0_TERRAIN (the Planetary Computer's sentinel-1-rtc, already orthorectified)`
    : `${grd} only: no calibrated backscatter is read from this archive`;
}

/** Checks the option values against Sentinel Hub's names. @throws EngineError invalid-argument. */
function checkNames(p: S1Processing): void {
  const { backCoeff, orthorectify, demInstance, speckleFilter } = p;
  if (backCoeff !== undefined && !BACK_COEFFS.includes(backCoeff as string))
    throw bad(`processing.backCoeff '${String(backCoeff)}' is unknown; use one of ${BACK_COEFFS.join(", ")}.`);
  if (orthorectify !== undefined && typeof orthorectify !== "boolean")
    throw bad(`processing.orthorectify must be true or false (got ${JSON.stringify(orthorectify)}).`);
  if (demInstance !== undefined && !S1_DEM_INSTANCES.includes(demInstance as string))
    throw bad(`processing.demInstance '${String(demInstance)}' is unknown; use one of ${S1_DEM_INSTANCES.join(", ")}.`);
  if (speckleFilter === undefined) return;
  const type = (speckleFilter as { type?: unknown } | null)?.type;
  if (!SPECKLE_FILTERS.includes(type as string))
    throw bad(
      `processing.speckleFilter.type must be one of ${SPECKLE_FILTERS.join(", ")} (got ${JSON.stringify(type)}).`,
    );
}

/**
 * The upstream collection of an S1 request: sentinel-1-rtc for GAMMA0_TERRAIN on the Planetary Computer, else
 * sentinel-1-grd. Checks the options first: unknown names, and what is never supported here (orthorectify true on
 * GRD, a LEE speckle filter), are a 400 whether or not scenes exist.
 * @throws EngineError invalid-argument naming what is supported.
 */
export function s1Upstream(archive: ArchiveKind, p: S1Processing): string {
  checkNames(p);
  if (calibrated(archive, p.backCoeff)) return "sentinel-1-rtc";
  if (p.orthorectify === true)
    throw bad(
      `processing.orthorectify true is not supported for sentinel-1-grd from the ${archive} archive (no orthorectification here: scenes are warped by their ground control points, as orthorectify false); supported: ${supported(archive)}.`,
    );
  if ((p.speckleFilter as { type?: unknown } | undefined)?.type === "LEE")
    throw bad(`processing.speckleFilter LEE is not supported from the ${archive} archive; supported: type NONE.`);
  return "sentinel-1-grd";
}

/**
 * Checks, once scenes are found, that the archive holds the backscatter asked for (so that a search finding nothing
 * answers "no data" as the local store does).
 * @throws EngineError invalid-argument for a backCoeff needing calibration the archive's items lack.
 */
export function s1Check(archive: ArchiveKind, p: S1Processing): void {
  if (p.backCoeff === undefined || calibrated(archive, p.backCoeff)) return;
  throw bad(
    `backCoeff '${String(p.backCoeff)}' is not available for sentinel-1-grd from the ${archive} archive (it needs radiometric calibration, which is not done here); supported: ${supported(archive)}.`,
  );
}

/**
 * Sentinel Hub's `s1:polarization` (its catalog's and the S1 dataFilter's `polarization`: DV, DH, SV or SH) derived
 * from the STAC `sar:polarizations` of an upstream item, which carries no such field; {} for other sets. The derived
 * value only fills a property the item lacks.
 */
export function s1Properties(upstream: Record<string, unknown>): Record<string, unknown> {
  const pols = upstream["sar:polarizations"];
  if (!Array.isArray(pols) || pols.length === 0) return {};
  const set = new Set(pols.map((p) => String(p).toUpperCase()));
  const [vv, hh] = [set.has("VV"), set.has("HH")];
  if (!(vv || hh) || set.size > 2) return {};
  return { "s1:polarization": `${set.size === 2 ? "D" : "S"}${vv ? "V" : "H"}` };
}
