// Output CRS of the request builder: EPSG:3857 (the map's, the result overlays it exactly), EPSG:4326 and the UTM
// zone of the AOI (WGS 84 / UTM, EPSG:326zz north, 327zz south), with proj4 for the coordinates.
import proj4 from "proj4";

/** The OGC URL of EPSG code `epsg`, as Sentinel Hub's Processing API takes it in input.bounds.properties.crs. */
export const crsUrl = (epsg) => `http://www.opengis.net/def/crs/EPSG/0/${epsg}`;

/** EPSG code of a CRS URL or "EPSG:nnnn" / CRS84 text; null when not recognised. */
export function epsgOf(text) {
  if (/CRS84$/.test(text ?? "")) return 4326;
  const m = /(?:EPSG\/0\/|EPSG:+)(\d+)$/.exec(text ?? "");
  return m ? Number(m[1]) : null;
}

/** EPSG code of the WGS 84 / UTM zone containing lon/lat (degrees). */
export const utmEpsg = (lon, lat) => (lat >= 0 ? 32600 : 32700) + Math.min(60, Math.floor((lon + 180) / 6) + 1);

/** True for the codes this page can project: 3857, 4326 and WGS 84 / UTM. */
export const supported = (epsg) =>
  epsg === 3857 || epsg === 4326 || (epsg > 32600 && epsg <= 32660) || (epsg > 32700 && epsg <= 32760);

/** proj4 converter between WGS84 lon/lat and `epsg` (defining the UTM zone on first use). */
function converter(epsg) {
  if (epsg > 32600 && !proj4.defs(`EPSG:${epsg}`)) {
    proj4.defs(
      `EPSG:${epsg}`,
      `+proj=utm +zone=${epsg % 100}${epsg > 32700 ? " +south" : ""} +datum=WGS84 +units=m +no_defs`,
    );
  }
  return proj4("EPSG:4326", `EPSG:${epsg}`);
}

/** [x, y] in `epsg` of a WGS84 [lon, lat]. */
export const project = (epsg, p) => (epsg === 4326 ? [...p] : converter(epsg).forward(p));

/** WGS84 [lon, lat] of [x, y] in `epsg`. */
export const unproject = (epsg, p) => (epsg === 4326 ? [...p] : converter(epsg).inverse(p));

/** Bbox [minx, miny, maxx, maxy] in `epsg` of a WGS84 bbox [w, s, e, n]: its edges densified (16 points each). */
export function bboxIn(epsg, [w, s, e, n]) {
  const pts = [];
  for (let i = 0; i <= 16; i++) {
    const [x, y] = [w + ((e - w) * i) / 16, s + ((n - s) * i) / 16];
    pts.push([x, s], [x, n], [w, y], [e, y]);
  }
  const xy = pts.map((p) => project(epsg, p));
  const xs = xy.map((p) => p[0]),
    ys = xy.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The GeoJSON Polygon/MultiPolygon `g` with every position mapped by `f`. */
export function mapGeometry(g, f) {
  const ring = (r) => r.map((p) => f(p));
  return g.type === "Polygon"
    ? { type: g.type, coordinates: g.coordinates.map(ring) }
    : { type: g.type, coordinates: g.coordinates.map((poly) => poly.map(ring)) };
}

/** WGS84 bbox [w, s, e, n] of a GeoJSON Polygon/MultiPolygon in lon/lat. */
export function geometryBbox(g) {
  const pts = (g.type === "Polygon" ? g.coordinates : g.coordinates.flat()).flat();
  const xs = pts.map((p) => p[0]),
    ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
