// The request builder's request in and out of the page: the request JSON view (apply, revert, import a file), the
// `#builder?request=` links (open one, "Share request"), the permalink and the pins. request.js owns the state and
// passes `page` = {form(), body() (the Processing API request), restore(st), changed(), offered() (collection ids),
// mark(name), savePermalink(), setJsonDirty(bool)}.
import { showError, showState } from "./api.js";
import { stateOfBody } from "./form.js";
import { copyText, showPins, wireCopyButtons } from "./panels.js";
import { decodeRequest, requestLink, requestParam } from "./sharelink.js";
import { addPin, permalink, pins, removePin } from "./state.js";

const $ = (id) => document.getElementById(id);

/** Applies Processing API request `body` to the form (throws an Error naming the field it cannot show). */
function openBody(page, body) {
  page.restore(stateOfBody(body, page.offered()));
  page.setJsonDirty(false);
  page.changed();
}

/**
 * Opens the request of a `#builder?request=<base64url JSON>` link (sharelink.js) in the form, ready to run; a link
 * that cannot be read or shown says why in #linkNote (the form keeps what it had). True when a request was opened.
 */
export function openRequestLink(page) {
  const raw = requestParam();
  if (raw === null) return false;
  let opened = false;
  try {
    openBody(page, decodeRequest(raw));
    opened = true;
    showState($("linkNote"), "Request opened from the link: check it and press Run.");
  } catch (err) {
    showError($("linkNote"), new Error(`This request link cannot be opened: ${err.message}.`));
  }
  history.replaceState(null, "", "#request"); // the permalink of the form replaces the link (savePermalink)
  page.savePermalink();
  page.mark("requestLinkOpened");
  return opened;
}

/** Imports a Processing API request (JSON text `text`, from `what`) into the form. */
function importJson(page, text, what) {
  try {
    openBody(page, JSON.parse(text));
    showState($("jsonState"), `imported ${what}`);
  } catch (err) {
    showError($("jsonState"), new Error(`${what}: ${err.message}`));
  }
  page.mark("jsonImported");
}

/** Copies link `url` to the clipboard and shows it in link element `a` (labelled `label`). */
async function copyLink(url, a, label) {
  await copyText(url);
  Object.assign($(a), { href: url, textContent: label, hidden: false });
  showState($("linkState"), `${label} copied (${url.length} characters)`);
}

/** Wires the JSON view, pins, permalink and "Share request" buttons of the request page. */
export function wireRequestIo(page) {
  const openPin = (p) => (page.restore(p.state), showState($("pinState"), `opened "${p.name}"`));
  const deletePin = (p) => showPins(removePin(p.name), openPin, deletePin);
  $("requestJson").addEventListener("input", () => page.setJsonDirty(true));
  $("applyJson").addEventListener("click", () => importJson(page, $("requestJson").value, "the request JSON"));
  $("revertJson").addEventListener(
    "click",
    () => (page.setJsonDirty(false), showState($("jsonState"), ""), page.changed()),
  );
  $("jsonFile").addEventListener("change", async () => {
    const f = $("jsonFile").files[0];
    if (f) importJson(page, await f.text(), f.name), ($("jsonFile").value = "");
  });
  $("pin").addEventListener("click", () => {
    const name = $("pinName").value.trim() || `${$("collection").value} ${$("from").value}`;
    showPins(addPin(name, page.form()), openPin, deletePin);
    showState($("pinState"), `pinned "${name}" (kept in this browser)`);
  });
  $("copyLink").addEventListener("click", () => copyLink(permalink("request", page.form()), "permalink", "permalink"));
  $("shareRequest").addEventListener("click", () =>
    copyLink(requestLink(page.body()), "requestLinkOut", "request link"),
  );
  wireCopyButtons($("page-request"));
  showPins(pins(), openPin, deletePin);
}
