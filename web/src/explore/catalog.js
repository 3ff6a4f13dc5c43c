// The collections and places of the exploration view: the built-in collections with their layer sets
// (layers.js), the account's BYOC collections (their bands' layer sets; the location hosting each, from the
// Catalog), and the places a search finds: the data's sample places (../places.js), the archive's tiles, the BYOC
// collections' extents, "lat, lon" and bboxes.
import { json } from "../api.js";
import { findPlace, PLACES } from "../places.js";
import { LAYER_SETS, ownLayers } from "./layers.js";

/** Places of the built-in collections the sample places of ../places.js do not cover (the archive's items). */
const MORE_PLACES = [
  { name: "Amazon, Landsat path 001 row 062 (Landsat 8 L2, 2020-10-31)", bbox: [-66.191, -3.939, -64.186, -1.851] },
  { name: "Gulf of Guinea, Copernicus DEM tile N00 E006 (Sao Tome)", bbox: [6.4, 0.0, 6.8, 0.45] },
];
const LABELS = {
  "sentinel-2-l2a": "Sentinel-2 L2A",
  "sentinel-2-l1c": "Sentinel-2 L1C",
  "sentinel-1-grd": "Sentinel-1 GRD",
  "landsat-ot-l2": "Landsat 8-9 L2",
  dem: "Copernicus DEM",
};

/** The collections of the view: id -> {id, title, layers, bandsInfo?, origin? (address of the hosting location)}. */
export const collections = new Map(
  Object.entries(LAYER_SETS).map(([id, layers]) => [id, { id, title: LABELS[id], layers }]),
);
/** The places a search finds by name: [{name, bbox: [w, s, e, n]}]. */
export const places = [...PLACES, ...MORE_PLACES];

/**
 * Adds the account's BYOC collections to `collections` (their bands' layer sets) and to `places` (their catalog
 * extents).
 */
export async function addOwnCollections() {
  const list = await json("/api/v1/byoc/collections").catch(() => null);
  await Promise.all(
    (list?.data ?? []).map(async (c) => {
      const layers = ownLayers(c.additionalData?.bands);
      const id = `byoc-${c.id}`;
      if (layers.length)
        collections.set(id, { id, title: `${c.name} (BYOC)`, layers, bandsInfo: c.additionalData?.bands });
      const ext = await catalogOf(id, collections.get(id));
      const bbox = ext?.extent?.spatial?.bbox?.[0];
      if (bbox?.length === 4) places.push({ name: `${c.name} (your BYOC collection)`, bbox });
    }),
  );
}

/**
 * The STAC collection `id` from the Catalog of the location hosting it (null when none answers): a collection of
 * another location is answered 404 with that location in `errors.location` (docs/configuration-and-locations.md),
 * whose address is then kept in `entry.origin` for every request of the collection.
 */
async function catalogOf(id, entry) {
  const path = `/api/v1/catalog/1.0.0/collections/${id}`;
  try {
    return await json(path);
  } catch (e) {
    const url = e.errors?.location?.url;
    if (e.status !== 404 || !url || !entry) return null;
    entry.origin = url;
    return json(`${url}${path}`).catch(() => null);
  }
}

/** A place of `list` whose name holds every word of `text`. */
const findIn = (list, text) => {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length ? list.find((p) => words.every((w) => p.name.toLowerCase().includes(w))) : null;
};

/** The place of a search text: "lat, lon" or a bbox (../places.js), else a place by its name or its words; or null. */
export const searchPlace = (text) => findPlace(text) ?? places.find((p) => p.name === text) ?? findIn(places, text);
