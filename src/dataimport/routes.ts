/**
 * Third-party data import (interface spec 4.9-4.13, deprecated; Sentinel Hub OpenAPI `/api/v1/dataimport/...`):
 * search and thumbnails, orders, subscriptions, their deliveries (files, archives, tiles) and import quotas. Every
 * answer carries the deprecation headers (./deprecation.ts); every record belongs to the token's account, another
 * account's is a 404.
 */
import type { Api } from "../http/router";
import { AREA, deprecated } from "./http";
import { nativeSearchBody, searchBody } from "./schema";
import { nativeSearch, search, thumbnail } from "./search";

export const PREFIX = "/api/v1/dataimport";

/** Registers the area's routes. */
export function registerDataImport(api: Api): void {
  const p = PREFIX;
  api
    .on("POST", `${p}/search`, deprecated(search), { ...AREA, summary: "Search a provider's products (process-like query; count, viewtoken)", body: searchBody, status: 200 })
    .on("POST", `${p}/nativesearch`, deprecated(nativeSearch), { ...AREA, summary: "Search with the provider's own query (passed on unchanged)", body: nativeSearchBody, status: 200 })
    .on("GET", `${p}/collections/:collectionId/products/:productId/thumbnail`, deprecated(thumbnail), { ...AREA, summary: "A product's thumbnail", responseType: "image/png" });
}
