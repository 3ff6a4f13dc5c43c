// The request builder's state: read from and written to the page's form (readForm / writeForm), turned into the
// Processing API request that Run sends and the snippets show (buildRequest), and back from such a request
// (stateOfBody: the request JSON view's import). State = {aoi: {bbox: [w, s, e, n]} | {geometry} (WGS84),
// collection, from, to ("YYYY-MM-DD"), maxcc (%), mosaicking, crs ("3857" | "4326" | "utm" | a UTM EPSG code),
// sizeMode ("map" | "size" | "res"), width, height (px), res (CRS units), format, preset, evalscript, processing,
// s1Filter (options.js)}.
import L from "leaflet";
import { bboxIn, crsUrl, epsgOf, geometryBbox, mapGeometry, project, supported, unproject, utmEpsg } from "./crs.js";
import { setText } from "./editor.js";
import { optionsOfData, readOptions, writeOptions } from "./options.js";

const $ = (id) => document.getElementById(id);
/** Largest output side of a synchronous Processing API request (src/pipeline/plan.ts MAX_SYNC_SIZE). */
export const MAX_SIDE = 2500;
/** Collections with eo:cloud_cover, where dataFilter.maxCloudCoverage applies. */
export const cloudy = (collection) => /^sentinel-2-/.test(collection);

/** WGS84 bbox [w, s, e, n] of an AOI. */
export const aoiBbox = (aoi) => (aoi.geometry ? geometryBbox(aoi.geometry) : aoi.bbox);

/** The form's state (`aoi` is kept by the page, not in a field). */
export function readForm(aoi, editor) {
  const num = (id) => Number($(id).value);
  return {
    aoi,
    collection: $("collection").value,
    from: $("from").value,
    to: $("to").value,
    maxcc: num("maxcc"),
    mosaicking: $("mosaicking").value,
    crs: $("crs").value,
    sizeMode: $("sizeMode").value,
    width: num("width"),
    height: num("height"),
    res: num("res"),
    format: $("format").value,
    preset: $("preset").value,
    evalscript: editor.state.doc.toString(),
    ...readOptions($("collection").value),
  };
}

/** Writes the bbox fields and the AOI kind of `aoi`. */
export function showAoi(aoi) {
  const r = (x) => Number(x.toFixed(6));
  [$("west").value, $("south").value, $("east").value, $("north").value] = aoiBbox(aoi).map(r);
  const n = aoi.geometry
    ? aoi.geometry.type === "Polygon"
      ? aoi.geometry.coordinates[0].length - 1
      : `${aoi.geometry.coordinates.length} parts`
    : 0;
  $("aoiKind").textContent = aoi.geometry ? `polygon (${n} vertices; the fields show its bbox)` : "box";
}

/** Writes state `st` into the form (not the AOI: the page sets it on the map); a UTM code gets its option. */
export function writeForm(st, editor) {
  if (st.crs && ![...$("crs").options].some((o) => o.value === st.crs))
    $("crs").append(new Option(`EPSG:${st.crs} (WGS 84 / UTM)`, st.crs));
  for (const k of [
    "collection",
    "from",
    "to",
    "maxcc",
    "mosaicking",
    "crs",
    "sizeMode",
    "width",
    "height",
    "res",
    "format",
  ])
    if (st[k] !== undefined) $(k).value = String(st[k]);
  $("maxccValue").textContent = `${$("maxcc").value} %`;
  $("preset").value = [...$("preset").options].some((o) => o.value === st.preset) ? st.preset : "";
  if (typeof st.evalscript === "string") setText(editor, st.evalscript);
  writeOptions(st);
}

/** EPSG code of the output CRS of `st` ("utm": the zone of the AOI's centre). */
export function epsgFor(st) {
  if (st.crs !== "utm") return Number(st.crs);
  const [w, s, e, n] = aoiBbox(st.aoi);
  return utmEpsg((w + e) / 2, (s + n) / 2);
}

/** Output size [width, height] of `st` whose bbox in the output CRS is `b`; `map`: the Leaflet map ("map" mode). */
function outputSize(st, b, map) {
  if (st.sizeMode === "size") return [st.width, st.height];
  const [bx, by] = [b[2] - b[0], b[3] - b[1]];
  if (st.sizeMode === "res") return [Math.max(1, Math.round(bx / st.res)), Math.max(1, Math.round(by / st.res))];
  const [w, s, e, n] = aoiBbox(st.aoi);
  const [a, c] = [map.latLngToContainerPoint([n, w]), map.latLngToContainerPoint([s, e])];
  let [px, py] = [c.x - a.x, c.y - a.y];
  if (epsgFor(st) !== 3857) py = (px * by) / bx; // the map's pixels are Mercator's: keep the output CRS's aspect
  const k = Math.min(1, MAX_SIDE / Math.max(px, py));
  return [Math.max(1, Math.round(px * k)), Math.max(1, Math.round(py * k))];
}

/**
 * The Processing API request of state `st` ({body}), with `plain` (the parameters of the sentinelhub-js snippet),
 * `bounds` (Leaflet LatLngBounds of the AOI, where the result is drawn) and `epsg`. `map` sizes the "map" mode.
 */
export function buildRequest(st, map) {
  const epsg = epsgFor(st);
  const bbox = bboxIn(epsg, aoiBbox(st.aoi));
  const geometry = st.aoi.geometry && mapGeometry(st.aoi.geometry, (p) => project(epsg, p));
  const [width, height] = outputSize(st, bbox, map);
  const from = `${st.from}T00:00:00Z`,
    to = `${st.to}T23:59:59Z`;
  const dataFilter = { timeRange: { from, to }, mosaickingOrder: st.mosaicking, ...st.s1Filter };
  if (cloudy(st.collection) && st.maxcc < 100) dataFilter.maxCloudCoverage = st.maxcc;
  const data = { type: st.collection, dataFilter };
  if (Object.keys(st.processing ?? {}).length) data.processing = st.processing;
  const body = {
    input: {
      bounds: { ...(geometry ? { geometry } : { bbox }), properties: { crs: crsUrl(epsg) } },
      data: [data],
    },
    output: { width, height, responses: [{ identifier: "default", format: { type: st.format } }] },
    evalscript: st.evalscript,
  };
  const [w, s, e, n] = aoiBbox(st.aoi);
  const plain = {
    collection: st.collection,
    epsg,
    bbox,
    geometry,
    from,
    to,
    width,
    height,
    format: st.format,
    mosaickingOrder: st.mosaicking,
    maxcc: st.maxcc,
    evalscript: st.evalscript,
    processing: st.processing ?? {},
    s1Filter: st.s1Filter ?? {},
  };
  return { body, plain, epsg, bounds: L.latLngBounds([s, w], [n, e]) };
}

/**
 * The state of a Processing API request `body` (the request JSON view's import); `offered` = the collection ids of
 * this location. Throws an Error naming the field for what this page cannot show (other CRSs, collections).
 */
export function stateOfBody(body, offered) {
  const b = body?.input?.bounds ?? {},
    d = body?.input?.data?.[0] ?? {},
    out = body?.output ?? {};
  const crs = b.properties?.crs ?? crsUrl(4326),
    epsg = epsgOf(crs);
  if (!epsg || !supported(epsg))
    throw new Error(`input.bounds.properties.crs "${crs}": this page handles EPSG:3857, EPSG:4326 and WGS 84 / UTM`);
  let aoi;
  if (b.geometry?.type === "Polygon" || b.geometry?.type === "MultiPolygon")
    aoi = { geometry: mapGeometry(b.geometry, (p) => unproject(epsg, p)) };
  else if (Array.isArray(b.bbox) && b.bbox.length === 4 && b.bbox.every(Number.isFinite)) {
    const [x0, y0, x1, y1] = b.bbox;
    const ll = [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
    ].map((p) => unproject(epsg, p));
    aoi = {
      bbox: [
        Math.min(...ll.map((p) => p[0])),
        Math.min(...ll.map((p) => p[1])),
        Math.max(...ll.map((p) => p[0])),
        Math.max(...ll.map((p) => p[1])),
      ],
    };
  } else throw new Error("input.bounds needs a bbox [minx, miny, maxx, maxy] or a Polygon / MultiPolygon geometry");
  if ((body?.input?.data?.length ?? 0) > 1)
    throw new Error(
      `input.data has ${body.input.data.length} sources: the builder shows one (data fusion: send it by curl)`,
    );
  if (!offered.includes(d.type))
    throw new Error(`input.data[0].type "${d.type}" is not a collection of this location (${offered.join(", ")})`);
  const tr = d.dataFilter?.timeRange ?? {};
  const day = (t, name) => {
    if (!/^\d{4}-\d\d-\d\d/.test(t ?? ""))
      throw new Error(`input.data[0].dataFilter.timeRange.${name} must be an RFC 3339 time`);
    return t.slice(0, 10);
  };
  const format = out.responses?.[0]?.format?.type ?? "image/png";
  if (!["image/png", "image/jpeg", "image/tiff"].includes(format))
    throw new Error(`output.responses[0].format.type "${format}": image/png, image/jpeg or image/tiff`);
  if (typeof body.evalscript !== "string")
    throw new Error("evalscript must be a string (evalscriptReference is not shown here)");
  const res = out.resx !== undefined;
  if (res && out.resy !== undefined && out.resy !== out.resx)
    throw new Error(`output.resx ${out.resx} and resy ${out.resy}: the builder uses one resolution for both`);
  if (!res && !(Number.isInteger(out.width) && Number.isInteger(out.height)))
    throw new Error("output needs width and height (px) or resx and resy (CRS units)");
  if ((out.responses?.length ?? 1) > 1)
    throw new Error(`output.responses has ${out.responses.length} entries: the builder requests one ("default")`);
  return {
    aoi,
    collection: d.type,
    from: day(tr.from, "from"),
    to: day(tr.to, "to"),
    maxcc: d.dataFilter?.maxCloudCoverage ?? 100,
    mosaicking: d.dataFilter?.mosaickingOrder ?? "mostRecent",
    crs: String(epsg),
    sizeMode: res ? "res" : "size",
    width: out.width,
    height: out.height,
    res: out.resx,
    format,
    preset: "",
    evalscript: body.evalscript,
    ...optionsOfData(d),
  };
}

/** Output pixels across the longer side of the AOI that a resolution picked for a new AOI aims at. */
export const AUTO_PIXELS = 512;

/**
 * The resolution for a new AOI of `st` (sizeMode "res", the user has not typed one): the smallest of 1, 2, 5 x 10^k
 * (output CRS units) giving at most AUTO_PIXELS pixels across the AOI's longer side. Depends on the AOI only, never
 * on the window. `map` as for buildRequest.
 */
export function autoResolution(st, map) {
  const b = buildRequest({ ...st, sizeMode: "res", res: 1 }, map).plain.bbox;
  const want = Math.max(b[2] - b[0], b[3] - b[1]) / AUTO_PIXELS;
  const k = 10 ** Math.floor(Math.log10(want));
  const step = [1, 2, 5, 10].find((f) => f * k >= want * (1 - 1e-9)) * k;
  return Number(step.toPrecision(3));
}
