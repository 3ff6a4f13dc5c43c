/** Response helpers and the deployment's public base URL. */
import type { Env } from "../env";

/**
 * The public base URL of this deployment (`PUBLIC_BASE_URL`, e.g. `https://eo.example.org`), without a trailing
 * slash. It alone makes every link and the token issuer: the request's Host header never does, so a client cannot
 * make the service mint tokens or links for another origin. Throws (a logged 500) when it is unset or not an
 * http(s) URL: that is a deployment error, not a client's. Local default: `wrangler.toml` (`npm start` sets it to
 * its own address; tests set `http://localhost` in vitest.config.ts).
 */
export function publicBaseUrl(env: Pick<Env, "PUBLIC_BASE_URL">): string {
  const configured = env.PUBLIC_BASE_URL?.trim() ?? "";
  if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(configured))
    throw new Error(`PUBLIC_BASE_URL must be the service's public http(s) URL; it is '${configured.slice(0, 200)}'.`);
  return configured.replace(/\/+$/, "");
}

/** The origin of {@link publicBaseUrl}, parsed once per configured value (a request reads it on every call). */
export function publicOrigin(env: Pick<Env, "PUBLIC_BASE_URL">): string {
  const base = publicBaseUrl(env);
  if (origins.base !== base) [origins.base, origins.origin] = [base, new URL(base).origin];
  return origins.origin;
}
const origins = { base: "", origin: "" };

/** Parsed request URLs: a request's URL is read by several layers (entry, S3 addressing, locations, router). */
const parsed = new WeakMap<Request, URL>();

/** `request.url` parsed, once per request (the URL is shared: callers must not change it). */
export function urlOf(request: Request): URL {
  let url = parsed.get(request);
  if (!url) parsed.set(request, (url = new URL(request.url)));
  return url;
}

/** JSON response with the given status and extra headers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** A Server-Timing header value from stage durations in ms: `stage;dur=12, other;dur=3`. */
export function serverTiming(timings: Record<string, number>): string {
  return Object.entries(timings)
    .map(([k, v]) => `${k};dur=${v}`)
    .join(", ");
}

/**
 * `response` with `headers` set (replacing same-named ones): in place when its headers are mutable (a Response the
 * Worker built), else on a copy sharing the body (e.g. a fetch() response, whose headers are immutable). Setting
 * in place spares the body a second stream hop per copy.
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  let out = response;
  try {
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  } catch {
    out = new Response(response.body, response);
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  }
  return out;
}
