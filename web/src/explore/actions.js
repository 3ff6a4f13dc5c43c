// The buttons of the exploration view that hand the view on: download, share link, request builder, time-lapse
// (outputs.js does the work); their outcome goes to #toolState.
import { showError, showState, token } from "../api.js";
import { builderUrl, downloadView, exportView } from "./outputs.js";

const $ = (id) => document.getElementById(id);

/**
 * Wires the buttons. `ctx`: {map() -> the Leaflet map, drawn() -> the view as outputs.js takes it, saveView() -> the
 * share link (after writing it into the address), dates() -> the calendar's [{date}]}.
 */
export function wireActions({ map, drawn, saveView, dates }) {
  const state = $("toolState");
  const guard = (f) => async () => {
    try {
      await f();
    } catch (e) {
      showError(state, e);
    }
  };
  $("download").addEventListener(
    "click",
    guard(async () => {
      showState(state, "rendering the download…");
      const d = await downloadView(map(), drawn(), Number($("dlRes").value), $("dlFormat").value);
      showState(state, `saved ${d.name}: ${d.width} x ${d.height} px, ${d.bytes} bytes`);
    }),
  );
  $("share").addEventListener(
    "click",
    guard(async () => {
      const url = saveView();
      Object.assign($("shareUrl"), { hidden: false, value: url });
      $("shareUrl").select();
      await navigator.clipboard?.writeText(url).catch(() => {});
      showState(state, "share link copied: it opens this view for anyone logged in with access to the collection");
    }),
  );
  $("toBuilder").addEventListener("click", () => location.assign(builderUrl(map(), drawn())));
  $("timelapse").addEventListener(
    "click",
    guard(async () => {
      const list = dates()
        .map((d) => d.date)
        .slice(-30);
      if (list.length < 2) throw new Error("A time-lapse needs two days with scenes in the view at least.");
      const blob = await exportView(map(), drawn(), list, $("tlFormat").value, token(), (done, total) =>
        showState(state, `time-lapse: ${done} of ${total} days rendered…`),
      );
      const shown = blob.dates?.length ?? list.length; // days without data are left out
      showState(state, `time-lapse of ${shown} of ${list.length} days saved (${blob.size} bytes)`);
    }),
  );
}
