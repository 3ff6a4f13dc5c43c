// EO Edge console entry point (bundled by scripts/build-web.mjs into web/vendor/console.js): hash navigation
// between the pages of web/index.html (#page or #page?s=<state>, see state.js), log-in with client credentials,
// log-out from the header, the log-in page with a notice when the session ends (expired or refused token), and
// each page's first show.
import { login, logout, showError, showState, takeNotice, token, tokenExpires } from "./api.js";
import { initRequest, showRequest } from "./request.js";
import { initStatistics } from "./stats.js";
import { initCatalog } from "./catalogform.js";
import { prefetchPresets } from "./presets.js";
import { prefetchBasemap } from "./basemap.js";
import { initBatch, refreshBatch } from "./batch.js";
import { refreshCollections } from "./collections.js";
import { initClients, refreshClients } from "./clients.js";
import { initTimelapsePanel } from "./timelapse-panel.js";
import { PAGES, pageOfHash } from "./state.js";

const $ = (id) => document.getElementById(id);
const ON_SHOW = { batch: refreshBatch, collections: refreshCollections, clients: refreshClients, request: showRequest };
const started = new Set();
window.eoConsole = {};

/**
 * Shows the page named by location.hash; without a valid token the log-in page (the hash is kept, so logging in
 * returns to the page and state it names), with the notice of why the session ended. Runs the page's refresh.
 */
function route() {
  let name = pageOfHash();
  const valid = Boolean(token());
  if (!valid) name = "login";
  for (const p of PAGES) $(`page-${p}`).hidden = p !== name;
  for (const a of document.querySelectorAll("header nav a"))
    a.toggleAttribute("aria-current", a.getAttribute("href") === `#${name}`);
  const until =
    tokenExpires() && new Date(tokenExpires()).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  $("who").textContent = valid ? `logged in (until ${until})` : "not logged in";
  $("logoutHeader").hidden = !valid;
  document.querySelector('header nav a[href="#login"]').hidden = valid; // Log out replaces it while logged in
  const notice = name === "login" && takeNotice();
  if (notice) showState($("loginState"), notice);
  if (name === "request" && !started.has(name)) started.add(name), initRequest();
  else if (name === "statistics" && !started.has(name)) started.add(name), initStatistics();
  else if (name === "catalog" && !started.has(name)) started.add(name), initCatalog();
  else ON_SHOW[name]?.()?.catch?.((e) => console.error(e));
  document.body.dataset.page = name;
}

$("loginForm").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const expires = await login($("clientId").value.trim(), $("clientSecret").value.trim());
    showState($("loginState"), `token valid for ${expires} s`);
    if (pageOfHash() === "login" || !location.hash) location.hash = "#request";
    route();
  } catch (err) {
    showError($("loginState"), err, $("loginForm"));
  }
});
const logOut = () => (logout(), route());
$("logout").addEventListener("click", logOut);
$("logoutHeader").addEventListener("click", logOut);
window.addEventListener("hashchange", route);
window.addEventListener("eo-session-ended", () => setTimeout(route));
initBatch();
initClients();
initTimelapsePanel();
// static files of the builder's first view, fetched while the log-in page is shown (no token needed)
prefetchPresets().catch(() => {});
prefetchBasemap().catch(() => {});
route();
