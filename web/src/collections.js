// The collections page: every collection this location's catalog lists (built-in, BYOC, Zarr, batch: kind from
// the id's prefix) with its bands (STAC eo:bands, else /api/v1/metadata/collection/{id}) and extents, shown on a
// map and opened in the request builder (#request?collection=<id>); the account's BYOC collections (create, add a
// tile to ingest, tile states) and Zarr collections (register a store, ingestion state).
import { json, showError, showState } from "./api.js";
import { actionButton, buttons, fillTable } from "./table.js";
import { bboxLayer, miniMap } from "./minimap.js";

const $ = (id) => document.getElementById(id);
const BYOC = "/api/v1/byoc/collections";
const ZARR = "/api/v1/zarr/collections";
let map = null, wired = false;

/** The kind of a collection id: byoc-, zarr-, batch- prefixes, else built-in. */
const kindOf = (id) => ({ byoc: "BYOC", zarr: "Zarr", batch: "batch" })[/^(byoc|zarr|batch)-/.exec(id)?.[1]] ?? "built-in";

/** Band names of a STAC collection (eo:bands, or SAR polarizations), else of its metadata (custom collections). */
async function bandsOf(c) {
  const stac = c.summaries?.["eo:bands"]?.map((b) => b.name) ?? c.summaries?.["sar:polarizations"]; // optical, SAR
  if (stac?.length) return stac;
  const meta = await json(`/api/v1/metadata/collection/${encodeURIComponent(c.id)}`).catch(() => null);
  return meta?.bands?.map((b) => `${b.name} (${b.sampleType})`) ?? [];
}

/** "w, s, e, n; from .. to" of a STAC collection's extent. */
function extentText(c) {
  const b = c.extent?.spatial?.bbox?.[0];
  const t = c.extent?.temporal?.interval?.[0];
  return `${b ? b.map((v) => v.toFixed(3)).join(", ") : "?"}; ${t ? `${(t[0] ?? "..").slice(0, 10)} .. ${(t[1] ?? "..").slice(0, 10)}` : ""}`;
}

/** The link that opens the request builder with collection `id` (the builder reads #request?collection=<id>). */
function openLink(id) {
  const a = Object.assign(document.createElement("a"), { href: `#request?collection=${encodeURIComponent(id)}`, textContent: "Open in the builder" });
  a.setAttribute("aria-label", `Open ${id} in the request builder`);
  return a;
}

/** "n STATUS, ..." of a BYOC collection's tiles (first 100). */
async function tileStates(id) {
  const tiles = await json(`${BYOC}/${encodeURIComponent(id)}/tiles?count=100`);
  const counts = {};
  for (const t of tiles.data ?? []) counts[t.status] = (counts[t.status] ?? 0) + 1;
  return Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(", ") || "no tiles";
}

/** Reloads the catalog, BYOC and Zarr tables. */
export async function refreshCollections() {
  if (!wired) wire();
  try {
    const [catalog, byoc, zarr] = await Promise.all([json("/api/v1/catalog/1.0.0/collections"), json(`${BYOC}?count=100`), json(`${ZARR}?count=100`)]);
    const bands = await Promise.all(catalog.collections.map(bandsOf));
    const showExtent = (c) => actionButton("Map", c.id, async () => map.show([bboxLayer(c.extent.spatial.bbox[0])]), async () => {});
    fillTable($("catalogTable"), catalog.collections, (c) => {
      const names = bands[catalog.collections.indexOf(c)];
      return [c.id, kindOf(c.id), c.title ?? "", `${names.length}: ${names.join(", ")}`, extentText(c), buttons(showExtent(c), openLink(c.id))];
    });
    const states = await Promise.all((byoc.data ?? []).map((c) => tileStates(c.id).catch((e) => e.message)));
    fillTable($("byocTable"), byoc.data ?? [], (c) => [c.id, c.name, c.s3Bucket ?? "", states[byoc.data.indexOf(c)]]);
    $("tileCollection").replaceChildren(...(byoc.data ?? []).map((c) => new Option(c.name, c.id)));
    fillTable($("zarrTable"), zarr.data ?? [], (c) => [c.id, c.name, `s3://${c.s3Bucket}/${c.path}`, c.status ?? ""]);
    map.show(catalog.collections.map((c) => bboxLayer(c.extent.spatial.bbox[0], { weight: 1 })));
    showState($("collState"), `${catalog.collections.length} collections here; ${byoc.data?.length ?? 0} BYOC, ${zarr.data?.length ?? 0} Zarr of the account`);
  } catch (err) {
    showError($("collState"), err);
  }
}

/** Sends a create form's body to `path`; shows the new id in `state` (or the error at the fields) and reloads. */
async function submit(form, state, path, body) {
  try {
    const created = await json(path, { method: "POST", body });
    showState(state, `created ${created.id ?? created.data?.id ?? ""}`);
    await refreshCollections();
  } catch (err) {
    showError(state, err, form);
  }
}

/** The forms' events and the map (first show). */
function wire() {
  wired = true;
  map = miniMap($("collMap"));
  $("collRefresh").addEventListener("click", () => refreshCollections());
  $("byocForm").addEventListener("submit", (e) => (e.preventDefault(), submit($("byocForm"), $("byocState"), BYOC, { name: $("byocName").value.trim(), s3Bucket: $("byocBucket").value.trim() })));
  $("tileForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const time = $("tileTime").value.trim();
    submit($("tileForm"), $("tileState"), `${BYOC}/${encodeURIComponent($("tileCollection").value)}/tiles`, { path: $("tilePath").value.trim(), ...(time ? { sensingTime: time } : {}) });
  });
  $("zarrForm").addEventListener("submit", (e) => (e.preventDefault(), submit($("zarrForm"), $("zarrState"), ZARR, { name: $("zarrName").value.trim(), s3Bucket: $("zarrBucket").value.trim(), path: $("zarrPath").value.trim(), crs: $("zarrCrs").value.trim() })));
}
