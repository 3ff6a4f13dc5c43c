// Dates with scenes, from the catalog: a STAC search of the collection over the AOI (all pages, up to MAX_ITEMS),
// grouped by acquisition day with the lowest eo:cloud_cover of the day. The request builder shows them as a
// slider and a row of date buttons, filtered by the maximum cloud cover, and checks a time range before it runs.
import { json } from "./api.js";
import { cloudy } from "./form.js";

/** Most items a search follows its pages for. */
export const MAX_ITEMS = 1000;

/**
 * Catalog items of `collection` intersecting `aoi` ({bbox} or {geometry}, WGS84) in `datetime`
 * ("<from>/<to>", RFC 3339 or open ".."), following the `next` links (POST body merged) up to MAX_ITEMS; `origin`:
 * the address of the location hosting the collection ("": this one).
 */
export async function searchItems(collection, aoi, datetime, signal, origin = "") {
  let body = {
    collections: [collection],
    datetime,
    limit: 100,
    ...(aoi.geometry ? { intersects: aoi.geometry } : { bbox: aoi.bbox }),
  };
  const items = [];
  for (let url = `${origin}/api/v1/catalog/1.0.0/search`; url && items.length < MAX_ITEMS; ) {
    const page = await json(url, { method: "POST", body, signal });
    items.push(...page.features);
    const next = page.links?.find((l) => l.rel === "next");
    const nextUrl = next && new URL(next.href, origin || location.origin);
    [url, body] = next ? [origin ? nextUrl.href : nextUrl.pathname, { ...body, ...next.body }] : [null, body];
  }
  return items;
}

/** Cloud cover of an item in percent (null when the collection has none, e.g. Sentinel-1). */
export const cloudOf = (item) => item.properties?.["eo:cloud_cover"] ?? null;

/** Items passing the cloud filter: cover <= maxcc, or no cover at all (radar, BYOC without it). */
export const underClouds = (items, maxcc) => items.filter((i) => (cloudOf(i) ?? 0) <= maxcc);

/** [{date: "YYYY-MM-DD", cloud: lowest cover or null, count}] of `items`, sorted by date. */
export function datesOf(items) {
  const days = new Map();
  for (const i of items) {
    const date = i.properties.datetime.slice(0, 10),
      c = cloudOf(i);
    const d = days.get(date) ?? { date, cloud: null, count: 0 };
    d.count++;
    if (c !== null) d.cloud = d.cloud === null ? c : Math.min(d.cloud, c);
    days.set(date, d);
  }
  return [...days.values()].sort((a, b) => a.date.localeCompare(b.date));
}

/** The error of a run of state `st` whose range has no scenes: what was searched, and the `dates` (datesOf) with some. */
export function noScenes(st, dates) {
  const near = dates.filter((d) => (d.cloud ?? 0) <= st.maxcc).map((d) => d.date);
  const clouds = cloudy(st.collection) && st.maxcc < 100 ? ` with cloud cover <= ${st.maxcc} %` : "";
  return new Error(
    `No ${st.collection} scenes over the AOI between ${st.from} and ${st.to}${clouds}: nothing to render. ` +
      (near.length
        ? `Dates with scenes here: ${near.slice(-8).join(", ")} (pick one above the map).`
        : `There are none at any date here: use "Zoom to data".`),
  );
}

/** [{date, cloud, count}] of a catalog search of state `st`'s collection, AOI and range, under its cloud limit. */
export async function searchDays(st, signal) {
  const items = await searchItems(st.collection, st.aoi, `${st.from}T00:00:00Z/${st.to}T23:59:59Z`, signal);
  return datesOf(cloudy(st.collection) ? underClouds(items, st.maxcc) : items);
}
