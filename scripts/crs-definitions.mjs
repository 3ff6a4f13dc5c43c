// `npm run crs:definitions`: writes src/raster/crs/definitions.json, the proj4 definitions, names and areas of use
// of the CRSs EO Edge accepts, taken from the epsg-index package (node_modules/epsg-index/s/<code>.json, built from
// the EPSG registry through PROJ). Only these entries are bundled into the Worker (the full index is ~40 MB).
//
// The list is Sentinel Hub's "CRS support" page of the Processing API
// (docs.sentinel-hub.com/api/latest/api/process/crs/): WGS 84, WGS 84 / Pseudo-Mercator, the WGS 84 / UTM zones
// north (32601-32660) and south (32701-32760), and the "Others" below.
//
// Datum shifts: epsg-index's +towgs84 is not always usable by proj4js (28992 carries the Molodensky-Badekas
// parameters of "Amersfoort to WGS 84 (1)" as if they were a Helmert, ~170 m off; 3844 has coordinate-frame
// rotations with position-vector signs, ~39 m) nor PROJ's preferred choice (3912). So for every definition with a
// +towgs84, the generator asks the local PROJ (`projinfo` of Debian's proj-bin, with PROJ's EPSG database) for the
// operations from the CRS to EPSG:4326, sorted as PROJ sorts them for that area (--spatial-test intersects, the
// test proj_create_crs_to_crs uses), and takes the first one that is not a ballpark and needs no grid (Helmert
// family only: proj4js's towgs84 cannot express a grid; PROJ itself skips operations whose grid is not installed,
// and none of these grids is in Debian's proj-data). Its parameters (PROJJSON, EPSG methods 9603 / 9606 / 9607)
// become +towgs84 as proj4js expects it: position-vector convention, translations in metres, rotations in
// arc-seconds, scale difference in ppm. The operation (EPSG code, name, accuracy, PROJ version) and epsg-index's
// replaced value are recorded per code in the JSON (`datumShift`).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const OTHERS = [
  2154, 2180, 2193, 3003, 3004, 3005, 3006, 3031, 3035, 3161, 3346, 3413, 3416, 3578, 3580, 3765, 3794, 3844, 3912,
  3995, 4026, 5514, 28992, 32184,
];
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const CODES = [4326, 3857, ...range(32601, 32660), ...range(32701, 32760), ...OTHERS].sort((a, b) => a - b);

/** EPSG parameter codes of the Helmert family, in towgs84 order: tX, tY, tZ, rX, rY, rZ, dS. */
const HELMERT_PARAMETERS = [8605, 8606, 8607, 8608, 8609, 8610, 8611];
/** EPSG methods a towgs84 can carry: geocentric translations, position vector, coordinate frame (geog2D domain). */
const METHODS = { 9603: "translations", 9606: "position_vector", 9607: "coordinate_frame" };
const ARCSECOND = Math.PI / 648000; // radians
const TOWGS84 = /\+towgs84=([^ ]+)/;

/** Runs projinfo with `args`; returns stdout and stderr (where projinfo prints its version when called bare). */
function projinfo(args) {
  const run = spawnSync("projinfo", args, { encoding: "utf8", maxBuffer: 64 << 20 });
  if (run.error) throw new Error(`projinfo (Debian package proj-bin) is needed: ${run.error.message}`);
  return run.stdout + run.stderr;
}

/** "PROJ 9.1.1": the version of the PROJ that chose the datum shifts. */
function projVersion() {
  const match = /Rel\. ([0-9.]+)/.exec(projinfo([]));
  if (!match) throw new Error("cannot read PROJ's version from projinfo");
  return `PROJ ${match[1]}`;
}

/** PROJ's candidate operations EPSG:`code` -> EPSG:4326 as PROJJSON objects, in PROJ's order of preference. */
function operationsToWgs84(code) {
  const text = projinfo([
    "-s",
    `EPSG:${code}`,
    "-t",
    "EPSG:4326",
    "-o",
    "PROJJSON",
    "--spatial-test",
    "intersects",
    "--grid-check",
    "none",
  ]);
  return text
    .split(/^Operation No\. \d+:$/m)
    .slice(1)
    .map((block) => JSON.parse(block.slice(block.indexOf("{"), block.lastIndexOf("}") + 1)));
}

/** The datum transformation step of a (concatenated) operation, or null if it has none (a pure conversion). */
function transformationStep(op) {
  const steps = op.type === "ConcatenatedOperation" ? op.steps : [op];
  const found = steps.filter((s) => s.type === "Transformation");
  if (found.length > 1) throw new Error(`${op.name}: more than one transformation step`);
  return found[0] ?? null;
}

/** A parameter's value in SI (metre, radian, unity) from its PROJJSON unit (a name or {conversion_factor}). */
function siValue(p) {
  if (p.unit === "metre" || p.unit === "unity") return p.value;
  if (typeof p.unit?.conversion_factor === "number") return p.value * p.unit.conversion_factor;
  throw new Error(`unit of ${p.name} not understood: ${JSON.stringify(p.unit)}`);
}

/**
 * proj4js's towgs84 [tX, tY, tZ (m), rX, rY, rZ (arc-seconds), dS (ppm)] of a Helmert-family transformation step
 * (PROJJSON), or null when the step is a ballpark, needs a grid or is another method. Position vector is proj4js's
 * convention; coordinate frame rotations are the same rotations with the opposite sign (EPSG Guidance Note 7-2,
 * methods 9606 / 9607).
 */
function towgs84Of(step) {
  const method = METHODS[step.method?.id?.code];
  if (!method || /ballpark/i.test(step.name) || step.id?.authority !== "EPSG") return null;
  const si = HELMERT_PARAMETERS.map((code) => {
    const p = step.parameters.find((q) => q.id?.code === code);
    return p ? siValue(p) : 0;
  });
  const sign = method === "coordinate_frame" ? -1 : 1;
  const values = [si[0], si[1], si[2], ...si.slice(3, 6).map((r) => (sign * r) / ARCSECOND), si[6] * 1e6];
  return values.map((v) => Number(v.toPrecision(12)));
}

/**
 * PROJ's preferred grid-less Helmert from EPSG:`code`'s datum to WGS 84: {towgs84, operation, name, accuracy, source}.
 * @throws when PROJ offers no such operation (the definition would need a grid or another method).
 */
function preferredShift(code, proj) {
  for (const op of operationsToWgs84(code)) {
    const step = transformationStep(op);
    if (!step)
      return {
        towgs84: [0, 0, 0, 0, 0, 0, 0],
        operation: null,
        name: "no datum transformation",
        accuracy: null,
        source: proj,
      };
    const towgs84 = towgs84Of(step);
    if (towgs84) {
      const operation = `${step.id.authority}:${step.id.code}`;
      return { towgs84, operation, name: step.name, accuracy: Number(step.accuracy ?? op.accuracy), source: proj };
    }
  }
  throw new Error(`EPSG:${code}: PROJ offers no grid-less Helmert to WGS 84`);
}

/** The CRS entry of EPSG:`code`: epsg-index's definition, its +towgs84 replaced by PROJ's preferred one. */
function entryOf(root, code, proj) {
  const entry = JSON.parse(readFileSync(join(root, `node_modules/epsg-index/s/${code}.json`), "utf8"));
  if (!entry.proj4) throw new Error(`epsg-index has no proj4 definition for EPSG:${code}`);
  // epsg-index's bbox is the EPSG area of use as [north, west, south, east] in degrees.
  const [north, west, south, east] = entry.bbox;
  const out = { name: entry.name, kind: entry.kind, proj4: entry.proj4, area: [west, south, east, north] };
  const epsgIndex = TOWGS84.exec(entry.proj4)?.[1];
  if (epsgIndex === undefined) return out;
  const { towgs84, ...shift } = preferredShift(code, proj);
  out.proj4 = entry.proj4.replace(TOWGS84, `+towgs84=${towgs84.join(",")}`);
  out.datumShift = { ...shift, epsgIndex };
  return out;
}

const root = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "node_modules/epsg-index/package.json"), "utf8"));
const proj = projVersion();
const crs = Object.fromEntries(CODES.map((code) => [code, entryOf(root, code, proj)]));
const out = {
  source: `${pkg.name}@${pkg.version}, +towgs84 from ${proj}'s preferred grid-less transformation to WGS 84 (generated by scripts/crs-definitions.mjs; do not edit)`,
  documentation: "https://docs.sentinel-hub.com/api/latest/api/process/crs/",
  crs,
};
writeFileSync(join(root, "src/raster/crs/definitions.json"), JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${CODES.length} CRS definitions from ${pkg.name}@${pkg.version} and ${proj}`);
