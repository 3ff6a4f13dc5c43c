// The OAuth clients page (/api/v1/accounts/me/clients): create (the secret shown once), list, delete after a
// confirmation, inactive list. The client this session logged in with (the token's `azp` claim) is marked and
// cannot be deleted from here: that would end the console's own access at the token's expiry.
import { call, json, showError, showState, token } from "./api.js";
import { actionButton, buttons, fillTable } from "./table.js";

const $ = (id) => document.getElementById(id);
const BASE = "/api/v1/accounts/me/clients";

/** The client id the current token was issued to (JWT claim `azp`), or null. */
function sessionClient() {
  try {
    const part = (token() ?? "").split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part)).azp ?? null;
  } catch {
    return null;
  }
}

/** The actions cell of client `c`: a Delete button that asks first, or a note for the session's own client. */
function actions(c) {
  if (c.clientId === sessionClient()) {
    const b = Object.assign(document.createElement("button"), {
      type: "button",
      textContent: "Delete",
      disabled: true,
      title: "You are logged in with this client: log in with another one to delete it",
    });
    b.setAttribute("aria-label", `Delete ${c.clientId} (not possible: this session's client)`);
    return buttons(
      b,
      Object.assign(document.createElement("span"), { className: "state", textContent: "this session's client" }),
    );
  }
  const del = async () => {
    if (
      !confirm(
        `Delete the OAuth client "${c.name}" (${c.clientId})? It can no longer get tokens; tokens it already has stay valid until they expire.`,
      )
    )
      return;
    await call(`${BASE}/${encodeURIComponent(c.clientId)}`, { method: "DELETE" });
    showState($("clientState"), `deleted ${c.clientId}`);
  };
  return buttons(
    actionButton("Delete", c.clientId, () => del().catch((err) => showError($("clientState"), err)), refreshClients),
  );
}

/** Reloads the active and inactive client tables. */
export async function refreshClients() {
  const [active, inactive] = await Promise.all([json(BASE), json(`${BASE}/inactive`)]);
  fillTable($("clientTable"), active.data, (c) => [
    c.clientId,
    c.name,
    c.created ?? c.createdAt ?? "",
    c.expires ?? "never",
    actions(c),
  ]);
  fillTable($("inactiveTable"), inactive.data, (c) => [c.clientId, c.name, c.created ?? c.createdAt ?? ""]);
}

/** Wires the create form: expiry date (end of that day, UTC) or never expire when empty. */
export function initClients() {
  $("clientForm").addEventListener("submit", async (e) => {
    e.preventDefault();
    const day = $("clientExpires").value;
    const body = {
      name: $("clientName").value,
      ...(day ? { expires: `${day}T23:59:59Z` } : { neverExpire: true, confirmNeverExpireRisk: true }),
    };
    try {
      const c = await json(BASE, { method: "POST", body });
      Object.assign($("newSecret"), {
        hidden: false,
        textContent: `Client ${c.clientId} created. Its secret, shown only now: ${c.clientSecret}`,
      });
      showState($("clientState"), `created ${c.clientId}`);
      await refreshClients();
    } catch (err) {
      showError($("clientState"), err, $("clientForm"));
    }
  });
}
