// The request builder's collections: this location's catalog collections (it lists only those it hosts) and the
// bands of its BYOC and Zarr collections (read from their APIs in the background, off the first render's path),
// which decide which presets fit them and how those scale their values (presets.js fits, dnOf).
import { call } from "./api.js";
import { aoiBbox } from "./form.js";
import { fits } from "./presets.js";

/** The catalog's collections of this location by id (STAC collection JSON). */
const collections = new Map();
/** Bands of the BYOC and Zarr collections by collection id (their APIs' additionalData.bands: {name: format}). */
const bands = new Map();
let loaded = Promise.resolve();

/** The bands of BYOC / Zarr collection `id` ({name: {sampleFormat, bitDepth}}), or undefined. */
export const bandsOf = (id) => bands.get(id);
/** Resolves once the bands of the BYOC and Zarr collections are known. */
export const bandsReady = () => loaded;

/** True when preset `p` can run with `collection`. */
export const fitsNow = (p, collection) =>
  fits(p, collection, bands.has(collection) ? Object.keys(bands.get(collection)) : undefined);

/** True when `aoi` ({bbox} or {geometry}, WGS84) meets the spatial extent of `collection` (its catalog bbox). */
export function aoiMeets(collection, aoi) {
  const ext = collections.get(collection)?.extent?.spatial?.bbox?.[0];
  const [w, s, e, n] = aoiBbox(aoi);
  return !ext || (w <= ext[2] && e >= ext[0] && s <= ext[3] && n >= ext[1]);
}

/**
 * Fills `select` with this location's catalog collections (`selected` chosen when listed); starts reading the
 * bands of its BYOC and Zarr collections (bandsReady).
 */
export async function fillCollections(select, selected) {
  const list = await call("/api/v1/catalog/1.0.0/collections")
    .then((r) => r.json())
    .catch(() => ({ collections: [] }));
  for (const c of list.collections ?? []) {
    collections.set(c.id, c);
    const kind = /^(byoc|batch|zarr)-/.exec(c.id)?.[1];
    select.append(new Option(kind ? `${kind}: ${c.title ?? c.id}` : c.id, c.id, false, c.id === selected));
  }
  const api = { byoc: "/api/v1/byoc/collections/", zarr: "/api/v1/zarr/collections/" };
  loaded = Promise.all(
    (list.collections ?? []).map(async (c) => {
      const kind = /^(byoc|zarr)-/.exec(c.id)?.[1];
      const got =
        kind &&
        (await call(api[kind] + c.id.slice(kind.length + 1)).then(
          (r) => r.json(),
          () => null,
        ));
      if (got) bands.set(c.id, got.data?.additionalData?.bands ?? {});
    }),
  );
}
