// The collections page: every collection this location's catalog lists (built-in, BYOC, Zarr, batch: kind from
// the id's prefix) with its bands (STAC eo:bands, else /api/v1/metadata/collection/{id}) and extents, shown on a
// map and opened in the request builder (#request?collection=<id>); the account's BYOC collections (create, add a
// tile to ingest, tile states with each failed tile's cause, delete a tile or a collection after a confirmation)
// and Zarr collections (register a store, ingestion state). A new collection's bucket is listed first through the
// S3 endpoint (./s3.js): a bucket that does not exist is refused, an empty one is accepted with a warning.
import { json, showError, showState } from "./api.js";
import { actionButton, buttons, fillTable } from "./table.js";
import { bboxLayer, miniMap } from "./minimap.js";
import { listObjects } from "./s3.js";

const $ = (id) => document.getElementById(id);
const BYOC = "/api/v1/byoc/collections";
const ZARR = "/api/v1/zarr/collections";
let map = null,
  wired = false;

/** The kind of a collection id: byoc-, zarr-, batch- prefixes, else built-in. */
const kindOf = (id) =>
  ({ byoc: "BYOC", zarr: "Zarr", batch: "batch" })[/^(byoc|zarr|batch)-/.exec(id)?.[1]] ?? "built-in";

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
  const a = Object.assign(document.createElement("a"), {
    href: `#request?collection=${encodeURIComponent(id)}`,
    textContent: "Open in the builder",
  });
  a.setAttribute("aria-label", `Open ${id} in the request builder`);
  return a;
}

/** The tiles of BYOC collection `id` (first 100; OpenAPI BYOCTile, failures in additionalData.failedIngestionCause). */
const tilesOf = async (id) => (await json(`${BYOC}/${encodeURIComponent(id)}/tiles?count=100`)).data ?? [];

/** "n STATUS, ..." of a collection's tiles, then each failed tile's path and cause (the API's words). */
function tileStates(tiles) {
  const counts = {};
  for (const t of tiles) counts[t.status] = (counts[t.status] ?? 0) + 1;
  const failed = tiles
    .filter((t) => t.status === "FAILED")
    .map((t) => `${t.path}: ${t.additionalData?.failedIngestionCause ?? "no cause given"}`);
  return [
    Object.entries(counts)
      .map(([s, n]) => `${n} ${s}`)
      .join(", ") || "no tiles",
    ...failed,
  ].join("; ");
}

/** Asks before deleting `what`; true when confirmed. */
const confirmed = (what) => window.confirm(`Delete ${what}? This cannot be undone.`);

/** The tiles of collection `c` in #tileTable: path, sensing time, status, failure cause and a Delete button. */
async function showTiles(c) {
  const tiles = await tilesOf(c.id);
  $("tileTable").hidden = false;
  $("tileTable").dataset.collection = c.id;
  $("tileCaption").textContent = `Tiles of ${c.name} (${c.id}): ${tiles.length}`;
  fillTable($("tileTable"), tiles, (t) => [
    t.path,
    t.sensingTime ?? "",
    t.status,
    t.additionalData?.failedIngestionCause ?? "",
    actionButton(
      "Delete tile",
      t.id,
      async () =>
        confirmed(`tile ${t.path}`) &&
        (await json(`${BYOC}/${encodeURIComponent(c.id)}/tiles/${encodeURIComponent(t.id)}`, { method: "DELETE" })),
      async () => (await showTiles(c), await refreshCollections()),
    ),
  ]);
}

/**
 * Refuses a bucket the S3 endpoint does not know (throws with its NoSuchBucket message); resolves to a warning
 * when the bucket has no objects under `prefix` (nothing to ingest yet), else to "".
 */
async function checkBucket(bucket, prefix = "") {
  const objects = await listObjects(bucket, prefix, 1).catch((err) => {
    if (/NoSuchBucket/.test(err.message))
      throw new Error(
        `Bucket "${bucket}" does not exist (${err.message}): create it and upload the files first (S3 endpoint, docs/console.md).`,
      );
    return null; // not listable with a key of this account (e.g. another account's bucket): the API decides
  });
  return objects && !objects.length
    ? `; warning: s3://${bucket}/${prefix} holds no objects (the bucket does not exist or is empty): upload the files before adding tiles`
    : "";
}

/** Reloads the catalog, BYOC and Zarr tables. */
export async function refreshCollections() {
  if (!wired) wire();
  try {
    const [catalog, byoc, zarr] = await Promise.all([
      json("/api/v1/catalog/1.0.0/collections"),
      json(`${BYOC}?count=100`),
      json(`${ZARR}?count=100`),
    ]);
    const bands = await Promise.all(catalog.collections.map(bandsOf));
    const showExtent = (c) =>
      actionButton(
        "Map",
        c.id,
        async () => map.show([bboxLayer(c.extent.spatial.bbox[0])]),
        async () => {},
      );
    fillTable($("catalogTable"), catalog.collections, (c) => {
      const names = bands[catalog.collections.indexOf(c)];
      return [
        c.id,
        kindOf(c.id),
        c.title ?? "",
        `${names.length}: ${names.join(", ")}`,
        extentText(c),
        buttons(showExtent(c), openLink(c.id)),
      ];
    });
    const states = await Promise.all((byoc.data ?? []).map((c) => tilesOf(c.id).then(tileStates, (e) => e.message)));
    const remove = (path, c) =>
      actionButton(
        "Delete",
        c.id,
        async () =>
          confirmed(`collection ${c.name} (${c.id}) and its tiles`) &&
          (await json(`${path}/${encodeURIComponent(c.id)}`, { method: "DELETE" })),
        refreshCollections,
      );
    fillTable($("byocTable"), byoc.data ?? [], (c) => [
      c.id,
      c.name,
      c.s3Bucket ?? "",
      states[byoc.data.indexOf(c)],
      buttons(
        actionButton(
          "Tiles",
          c.id,
          () => showTiles(c),
          async () => {},
        ),
        remove(BYOC, c),
      ),
    ]);
    if (!(byoc.data ?? []).some((c) => c.id === $("tileTable").dataset.collection)) $("tileTable").hidden = true; // deleted
    const chosen = $("tileCollection").value; // a refresh keeps the collection "Add tile" targets
    $("tileCollection").replaceChildren(
      ...(byoc.data ?? []).map((c) => new Option(c.name, c.id, false, c.id === chosen)),
    );
    fillTable($("zarrTable"), zarr.data ?? [], (c) => [
      c.id,
      c.name,
      `s3://${c.s3Bucket}/${c.path}`,
      c.status ?? "",
      buttons(remove(ZARR, c)),
    ]);
    map.show(catalog.collections.map((c) => bboxLayer(c.extent.spatial.bbox[0], { weight: 1 })));
    showState(
      $("collState"),
      `${catalog.collections.length} collections here; ${byoc.data?.length ?? 0} BYOC, ${zarr.data?.length ?? 0} Zarr of the account`,
    );
  } catch (err) {
    showError($("collState"), err);
  }
}

/**
 * Sends a create form's body to `path` (after `precheck()`, which resolves to a warning or throws); shows the new
 * id and the warning in `state` (or the error at the fields) and reloads.
 */
async function submit(form, state, path, body, precheck = async () => "") {
  try {
    const warning = await precheck();
    const created = await json(path, { method: "POST", body });
    showState(state, `created ${created.id ?? created.data?.id ?? ""}${warning}`);
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
  $("byocForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const bucket = $("byocBucket").value.trim();
    submit($("byocForm"), $("byocState"), BYOC, { name: $("byocName").value.trim(), s3Bucket: bucket }, () =>
      checkBucket(bucket),
    );
  });
  $("tileForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const time = $("tileTime").value.trim();
    submit($("tileForm"), $("tileState"), `${BYOC}/${encodeURIComponent($("tileCollection").value)}/tiles`, {
      path: $("tilePath").value.trim(),
      ...(time ? { sensingTime: time } : {}),
    });
  });
  $("zarrForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const [bucket, path] = [$("zarrBucket").value.trim(), $("zarrPath").value.trim()];
    submit(
      $("zarrForm"),
      $("zarrState"),
      ZARR,
      { name: $("zarrName").value.trim(), s3Bucket: bucket, path, crs: $("zarrCrs").value.trim() },
      () => checkBucket(bucket, path),
    );
  });
}
