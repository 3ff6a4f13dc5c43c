// A client of EO Edge's admin API (src/admin: `/api/v1/admin/...`, `Authorization: Bearer <ADMIN_TOKEN>`), the one
// way scripts/deploy.mjs and scripts/admin.mjs change a deployment, local or remote alike.

/**
 * A client of the admin API at `base` (a deployment's public URL) with `token` (its ADMIN_TOKEN).
 * `call(method, path, body?)` sends JSON (or, with `{ bytes: true }`, the body as given, application/octet-stream)
 * to `/api/v1/admin<path>` and resolves to the parsed answer (undefined for 204); a non-2xx answer throws an Error
 * naming the call, the status and the envelope's message (the admin token never appears in it).
 * @param {string} base @param {string} token
 */
export function adminClient(base, token) {
  /** @param {string} method @param {string} path @param {unknown} [body] @param {{ bytes?: boolean }} [o] */
  const call = async (method, path, body, o = {}) => {
    const headers = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = o.bytes ? "application/octet-stream" : "application/json";
    const r = await fetch(`${base}/api/v1/admin${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : o.bytes ? body : JSON.stringify(body),
    });
    if (r.status === 204) return undefined;
    const text = await r.text();
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!r.ok) {
      const e = new Error(
        `${method} ${base}/api/v1/admin${path}: ${r.status} ${parsed?.error?.message ?? text.slice(0, 300)}`,
      );
      e.status = r.status;
      throw e;
    }
    return parsed;
  };
  return { base, call };
}

/**
 * The DATA bucket behind the admin API as the object store the seed's uploadMissing (scripts/seed-files.ts) takes:
 * `list` (keys and sizes, paged) and `put`.
 * @param {ReturnType<typeof adminClient>} client
 */
export function adminDataStore(client) {
  const path = (key) => key.split("/").map(encodeURIComponent).join("/");
  return {
    bucket: "DATA",
    async list({ prefix = "", cursor } = {}) {
      const q = new URLSearchParams({ prefix, ...(cursor ? { cursor } : {}) });
      const page = await client.call("GET", `/data?${q}`);
      return {
        objects: page.objects,
        cursor: page.cursor,
        delimitedPrefixes: [],
        truncated: page.cursor !== undefined,
      };
    },
    async put(key, body) {
      return client.call("PUT", `/data/${path(key)}`, body, { bytes: true });
    },
  };
}
