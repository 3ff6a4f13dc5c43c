// Request links: a Process API request body in the URL, `#builder?request=<base64url of the JSON body>` (UTF-8,
// RFC 4648 section 5 alphabet, padding optional; standard base64 is read too). The builder's "Share request"
// writes one; opening one fills the builder with the request (request.js), and other pages (the exploration view)
// link to the builder the same way.

/** base64url text (no padding) of the UTF-8 bytes of `text`. */
export function base64url(text) {
  let bin = "";
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The absolute link that opens Process API request `body` in the request builder. */
export const requestLink = (body) =>
  `${location.origin}${location.pathname}#builder?request=${base64url(JSON.stringify(body))}`;

/** The raw `request` parameter of the hash (#builder?request=... or #request?request=...), or null. */
export function requestParam(hash = location.hash) {
  const m = /[?&]request=([^&]*)/.exec(hash);
  return m ? decodeURIComponent(m[1]) : null;
}

/**
 * The request body of a link's `request` parameter `text`. Throws an Error saying which step failed: not base64url,
 * not UTF-8 text, not JSON, or not a JSON object.
 */
export function decodeRequest(text) {
  const b64 = text.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
  if (!b64 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.replace(/=+$/, "").length % 4 === 1)
    throw new Error("the link's request is not base64url text");
  let json;
  try {
    const bin = atob(b64.replace(/=+$/, "").padEnd(Math.ceil(b64.replace(/=+$/, "").length / 4) * 4, "="));
    json = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    throw new Error("the link's request is not base64url of UTF-8 text");
  }
  let body;
  try {
    body = JSON.parse(json);
  } catch (err) {
    throw new Error(`the link's request is not JSON (${err.message})`);
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new Error("the link's request is not a JSON object (a Process API request body)");
  return body;
}
