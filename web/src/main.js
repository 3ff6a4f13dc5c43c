// EO Edge console entry point (bundled by scripts/build-web.mjs into web/vendor/console.js): hash navigation
// between the pages of web/index.html, log-in with client credentials, and each page's first show.
import { login, logout, showError, showState, token } from "./api.js";
import { initRequest } from "./request.js";
import { initStatistics } from "./stats.js";
import { initBatch, refreshBatch } from "./batch.js";
import { refreshCollections } from "./collections.js";
import { initClients, refreshClients } from "./clients.js";

const $ = (id) => document.getElementById(id);
const PAGES = ["login", "request", "statistics", "batch", "collections", "clients"];
const ON_SHOW = { batch: refreshBatch, collections: refreshCollections, clients: refreshClients };
const started = new Set();
window.eoConsole = {};

/** Shows the page named by location.hash (log-in when there is no token); runs its refresh. */
function route() {
  let name = location.hash.slice(1) || "request";
  if (!PAGES.includes(name)) name = "request";
  if (!token()) name = "login";
  for (const p of PAGES) $(`page-${p}`).hidden = p !== name;
  for (const a of document.querySelectorAll("nav a")) a.toggleAttribute("aria-current", a.getAttribute("href") === `#${name}`);
  $("who").textContent = token() ? "logged in" : "not logged in";
  if (name === "request" && !started.has(name)) (started.add(name), initRequest());
  if (name === "statistics" && !started.has(name)) (started.add(name), initStatistics());
  ON_SHOW[name]?.().catch((e) => console.error(e));
  document.body.dataset.page = name;
}

$("loginForm").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const expires = await login($("clientId").value.trim(), $("clientSecret").value.trim());
    showState($("loginState"), `token valid for ${expires} s`);
    location.hash = "#request";
    route();
  } catch (err) {
    showError($("loginState"), err, $("loginForm"));
  }
});
$("logout").addEventListener("click", () => (logout(), route()));
window.addEventListener("hashchange", route);
initBatch();
initClients();
route();
