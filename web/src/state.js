// The console's page named by the URL's hash, and the request builder's state outside the page: a permalink (the
// form's state, deflated with fflate and base64url-encoded, in the URL's hash: #request?s=...) and pins (named
// saved states in localStorage).
import { deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";

const PINS = "eo-edge-pins";

/** The console's pages (web/index.html's page-<name> sections). */
export const PAGES = ["login", "request", "catalog", "statistics", "batch", "collections", "clients"];
/** Other names of pages: #builder?request=<base64url> opens a request in the builder (sharelink.js). */
const ALIASES = { builder: "request" };
/** The page named by location.hash (#name or #name?...), "request" by default. */
export const pageOfHash = () => {
  const hashed = location.hash.slice(1).split("?")[0];
  const name = ALIASES[hashed] ?? hashed;
  return PAGES.includes(name) ? name : "request";
};

/** base64url text of a JSON-able value, deflated. */
export function encodeState(value) {
  const bytes = deflateSync(strToU8(JSON.stringify(value)), { level: 9 });
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The value of encodeState's text; throws on text that is not one. */
export function decodeState(text) {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(strFromU8(inflateSync(Uint8Array.from(bin, (c) => c.charCodeAt(0)))));
}

/** The `s` parameter of the hash (#page?s=...), or null. */
export const hashState = () => new URLSearchParams(location.hash.split("?")[1] ?? "").get("s");

/** The permalink of state `value` on page `page` (an absolute URL). */
export const permalink = (page, value) => `${location.origin}${location.pathname}#${page}?s=${encodeState(value)}`;

/** The saved pins, newest first: [{name, saved (ISO time), state}]. */
export function pins() {
  try {
    const list = JSON.parse(localStorage.getItem(PINS) ?? "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Saves `state` as pin `name` (replacing a pin of the same name); returns the new list. */
export function addPin(name, state) {
  const list = [{ name, saved: new Date().toISOString(), state }, ...pins().filter((p) => p.name !== name)];
  localStorage.setItem(PINS, JSON.stringify(list));
  return list;
}

/** Deletes pin `name`; returns the new list. */
export function removePin(name) {
  const list = pins().filter((p) => p.name !== name);
  localStorage.setItem(PINS, JSON.stringify(list));
  return list;
}
