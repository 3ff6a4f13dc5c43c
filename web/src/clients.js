// The OAuth clients page (/api/v1/accounts/me/clients): create (the secret shown once), list, delete, inactive list.
import { call, json, showError, showState } from "./api.js";
import { actionButton, buttons, fillTable } from "./table.js";

const $ = (id) => document.getElementById(id);
const BASE = "/api/v1/accounts/me/clients";

/** Reloads the active and inactive client tables. */
export async function refreshClients() {
  const [active, inactive] = await Promise.all([json(BASE), json(`${BASE}/inactive`)]);
  const del = (c) => actionButton("Delete", c.clientId, () => call(`${BASE}/${encodeURIComponent(c.clientId)}`, { method: "DELETE" }).catch((err) => showError($("clientState"), err)), refreshClients);
  fillTable($("clientTable"), active.data, (c) => [c.clientId, c.name, c.created ?? c.createdAt ?? "", buttons(del(c))]);
  fillTable($("inactiveTable"), inactive.data, (c) => [c.clientId, c.name, c.created ?? c.createdAt ?? ""]);
}

/** Wires the create form: expiry date (end of that day, UTC) or never expire when empty. */
export function initClients() {
  $("clientForm").addEventListener("submit", async (e) => {
    e.preventDefault();
    const day = $("clientExpires").value;
    const body = { name: $("clientName").value, ...(day ? { expires: `${day}T23:59:59Z` } : { neverExpire: true, confirmNeverExpireRisk: true }) };
    try {
      const c = await json(BASE, { method: "POST", body });
      Object.assign($("newSecret"), { hidden: false, textContent: `Client ${c.clientId} created. Its secret, shown only now: ${c.clientSecret}` });
      showState($("clientState"), `created ${c.clientId}`);
      await refreshClients();
    } catch (err) {
      showError($("clientState"), err, $("clientForm"));
    }
  });
}
