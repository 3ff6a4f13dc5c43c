// The console's API client: the OAuth token (client credentials, kept in sessionStorage with its expiry time) and
// JSON calls whose failures carry the error envelope {error:{status,reason,message,code,errors}} (src/http/errors.ts).
// A 401 answer or a token past its expiry ends the session: the token is dropped, a notice is kept for the log-in
// page and the window gets an "eo-session-ended" event (main.js shows the log-in page with the notice).
const KEY = "eo-edge-token";
const EXPIRES = "eo-edge-token-expires";
const NOTICE = "eo-edge-login-notice";

/** Error of an API call: `message` is the envelope's message; `errors` its details object (may be undefined). */
export class ApiError extends Error {
  constructor(status, envelope) {
    const e = envelope?.error ?? {};
    super(e.message ?? envelope?.error_description ?? `HTTP ${status}`);
    this.status = status;
    this.errors = e.errors;
  }
}

/** The current access token, or null (none, or past its expiry: then the session is ended with a notice). */
export function token() {
  const t = sessionStorage.getItem(KEY);
  if (t && Date.now() >= Number(sessionStorage.getItem(EXPIRES) ?? Infinity))
    return (endSession("Your session has expired: log in again."), null);
  return t;
}

/** Expiry time of the token (ms since the epoch), or null. */
export const tokenExpires = () => Number(sessionStorage.getItem(EXPIRES)) || null;

/** Drops the token, keeps `notice` for the log-in page and tells the window ("eo-session-ended"). */
export function endSession(notice) {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(EXPIRES);
  sessionStorage.setItem(NOTICE, notice);
  window.dispatchEvent(new Event("eo-session-ended"));
}

/** The log-in page's notice (why the session ended), read once; null when there is none. */
export function takeNotice() {
  const n = sessionStorage.getItem(NOTICE);
  sessionStorage.removeItem(NOTICE);
  return n;
}

/** Gets a token with the client credentials flow; keeps it in sessionStorage; resolves to expires_in (s). */
export async function login(clientId, clientSecret) {
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: clientSecret,
  });
  const r = await fetch("/auth/realms/main/protocol/openid-connect/token", { method: "POST", body });
  const json = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, json);
  sessionStorage.setItem(KEY, json.access_token);
  sessionStorage.setItem(EXPIRES, String(Date.now() + 1000 * (json.expires_in ?? 3600)));
  return json.expires_in;
}

/** Logs out: drops the token (the notice tells the log-in page it was on purpose). */
export const logout = () => endSession("You are logged out.");

/**
 * fetch with the bearer token and a JSON body (when `body` is given), cancelled by `signal`; throws ApiError on a
 * non-2xx (and ends the session on a 401: the token was refused), and without sending anything when there is no
 * token (logged out, expired: a page's late refresh must not replace the log-in page's notice).
 */
export async function call(path, { method = "GET", body, accept, signal } = {}) {
  const t = token();
  if (!t) throw new ApiError(401, { error: { message: "Not logged in: log in first." } }); // nothing sent without a token
  const headers = { authorization: `Bearer ${t}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (accept) headers.accept = accept;
  const r = await fetch(path, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) {
    const err = new ApiError(r.status, await r.json().catch(() => null));
    if (r.status === 401) endSession(`Your session has ended (${err.message}): log in again.`);
    throw err;
  }
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
  const fields =
    err.errors && typeof err.errors === "object"
      ? Object.entries(err.errors).filter(([, m]) => typeof m === "string")
      : [];
  let placed = false;
  for (const [path, message] of fields) {
    const parts = path.split(".");
    let el = null;
    for (let n = parts.length; n > 0 && !el; n--)
      el = form.querySelector(`[data-field="${parts.slice(0, n).join(".")}"]`);
    if (!el) continue;
    el.after(
      Object.assign(document.createElement("span"), { className: "field-error", role: "alert", textContent: message }),
    );
    placed = true;
  }
  where.textContent = placed
    ? `${err.status ?? ""} ${err.message}`
    : `${err.status ? err.status + ": " : ""}${err.message}`;
  where.classList.add("error");
}

/** Clears a status element and writes `text` into it. */
export function showState(where, text) {
  where.classList.remove("error");
  where.textContent = text;
}
