/**
 * Third-party data import (interface spec 4.9-4.13, deprecated; Sentinel Hub OpenAPI `/api/v1/dataimport/...`):
 * search and thumbnails, orders, subscriptions, their deliveries (files, archives, tiles) and import quotas. Every
 * answer carries the deprecation headers (./deprecation.ts); every record belongs to the token's account, another
 * account's is a 404.
 */
import type { Api } from "../http/router";
import { deliveryHandlers } from "./deliveryRoutes";
import { AREA, deprecated } from "./http";
import type { RecordKind } from "./model";
import { getQuota, listQuotas } from "./quotaRoutes";
import { recordHandlers } from "./records";
import { nativeSearchBody, recordBody, searchBody } from "./schema";
import { nativeSearch, search, thumbnail } from "./search";

export const PREFIX = "/api/v1/dataimport";

/** The routes of orders or subscriptions and of their deliveries. */
function registerRecords(api: Api, kind: RecordKind): void {
  const base = `${PREFIX}/${kind}s`;
  const one = `${base}/:${kind}Id`;
  const h = recordHandlers(kind);
  const d = deliveryHandlers(kind);
  const m = { ...AREA };
  api
    .on("POST", base, deprecated(h.create), {
      ...m,
      summary: `Create a ${kind} (not confirmed: a quote)`,
      body: recordBody,
      status: 200,
    })
    .on("GET", base, deprecated(h.list), {
      ...m,
      summary: `Query ${kind}s (status, collectionId, count, viewtoken, search, deleted)`,
    })
    .on("GET", one, deprecated(h.get), { ...m, summary: `Get a ${kind}` })
    .on("DELETE", one, deprecated(h.remove), { ...m, summary: `Delete a ${kind}`, status: 204 })
    .on("POST", `${one}/confirm`, deprecated(h.confirm), {
      ...m,
      summary: `Confirm a ${kind} (charges the quota, starts it)`,
      status: 200,
    });
  if (kind === "subscription")
    api.on("POST", `${one}/cancel`, deprecated(h.cancel), {
      ...m,
      summary: "Cancel a running subscription",
      status: 200,
    });
  const dl = `${one}/deliveries`;
  const dd = `${dl}/:deliveryId`;
  api
    .on("GET", dl, deprecated(d.list), { ...m, summary: `The ${kind}'s deliveries (status, count, viewtoken)` })
    .on("GET", dd, deprecated(d.get), { ...m, summary: "Get a delivery" })
    .on("GET", `${dd}/files`, deprecated(d.files), { ...m, summary: "List a delivery's files" })
    .on("GET", `${dd}/files/:file+`, deprecated(d.file), {
      ...m,
      summary: "A delivery file's bytes (Range; HEAD gives its size)",
      responseType: "application/octet-stream",
    })
    .on("POST", `${dd}/archive/create`, deprecated(d.createArchive), {
      ...m,
      summary: "Request a zip archive of the delivery",
      status: 200,
    })
    .on("GET", `${dd}/archive/status`, deprecated(d.archiveStatus), {
      ...m,
      summary: "Status of the delivery's archive",
    })
    .on("GET", `${dd}/archive`, deprecated(d.archive), {
      ...m,
      summary: "The delivery's archive (DONE only; Range; HEAD gives its size)",
      responseType: "application/zip",
    })
    .on("GET", `${dd}/tiles`, deprecated(d.tiles), { ...m, summary: "The delivery's BYOC tiles (last 3 months)" })
    .on("GET", `${dd}/tiles/:tileId`, deprecated(d.tile), { ...m, summary: "A delivery tile" });
}

/** Registers the area's routes. */
export function registerDataImport(api: Api): void {
  const p = PREFIX;
  api
    .on("POST", `${p}/search`, deprecated(search), {
      ...AREA,
      summary: "Search a provider's products (process-like query; count, viewtoken)",
      body: searchBody,
      status: 200,
    })
    .on("POST", `${p}/nativesearch`, deprecated(nativeSearch), {
      ...AREA,
      summary: "Search with the provider's own query (passed on unchanged)",
      body: nativeSearchBody,
      status: 200,
    })
    .on("GET", `${p}/collections/:collectionId/products/:productId/thumbnail`, deprecated(thumbnail), {
      ...AREA,
      summary: "A product's thumbnail",
      responseType: "image/png",
    })
    .on("GET", `${p}/accountquotas`, deprecated(listQuotas), { ...AREA, summary: "Import quotas of every collection" })
    .on("GET", `${p}/accountquotas/:collectionId`, deprecated(getQuota), {
      ...AREA,
      summary: "Import quota of one collection",
    });
  registerRecords(api, "order");
  registerRecords(api, "subscription");
}
