// The console's API client: the OAuth token (client credentials, kept in sessionStorage) and JSON calls whose
// failures carry the error envelope {error:{status,reason,message,code,errors}} (src/http/errors.ts).
const KEY = "eo-edge-token";

/** Error of an API call: `message` is the envelope's message; `errors` its details object (may be undefined). */
export class ApiError extends Error {
  constructor(status, envelope) {
    const e = envelope?.error ?? {};
    super(e.message ?? envelope?.error_description ?? `HTTP ${status}`);
    this.status = status;
    this.errors = e.errors;
  }
}

/** The current access token, or null. */
export const token = () => sessionStorage.getItem(KEY);

/** Gets a token with the client credentials flow; keeps it in sessionStorage; resolves to expires_in (s). */
export async function login(clientId, clientSecret) {
  const body = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  const r = await fetch("/auth/realms/main/protocol/openid-connect/token", { method: "POST", body });
  const json = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, json);
  sessionStorage.setItem(KEY, json.access_token);
  return json.expires_in;
}

export const logout = () => sessionStorage.removeItem(KEY);

/** fetch with the bearer token and a JSON body (when `body` is given); throws ApiError on a non-2xx. */
export async function call(path, { method = "GET", body, accept } = {}) {
  const headers = { authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (accept) headers.accept = accept;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => null));
  return r;
}

/** call() resolving to the parsed JSON (null for an empty body). */
export async function json(path, options) {
  const text = await (await call(path, options)).text();
  return text ? JSON.parse(text) : null;
}

/**
 * Shows `err` in the status element `where` (role=alert); when the envelope names a field (a member of `errors`,
 * `{"<dotted path>": "<message>"}`) and the form has an element with data-field=<that path or a prefix of it>,
 * the message goes next to that field instead.
 */
export function showError(where, err, form = document) {
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  const fields = err.errors && typeof err.errors === "object" ? Object.entries(err.errors).filter(([, m]) => typeof m === "string") : [];
  let placed = false;
  for (const [path, message] of fields) {
    const parts = path.split(".");
    let el = null;
    for (let n = parts.length; n > 0 && !el; n--) el = form.querySelector(`[data-field="${parts.slice(0, n).join(".")}"]`);
    if (!el) continue;
    el.after(Object.assign(document.createElement("span"), { className: "field-error", role: "alert", textContent: message }));
    placed = true;
  }
  where.textContent = placed ? `${err.status ?? ""} ${err.message}` : `${err.status ? err.status + ": " : ""}${err.message}`;
  where.classList.add("error");
}

/** Clears a status element and writes `text` into it. */
export function showState(where, text) {
  where.classList.remove("error");
  where.textContent = text;
}
