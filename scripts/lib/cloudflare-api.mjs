// The Cloudflare API calls `npm run deploy` makes itself (scripts/deploy.mjs), beside the ones wrangler makes: the
// preflight's reads, the Worker's custom domains (written here, never by wrangler, so that no DNS record or other
// Worker's domain is replaced without the operator's flag) and the version reads of a rollback. Same base URL and
// credentials as wrangler: CLOUDFLARE_API_BASE_URL (default https://api.cloudflare.com/client/v4), and the token of
// `wrangler auth token --json` (CLOUDFLARE_API_TOKEN, or the OAuth login of `wrangler login`). The token is held in
// memory only: never printed, logged or written.

/** An answer of the API with `success: false` (or not JSON): `status`, the API's error `codes` and messages. */
export class CloudflareApiError extends Error {
  constructor(method, path, status, errors) {
    super(
      `Cloudflare API ${method} ${path} answered ${status}: ${errors.map((e) => `${e.message} (${e.code})`).join("; ") || "no error detail"}`,
    );
    this.status = status;
    this.codes = errors.map((e) => e.code);
  }
}

/**
 * A client of the API for one set of credentials: `call(method, path, {body, query})` resolves to the envelope's
 * `result` (throws CloudflareApiError), `base` the URL used.
 * @param {{ base?: string, auth: { type: string, token?: string, key?: string, email?: string } }} options
 */
export function cloudflareApi({
  base = process.env.CLOUDFLARE_API_BASE_URL ?? "https://api.cloudflare.com/client/v4",
  auth,
}) {
  const headers =
    auth.type === "api_key"
      ? { "X-Auth-Key": auth.key, "X-Auth-Email": auth.email }
      : { authorization: `Bearer ${auth.token}` };
  async function call(method, path, { body, query } = {}) {
    const qs = query ? `?${new URLSearchParams(query)}` : "";
    const r = await fetch(`${base}${path}${qs}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      throw new CloudflareApiError(method, path, r.status, [{ code: 0, message: `not JSON: ${text.slice(0, 200)}` }]);
    }
    if (!r.ok || json.success === false) throw new CloudflareApiError(method, path, r.status, json.errors ?? []);
    return json.result;
  }
  return { call, base };
}

/**
 * The credentials wrangler uses, from `wrangler auth token --json` (run by `w`, output captured, never shown):
 * `{ type: "api_token" | "oauth", token }` or `{ type: "api_key", key, email }`.
 * @throws Error saying how to log in when there are none.
 */
export async function wranglerAuth(w) {
  const r = await w.run(["auth", "token", "--json"], { local: true });
  const json = r.code === 0 ? /\{[\s\S]*\}/.exec(r.out)?.[0] : undefined;
  if (!json)
    throw new Error("not logged in to Cloudflare: run `npx wrangler login` first (or set CLOUDFLARE_API_TOKEN)");
  return JSON.parse(json);
}
