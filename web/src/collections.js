// The collections page: the account's BYOC collections with their tiles' ingestion states (counted per status)
// and Zarr collections with their ingestion state.
import { json, showError, showState } from "./api.js";
import { fillTable } from "./table.js";

const $ = (id) => document.getElementById(id);

/** "n STATUS, ..." of a BYOC collection's tiles (first 100). */
async function tileStates(id) {
  const tiles = await json(`/api/v1/byoc/collections/${encodeURIComponent(id)}/tiles?count=100`);
  const counts = {};
  for (const t of tiles.data ?? []) counts[t.status] = (counts[t.status] ?? 0) + 1;
  return Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(", ") || "no tiles";
}

/** Reloads the BYOC and Zarr tables. */
export async function refreshCollections() {
  try {
    const [byoc, zarr] = await Promise.all([json("/api/v1/byoc/collections?count=100"), json("/api/v1/zarr/collections?count=100")]);
    const states = await Promise.all((byoc.data ?? []).map((c) => tileStates(c.id).catch((e) => e.message)));
    fillTable($("byocTable"), byoc.data ?? [], (c) => [c.id, c.name, states[byoc.data.indexOf(c)]]);
    fillTable($("zarrTable"), zarr.data ?? [], (c) => [c.id, c.name, c.ingestionState ?? c.status ?? c.state ?? ""]);
    showState($("collState"), `${byoc.data?.length ?? 0} BYOC, ${zarr.data?.length ?? 0} Zarr collections`);
  } catch (err) {
    showError($("collState"), err);
  }
}
