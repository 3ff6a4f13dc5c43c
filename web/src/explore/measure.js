// Measures of the exploration view on the WGS84 ellipsoid with GeographicLib (geographiclib-geodesic: C. F. F.
// Karney, "Algorithms for geodesics", J. Geodesy 87, 2013): a line's length as the sum of its geodesic segments,
// a polygon's area and perimeter with its edges taken as geodesics. And the line tool (clicks add vertices, a
// double click or Enter ends the line, Escape drops it); polygons are drawn with ../map.js's polygonTool.
import L from "leaflet";
import { Geodesic } from "geographiclib-geodesic";

const geod = Geodesic.WGS84;

/** Length in metres of a line of WGS84 [lon, lat] positions (geodesic segments). */
export function lineLength(coords) {
  let s = 0;
  for (let i = 1; i < coords.length; i++)
    s += geod.Inverse(coords[i - 1][1], coords[i - 1][0], coords[i][1], coords[i][0]).s12;
  return s;
}

/** {area (m², positive), perimeter (m)} of a GeoJSON Polygon's outer ring (lon/lat; the closing vertex may repeat). */
export function polygonMeasure(polygon) {
  const ring = polygon.coordinates[0];
  const closed = ring.length > 1 && ring[0][0] === ring.at(-1)[0] && ring[0][1] === ring.at(-1)[1];
  const p = geod.Polygon(false);
  for (const [lon, lat] of closed ? ring.slice(0, -1) : ring) p.AddPoint(lat, lon);
  const r = p.Compute(false, true);
  return { area: Math.abs(r.area), perimeter: r.perimeter };
}

/** Text of a length: m below 10 km, else km. */
export const lengthText = (m) => (m < 10_000 ? `${m.toFixed(1)} m` : `${(m / 1000).toFixed(3)} km`);
/** Text of an area: m² below 1 km², else km² (and ha). */
export const areaText = (m2) =>
  m2 < 1e6 ? `${m2.toFixed(0)} m² (${(m2 / 1e4).toFixed(3)} ha)` : `${(m2 / 1e6).toFixed(4)} km²`;

/**
 * The line tool on `map`: clicks add vertices, a double click or Enter ends the line (2 vertices at least), Escape
 * drops it; `done(coords)` gets its WGS84 [lon, lat] positions, `moving(coords)` the line so far with the cursor.
 */
export function lineTool(map, done, moving = () => {}) {
  let verts = [],
    line = null;
  const draw = (extra) => {
    line?.remove();
    const pts = extra ? [...verts, extra] : verts;
    line = pts.length ? L.polyline(pts, { color: "#ff7800", weight: 2, dashArray: "4 4" }).addTo(map) : null;
    if (pts.length > 1) moving(pts.map((p) => [p.lng, p.lat]));
  };
  const finish = () => {
    const pts = verts.filter((p, i) => i === 0 || !p.equals(verts[i - 1], 1e-9));
    verts = [];
    draw();
    if (pts.length >= 2) done(pts.map((p) => [p.lng, p.lat]));
  };
  const handlers = {
    click: (e) => (verts.push(e.latlng), draw()),
    mousemove: (e) => verts.length && draw(e.latlng),
    dblclick: (e) => (L.DomEvent.stop(e), finish()),
    keydown: (e) =>
      e.originalEvent.key === "Enter" ? finish() : e.originalEvent.key === "Escape" && ((verts = []), draw()),
  };
  return {
    on: () => (map.doubleClickZoom.disable(), map.on(handlers)),
    off: () => (map.off(handlers), map.doubleClickZoom.enable(), (verts = []), draw()),
  };
}
