// The Catalog API page (#catalog), as Requests Builder's catalog tab: a STAC item search (POST
// /api/v1/catalog/1.0.0/search) of one collection over a bbox or polygon (drawn on the page's map, typed, or the
// request builder's AOI), a datetime range, a cloud cover limit (CQL2 JSON `eo:cloud_cover <= N`), a page size
// (limit) and fields (include / exclude); the items of each page in a table (id, date, cloud cover) with their
// footprints on the map, paging by the `next` link, the request JSON and its curl, sentinelhub-py and pystac-client
// equivalents (catalogsnippets.js).
import L from "leaflet";
import { json, showError, showState } from "./api.js";
import { bboxLayer, builderAoi, miniMap } from "./minimap.js";
import { boxTool, polygonTool } from "./map.js";
import { geometryBbox } from "./crs.js";
import { actionButton, buttons, fillTable } from "./table.js";
import { wireCopyButtons } from "./panels.js";
import { catalogCurl, catalogPy, catalogPystac } from "./catalogsnippets.js";

const $ = (id) => document.getElementById(id);
const SEARCH = "/api/v1/catalog/1.0.0/search";
const FOOTPRINT = { weight: 1.5, color: "#1565c0", fillOpacity: 0.05 };
const CHOSEN = { weight: 3, color: "#d81b60", fillOpacity: 0.2 };
const BOX = ["catWest", "catSouth", "catEast", "catNorth"];
let map,
  geometry = null, // a drawn polygon (WGS84), or null: the bbox of the fields
  paging = null; // {body, next (the next link or null), page (1-based), first (index of the page's first item)}

/** Marks the end of an asynchronous step on <body data-*> with a new number (the browser checks wait for it). */
const mark = (name) => (document.body.dataset[name] = String(Number(document.body.dataset[name] ?? 0) + 1));

/** Comma list of a text field as an array of its non-empty, trimmed entries. */
const list = (id) =>
  $(id)
    .value.split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The search body of the form: collections, bbox or intersects, datetime (whole days, UTC), limit, the cloud cover
 * filter in CQL2 JSON (when a limit is typed) and fields (when any are named).
 */
export function catalogBody() {
  const body = {
    collections: [$("catCollection").value],
    ...(geometry ? { intersects: geometry } : { bbox: BOX.map((k) => Number($(k).value)) }),
    datetime: `${$("catFrom").value}T00:00:00Z/${$("catTo").value}T23:59:59Z`,
    limit: Number($("catLimit").value) || 10,
  };
  if ($("catCloud").value !== "") {
    body.filter = { op: "<=", args: [{ property: "eo:cloud_cover" }, Number($("catCloud").value)] };
    body["filter-lang"] = "cql2-json";
  }
  const [include, exclude] = [list("catInclude"), list("catExclude")];
  if (include.length || exclude.length)
    body.fields = { ...(include.length ? { include } : {}), ...(exclude.length ? { exclude } : {}) };
  return body;
}

/** The request JSON and the snippets of the form's search. */
function changed() {
  const body = catalogBody();
  $("catJson").textContent = JSON.stringify(body, null, 2);
  $("catCurl").textContent = catalogCurl(location.origin, body);
  $("catPy").textContent = catalogPy(location.origin, body);
  $("catPystac").textContent = catalogPystac(location.origin, body);
}

/** AOI `b` ([w, s, e, n]) or polygon `poly` (WGS84): the fields (its bbox), the map, the request. */
function setAoi(b, poly = null) {
  geometry = poly;
  if (poly) b = geometryBbox(poly);
  BOX.forEach((k, i) => ($(k).value = String(+b[i].toFixed(6))));
  $("catAoiKind").textContent = poly ? "polygon (the fields show its bbox; the search uses the polygon)" : "box";
  map.show([aoiLayer()]);
  changed();
}
const aoiLayer = () =>
  geometry
    ? L.geoJSON(geometry, { style: { color: "#ff7800", weight: 2, fill: false } })
    : bboxLayer(
        BOX.map((k) => Number($(k).value)),
        { color: "#ff7800", fill: false },
      );

/** The Draw box / Draw polygon buttons of the page's map (one tool at a time; a second click stops it). */
function wireTools() {
  let dragged = null;
  const tools = new Map([
    [
      "catDrawBox",
      boxTool(
        map.map,
        (a) => (dragged?.remove(), (dragged = bboxLayer(a.bbox).addTo(map.map))),
        (a) => (dragged?.remove(), setAoi(a.bbox), release()),
      ),
    ],
    ["catDrawPolygon", polygonTool(map.map, (g) => (setAoi(null, g), release()))],
  ]);
  const release = () => tools.forEach((tool, id) => (tool.off(), $(id).setAttribute("aria-pressed", "false")));
  tools.forEach((tool, id) =>
    $(id).addEventListener("click", () => {
      const pressed = $(id).getAttribute("aria-pressed") === "true";
      release();
      if (!pressed) tool.on(), $(id).setAttribute("aria-pressed", "true");
    }),
  );
}

/** The page of items `page` (a FeatureCollection): table rows, footprints on the map, paging state. */
function showPage(page) {
  const items = page.features ?? [];
  const shapes = new Map();
  for (const f of items) if (f.geometry) shapes.set(f.id, L.geoJSON(f.geometry, { style: FOOTPRINT }));
  const choose = (f) => {
    shapes.forEach((l, id) => l.setStyle(id === f.id ? CHOSEN : FOOTPRINT));
    Object.assign($("catItem"), { hidden: false, textContent: JSON.stringify(f, null, 2) });
  };
  for (const [id, l] of shapes) l.on("click", () => choose(items.find((f) => f.id === id)));
  fillTable($("catTable"), items, (f) => [
    f.id,
    f.properties?.datetime ?? "",
    f.properties?.["eo:cloud_cover"] === undefined ? "" : `${f.properties["eo:cloud_cover"]} %`,
    buttons(
      actionButton(
        "Show",
        f.id,
        async () => choose(f),
        async () => {},
      ),
    ),
  ]);
  map.show([aoiLayer(), ...shapes.values()]);
  paging.next = page.links?.find((l) => l.rel === "next") ?? null;
  $("catNext").disabled = !paging.next;
  const last = paging.first + items.length - 1;
  showState(
    $("catState"),
    `page ${paging.page}: ${items.length ? `items ${paging.first}-${last}` : "no items"}${paging.next ? "; more on the next page" : "; last page"}` +
      (items.length && !shapes.size ? " (the chosen fields leave out geometry: no footprints)" : ""),
  );
  $("catItem").hidden = true;
}

/** Posts the search (`more`: the next page of the current one, its `next` body merged) and shows the page. */
async function search(more = false) {
  try {
    if (!more) paging = { body: catalogBody(), next: null, page: 0, first: 1, count: 0 };
    const next = more ? paging.next : null;
    const url = next ? new URL(next.href, location.origin).pathname : SEARCH;
    const body = next ? (next.merge === false ? next.body : { ...paging.body, ...next.body }) : paging.body;
    const page = await json(url, { method: next?.method ?? "POST", body });
    paging.first = more ? paging.first + paging.count : 1;
    paging.count = page.features?.length ?? 0;
    paging.page++;
    showPage(page);
  } catch (err) {
    showError($("catState"), err, $("catForm"));
  }
  mark("catalogSearched");
}

/** First show of the catalog page: collections, map, AOI (the request builder's when it was opened), events. */
export async function initCatalog() {
  map = miniMap($("catMap"));
  const list = await json("/api/v1/catalog/1.0.0/collections").catch(() => ({ collections: [] }));
  for (const c of list.collections ?? []) $("catCollection").append(new Option(c.id, c.id));
  const useBuilder = () => {
    const g = window.eoConsole.aoi?.()?.geometry;
    const b = builderAoi();
    if (g || b) setAoi(b, g ?? null);
    if (window.eoConsole.request) $("catCollection").value = window.eoConsole.request().body.input.data[0].type;
    changed();
  };
  setAoi([-11.55, 24.72, -11.3, 24.88]);
  useBuilder();
  wireTools();
  $("catUseBuilder").addEventListener("click", useBuilder);
  for (const k of BOX)
    $(k).addEventListener("change", () =>
      setAoi(
        BOX.map((id) => Number($(id).value)),
        null,
      ),
    );
  $("catForm").addEventListener("input", changed);
  $("catForm").addEventListener("change", changed);
  $("catForm").addEventListener("submit", (e) => (e.preventDefault(), search()));
  $("catNext").addEventListener("click", () => search(true));
  wireCopyButtons($("page-catalog"));
  document.body.dataset.catalogReady = "1";
}
