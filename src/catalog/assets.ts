/**
 * Asset download: streams an item's file from the DATA bucket (R2), with single-range HTTP Range requests (206,
 * 416), ETag / If-None-Match (304) and Last-Modified. The `data` asset of an item without one is a JSON listing
 * of the item's folder.
 */
import type { Env } from "../env";
import { notFound } from "../http/errors";
import { parseRange } from "../http/range";
import { json } from "../http/base";
import type { StacItem } from "../storage/stac";
import { assetFolder, isUrl, type CatalogUrls } from "./render";

/** Streams the R2 object `key`, honouring Range and If-None-Match. */
async function streamObject(
  request: Request,
  env: Pick<Env, "DATA">,
  key: string,
  type: string | undefined,
): Promise<Response> {
  const head = await env.DATA.head(key);
  if (!head) throw notFound(`The file of this asset is missing from storage (${key}).`);
  const headers: Record<string, string> = {
    "accept-ranges": "bytes",
    etag: head.httpEtag,
    "last-modified": head.uploaded.toUTCString(),
    "content-type": type ?? head.httpMetadata?.contentType ?? "application/octet-stream",
  };
  if (request.headers.get("if-none-match") === head.httpEtag) return new Response(null, { status: 304, headers });
  const range = parseRange(request.headers.get("range"), head.size);
  const body = await env.DATA.get(
    key,
    range ? { range: { offset: range.start, length: range.end - range.start + 1 } } : {},
  );
  if (!body) throw notFound(`The file of this asset is missing from storage (${key}).`);
  if (!range)
    return new Response(body.body, { status: 200, headers: { ...headers, "content-length": String(head.size) } });
  return new Response(body.body, {
    status: 206,
    headers: {
      ...headers,
      "content-length": String(range.end - range.start + 1),
      "content-range": `bytes ${range.start}-${range.end}/${head.size}`,
    },
  });
}

/** JSON listing of the item's folder: every file with its size and, when it is an asset, the asset's URL. */
async function folderListing(env: Pick<Env, "DATA">, item: StacItem, urls: CatalogUrls): Promise<Response> {
  const prefix = assetFolder(item);
  const byKey = new Map(Object.entries(item.assets).map(([name, a]) => [a.href, name]));
  const files: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.DATA.list({ prefix, cursor });
    for (const o of page.objects) {
      const asset = byKey.get(o.key);
      files.push({
        name: o.key.slice(prefix.length),
        size: o.size,
        ...(asset ? { asset, href: urls.asset(item.collection, item.id, asset) } : {}),
      });
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return json({ collection: item.collection, item: item.id, folder: prefix, files });
}

/**
 * Serves asset `name` of `item` (an own member of `item.assets`). Throws 404 for unknown assets (also names of
 * Object.prototype members such as `__proto__`) and for assets stored outside this service.
 */
export function serveAsset(
  request: Request,
  env: Pick<Env, "DATA">,
  item: StacItem,
  name: string,
  urls: CatalogUrls,
): Promise<Response> {
  const asset = Object.hasOwn(item.assets, name) ? item.assets[name] : undefined; // never __proto__, toString, ...
  if (!asset && name === "data" && assetFolder(item)) return folderListing(env, item, urls);
  if (!asset)
    throw notFound(`Item '${item.id}' has no asset '${name}'; its assets: ${Object.keys(item.assets).join(", ")}.`);
  if (isUrl(asset.href)) throw notFound(`Asset '${name}' is not stored by this service; fetch it from ${asset.href}.`);
  return streamObject(request, env, asset.href, asset.type);
}
