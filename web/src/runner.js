// The request builder's Run (request.js wires it): sends the Processing API request, shows the result on the map
// (result.js) with its status line, offers the file, and says why when nothing can run. One run at a time: a manual
// run waits for none, it replaces an automatic one; a new state supersedes the run (no result, no end mark).
// The request leaves first; the old result stays until the new one replaces it (or the run fails, or takes over
// 200 ms: then Cancel and the progress bar show, result.js busy).
// performance marks run:start, run:sent, run:response, run:body, run:drawn and run:end time each stage (the
// browser checks report them, test/e2e/lib/console-timing.mjs).
import { call, showError, showState } from "./api.js";
import { markError } from "./editor.js";
import { MAX_SIDE } from "./form.js";
import { busy, clearResult, drawResult, offerResult, showDrawn } from "./result.js";

const $ = (id) => document.getElementById(id);
const EXT = { "image/png": "png", "image/jpeg": "jpg", "image/tiff": "tif" };
const MARKS = ["run:start", "run:sent", "run:response", "run:body", "run:drawn", "run:end"];
let page,
  running = null;

/** The result's file name for output format `type` (a MIME type), as the download and the snippets name it. */
export const resultName = (type) => `result.${EXT[type]}`;

/**
 * What a run needs of the request page: `ctl` (map controller), `editor` (evalscript view), `prepare()` ->
 * {st, body, bounds, epsg} (the form's state and request, form.js buildRequest), `scenes(st, signal)` -> the days
 * with scenes the request uses [{date, count}] or a promise of them, `noScenes(st)` -> the Error saying why none.
 */
export const initRunner = (p) => (page = p);

/** Cancels the current run (the Cancel button): its status says so. */
export const cancelRun = () => running?.abort();

/** A new date, collection or state: the current run's result would no longer apply; it ends without a mark. */
export function supersedeRun() {
  if (running) (running.superseded = true), running.abort();
}

/** Says `text` (the run is refused before anything is sent) and drops the old result. */
function refuse(text) {
  clearResult(page.ctl);
  showError($("runState"), new Error(text));
}

/**
 * Sends the request; shows a PNG/JPEG or a single-band float GeoTIFF on the map over the AOI and offers the file;
 * says why when nothing can run. `auto`: an automatic run (a click on Run replaces it; it replaces none).
 */
export async function runRequest(auto = false) {
  for (const name of MARKS) performance.clearMarks(name); // the last run's only: no growing buffer
  performance.mark("run:start");
  if (running && (auto || !running.auto)) return;
  if (running) supersedeRun(), await running.done;
  const { ctl, editor } = page;
  const { st, body, bounds, epsg } = page.prepare();
  const { width, height } = body.output;
  if (width > MAX_SIDE || height > MAX_SIDE)
    return refuse(
      `The output would be ${width} x ${height} px; at most ${MAX_SIDE} px a side: choose a coarser resolution, a smaller size or AOI.`,
    );
  const t0 = performance.now();
  let finish;
  running = Object.assign(new AbortController(), { auto, done: new Promise((f) => (finish = f)) });
  const signal = running.signal;
  // the request and the catalog search (the dates shown, or why nothing renders) run side by side: one after
  // the other, a console run took 2-3.7x the same request sent by curl
  const known = page.scenes(st, signal); // the days at once (timeline), or a promise (search)
  const sent = known.length !== 0 && send(body, signal); // nothing to render: no request sent
  performance.mark("run:sent");
  delete document.body.dataset.runDone;
  // the old result stays on the map until the new one replaces it (drawResult), unless the run is slow
  busy(true, t0, auto, () => clearResult(ctl));
  try {
    if (!sent) throw page.noScenes(st);
    const scenes = await known;
    if (!scenes.length) throw (running.abort(), page.noScenes(st));
    const { r, blob } = await sent;
    const drawn = await drawResult(ctl, blob, bounds);
    performance.mark("run:drawn");
    offerResult(blob, resultName(body.output.responses[0].format.type));
    const days = scenes.map((d) => d.date);
    if (drawn === true) showDrawn(ctl, st, days);
    busy(false);
    showState($("runState"), summary(r, { width, height, t0, days, scenes, drawn, epsg }));
    markError(editor, "");
    document.body.dataset.runDone = String(Date.now());
  } catch (err) {
    busy(false);
    clearResult(ctl); // no stale result after a failure or a cancel
    if (err.name === "AbortError") running.superseded || showState($("runState"), "cancelled: no result");
    else showError($("runState"), err, $("page-request")), markError(editor, err.message);
  } finally {
    busy(false);
    performance.mark("run:end");
    // the checks wait for these: a manual run's end, an automatic run's end (none for a replaced one)
    if (!running.superseded) document.body.dataset[auto ? "autoRunEnded" : "runEnded"] = String(Date.now());
    (running = null), finish();
  }
}

/** POSTs `body` to the Processing API; resolves to {r (the response), blob (its body)}; never rejects unawaited. */
function send(body, signal) {
  const sent = call("/api/v1/process", { method: "POST", body, signal }).then(async (r) => {
    performance.mark("run:response");
    const blob = await r.blob();
    performance.mark("run:body");
    return { r, blob };
  });
  sent.catch(() => {}); // awaited by the run unless the search finds no scenes
  return sent;
}

/** The run state's line: status, size, PU, time, the scenes' dates and where (or whether) the result is drawn. */
function summary(r, { width, height, t0, days, scenes, drawn, epsg }) {
  const where =
    drawn !== true
      ? `; not drawn on the map (${drawn}): download it`
      : epsg !== 3857
        ? `; drawn approximately (EPSG:${epsg} on the EPSG:3857 map)`
        : "";
  const count = scenes.reduce((n, d) => n + d.count, 0);
  const pu = r.headers.get("x-processingunits-spent") ?? "?",
    took = ((performance.now() - t0) / 1000).toFixed(1);
  const dates = `${days.slice(0, 3).join(", ")}${days.length > 3 ? ", ..." : ""}`;
  return `${r.status}: ${width} x ${height} px, ${pu} PU, ${took} s; ${count} scene(s) of ${dates}${where}`;
}
