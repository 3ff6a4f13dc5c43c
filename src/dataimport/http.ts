/**
 * HTTP glue shared by the area's routes: the deprecation headers on every answer (success and error), body
 * validation, and a provider context for a request.
 */
import type { z } from "zod";
import type { Env } from "../env";
import { withHeaders } from "../http/base";
import { renderError } from "../http/errors";
import { readJson, validate } from "../http/parse";
import { accountOf, type AuthedRequest, type Handler, type RouteMeta } from "../http/router";
import { DEPRECATION_HEADERS } from "./deprecation";
import type { ProviderContext } from "./providers";

/** OpenAPI metadata of every route of the area: its tag, and errors rendered with the deprecation headers. */
export const AREA: RouteMeta = {
  tags: ["Third-party import (deprecated)"],
  errors: (err) => {
    const r = renderError(err);
    return withHeaders(r, r.headers.has("deprecation") ? {} : DEPRECATION_HEADERS);
  },
};

/** `handler` whose answers carry the deprecation headers (unless it set its provider's own). */
export const deprecated =
  (handler: Handler): Handler =>
  async (request, env, ctx) => {
    const r = await handler(request, env, ctx);
    return r.headers.has("deprecation") ? r : withHeaders(r, DEPRECATION_HEADERS);
  };

/** The JSON body validated by `schema`. @throws ApiError 400, 413. */
export async function body<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
  return validate(schema, await readJson(request));
}

/** The provider context of a request: its account, the key given (body or query), its URL. */
export const contextOf = (request: AuthedRequest, env: Env, apiKey?: string): ProviderContext => ({
  env,
  account: accountOf(request),
  apiKey,
  url: new URL(request.url),
});
