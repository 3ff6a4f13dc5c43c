// The batch page: Batch Processing v2 tasks (create from the request builder's request, analyse/start/stop,
// status, progress, cost) and Statistical Batch tasks (status, progress, cost, analyse/start/stop).
import { json, showError, showState } from "./api.js";
import { actionButton, buttons, fillTable } from "./table.js";

const $ = (id) => document.getElementById(id);
const BATCH = "/api/v2/batch/process";
const STATBATCH = "/api/v1/statistics/batch";
let timer = null;

/** The task buttons of one task at `base`/`id`. */
const taskButtons = (base, id) =>
  buttons(...["analyse", "start", "stop"].map((a) => actionButton(a[0].toUpperCase() + a.slice(1), id, () => json(`${base}/${id}/${a}`, { method: "POST" }).catch((err) => showError($("batchState"), err)), refreshBatch)));

/** Reloads both task lists; polls every 2 s while a task is in a running state. */
export async function refreshBatch() {
  const [batch, stat] = await Promise.all([json(`${BATCH}?count=100`), json(`${STATBATCH}?count=100`).catch(() => ({ data: [] }))]);
  fillTable($("batchTable"), batch.data, (t) => [t.id, t.request?.description ?? t.description ?? "", t.status, `${t.completionPercentage ?? 0} %`, String(t.costPU ?? ""), taskButtons(BATCH, t.id)]);
  fillTable($("statBatchTable"), stat.data, (t) => [t.id, t.status, `${t.completionPercentage ?? 0} %`, String(t.costPU ?? ""), taskButtons(STATBATCH, t.id)]);
  const busy = [...batch.data, ...stat.data].some((t) => /ANALYSING|PROCESSING|CREATED_ANALYSING|STOPPING|QUEUED/.test(t.status));
  clearTimeout(timer);
  if (busy && document.body.dataset.page === "batch") timer = setTimeout(() => refreshBatch().catch(console.error), 2000);
}

/** A batch task of the request builder's current request: UTM 20 km grid at 60 m, GeoTIFF to a local bucket. */
function fromBuilder() {
  const req = window.eoConsole.request?.();
  if (!req) return null;
  const processRequest = { ...req.body, output: { responses: [{ identifier: "default", format: { type: "image/tiff" } }] } };
  return {
    processRequest,
    input: { type: "tiling-grid", id: 0, resolution: 60 },
    output: { type: "raster", delivery: { s3: { url: "s3://console-batch/<requestId>/<tileName>/<outputId>.<format>" } } },
    description: `console: ${req.body.input.data[0].type}`,
  };
}

/** Wires the batch page's form. */
export function initBatch() {
  $("batchFill").addEventListener("click", () => {
    const task = fromBuilder();
    if (task) $("batchJson").value = JSON.stringify(task, null, 2);
    else showState($("batchState"), "open the request builder first");
  });
  $("batchForm").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const body = JSON.parse($("batchJson").value);
      const task = await json(BATCH, { method: "POST", body });
      showState($("batchState"), `created ${task.id}`);
      await refreshBatch();
    } catch (err) {
      showError($("batchState"), err, $("batchForm"));
    }
  });
  $("batchRefresh").addEventListener("click", () => refreshBatch().catch((err) => showError($("batchState"), err)));
}
