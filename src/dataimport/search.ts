/**
 * Search and thumbnail routes (interface spec 4.9; OpenAPI dataImport_searchData, dataImport_nativeSearch,
 * dataImport_getProductThumbnail): process-like search (`count` 1..the provider's maximum, `viewtoken`; answer
 * `{links, features, ...}`), native search (the provider's own body passed on; its answer plus `links`) and a
 * product's thumbnail image.
 */
import type { Env } from "../env";
import { json, withHeaders } from "../http/base";
import { parsePageRequest } from "../http/paging";
import type { AuthedRequest } from "../http/router";
import { checkSunset, providerHeaders } from "./deprecation";
import { body, contextOf } from "./http";
import { providerOf, thumbnailProvider, type PageAsk, type Provider } from "./providers";
import { nativeSearchBody, searchBody } from "./schema";

/** `count` (1..the provider's maximum, the maximum when omitted) and `viewtoken` of the query. @throws ApiError 400. */
const pageAsk = (url: URL, p: Provider): PageAsk => ({
  count: parsePageRequest(url, p.maxCount).count,
  viewtoken: url.searchParams.get("viewtoken"),
});

/** POST /search. */
export async function search(request: AuthedRequest, env: Env): Promise<Response> {
  const input = await body(request, searchBody);
  const p = providerOf(input.provider);
  checkSunset(env, p.name);
  p.check(input, "search");
  const page = await p.search(contextOf(request, env, input.planetApiKey), input, pageAsk(new URL(request.url), p));
  return json(page, 200, providerHeaders(p.name));
}

/** POST /nativesearch. */
export async function nativeSearch(request: AuthedRequest, env: Env): Promise<Response> {
  const input = await body(request, nativeSearchBody);
  const p = providerOf(input.provider);
  checkSunset(env, p.name);
  const { provider: _p, planetApiKey, ...rest } = input;
  const out = await p.nativeSearch(
    contextOf(request, env, planetApiKey),
    { provider: p.name, ...rest },
    pageAsk(new URL(request.url), p),
  );
  return json(out, 200, providerHeaders(p.name));
}

/** GET /collections/:collectionId/products/:productId/thumbnail (planetApiKey in the query: deprecated, still read). */
export async function thumbnail(request: AuthedRequest, env: Env): Promise<Response> {
  const collection = String(request.params.collectionId ?? "");
  const p = thumbnailProvider(collection);
  checkSunset(env, p.name);
  const key = new URL(request.url).searchParams.get("planetApiKey") ?? undefined;
  const r = await p.thumbnail(
    contextOf(request, env, key),
    collection,
    decodeURIComponent(String(request.params.productId ?? "")),
  );
  return withHeaders(r, providerHeaders(p.name));
}
