// The batch page: Batch Processing v2 and Statistical Batch tasks. Create with a form that is checked before it is
// sent (./batchform.js), the tiling-grid tiles of a batch task previewed on a map (./gridpreview.js), the task
// lists with a progress bar and the actions each status allows (from the services' task lifecycle,
// src/tasks/machines.ts), polled while a task runs, and the outputs of a task listed and downloaded through the
// service's S3 endpoint (./s3.js).
import { json, showError, showState } from "./api.js";
import { actionButton, buttons, fillTable } from "./table.js";
import { bboxLayer, miniMap } from "./minimap.js";
import { gridTiles } from "./gridpreview.js";
import { getObject, listObjects, putObject } from "./s3.js";
import { batchAoi, fillFromBuilder, fillGrids, formBody, formErrors, gridChoice, kind, showKind } from "./batchform.js";
import { BATCH_MACHINE, STATISTICAL_BATCH_MACHINE } from "../../src/tasks/machines.ts";

const $ = (id) => document.getElementById(id);
const BATCH = "/api/v2/batch/process";
const STATBATCH = "/api/v1/statistics/batch";
const RUNNING = new Set(["ANALYSING", "PROCESSING"]);
let timer = null,
  map = null,
  started = false;

/**
 * Whether `action` can be sent to a task in `status` (machine: the service's lifecycle): analyse leads to ANALYSING,
 * start to PROCESSING (or, from CREATED, analyses first), stop to STOPPED.
 */
export function allowed(machine, status, action) {
  const next = machine.transitions[status] ?? [];
  if (action === "analyse") return next.includes("ANALYSING");
  if (action === "start") return next.includes("PROCESSING") || status === "CREATED";
  return next.includes("STOPPED");
}

/** A <progress> bar with the percentage as text. */
function progress(t) {
  const p = Object.assign(document.createElement("progress"), { max: 100, value: t.completionPercentage ?? 0 });
  const span = document.createElement("span");
  span.append(p, ` ${t.completionPercentage ?? 0} %`);
  return span;
}

/**
 * The bucket and key prefix of a task's outputs: a batch task's delivery URL up to its first placeholder (after
 * <requestId>), a statistical batch task's output URL + its id (it writes <url>/<taskId>/<featureId>.json).
 */
function outputPrefix(task, stat) {
  const output = (task.request ?? task).output;
  const url = stat ? output?.s3?.url : output?.delivery?.s3?.url;
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url ?? "");
  if (!m) return null;
  if (stat) return { bucket: m[1], prefix: `${m[2].replace(/\/?$/, "/")}${task.id}/`.replace(/^\//, "") }; // <url>/<taskId>/<featureId>.json
  const path = m[2].replaceAll("<requestId>", task.id);
  return { bucket: m[1], prefix: path.includes("<") ? path.slice(0, path.indexOf("<")) : path };
}

/** Lists a task's outputs in #outputTable with a download button each. */
async function showOutputs(task, stat) {
  const where = outputPrefix(task, stat);
  if (!where) return showState($("outputsState"), "this task has no S3 output URL");
  showState($("outputsState"), `listing s3://${where.bucket}/${where.prefix} ...`);
  const objects = await listObjects(where.bucket, where.prefix);
  const download = (o) =>
    actionButton(
      "Download",
      o.key,
      async () => {
        const a = Object.assign(document.createElement("a"), {
          href: URL.createObjectURL(await getObject(where.bucket, o.key)),
          download: o.key.split("/").pop(),
        });
        a.click();
        setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      },
      async () => {},
    );
  fillTable(
    $("outputTable"),
    objects.map((o) => ({ ...o, id: o.key })),
    (o) => [o.key, `${o.size} bytes`, buttons(download(o))],
  );
  $("outputTable").hidden = false;
  $("outputCaption").textContent =
    `Outputs of ${task.id}: s3://${where.bucket}/${where.prefix} (${objects.length} objects, through the S3 endpoint)`;
  showState($("outputsState"), `${objects.length} objects`);
}

/** The action buttons of task `t` (enabled by its status), and Details / Outputs / Tiles. */
function taskButtons(t, stat) {
  const base = stat ? STATBATCH : BATCH;
  const machine = stat ? STATISTICAL_BATCH_MACHINE : BATCH_MACHINE;
  const list = ["analyse", "start", "stop"].map((a) => {
    const b = actionButton(
      a[0].toUpperCase() + a.slice(1),
      t.id,
      () => json(`${base}/${t.id}/${a}`, { method: "POST" }).catch((err) => showError($("batchState"), err)),
      refreshBatch,
    );
    b.disabled = !allowed(machine, t.status, a);
    b.dataset.action = a;
    return b;
  });
  list.push(
    actionButton(
      "Details",
      t.id,
      async () => {
        $("taskJson").textContent = JSON.stringify(await json(`${base}/${t.id}`), null, 2);
        $("taskDetails").hidden = false;
        $("taskDetailsTitle").textContent = `${stat ? "Statistical batch" : "Batch"} task ${t.id}`;
      },
      async () => {},
    ),
  );
  list.push(
    actionButton(
      "Outputs",
      t.id,
      () => showOutputs(t, stat).catch((err) => showError($("outputsState"), err)),
      async () => {},
    ),
  );
  const req = t.request ?? t;
  if (!stat && req.input?.type === "tiling-grid")
    list.push(
      actionButton(
        "Tiles",
        t.id,
        async () => previewTiles(req.processRequest.input.bounds, req.input.id, req.input.resolution),
        async () => {},
      ),
    );
  return buttons(...list);
}

/** Reloads both task lists; polls every 2 s while a task runs. */
export async function refreshBatch() {
  const [batch, stat] = await Promise.all([
    json(`${BATCH}?count=100`),
    json(`${STATBATCH}?count=100`).catch(() => ({ data: [] })),
  ]);
  for (const [table, tasks, isStat] of [
    [$("batchTable"), batch.data, false],
    [$("statBatchTable"), stat.data, true],
  ]) {
    fillTable(table, tasks, (t) => [
      t.id,
      t.description ?? t.request?.description ?? "",
      t.status,
      progress(t),
      String(t.costPU ?? ""),
      taskButtons(t, isStat),
    ]);
  }
  const busy = [...batch.data, ...stat.data].some((t) => RUNNING.has(t.status));
  clearTimeout(timer);
  if (busy && document.body.dataset.page === "batch")
    timer = setTimeout(() => refreshBatch().catch(console.error), 2000);
  if (!started) await start();
}

/** Draws the AOI and the tiles of grid `id` at `resolution` over `bounds`; shows their count. */
function previewTiles(bounds, id, resolution) {
  try {
    const { tiles, layers } = gridTiles(id, resolution, bounds);
    map.show([...(bounds.bbox ? [bboxLayer(bounds.bbox, { color: "#1b5e20" })] : []), ...layers]);
    showState(
      $("gridState"),
      `${tiles.length} tiles of grid ${id} at ${resolution}: ${tiles
        .slice(0, 4)
        .map((t) => t.name)
        .join(", ")}${tiles.length > 4 ? ", ..." : ""}`,
    );
    document.body.dataset.gridTiles = tiles.map((t) => t.name).join(" ");
  } catch (err) {
    showError($("gridState"), err);
  }
}

/** The form's request JSON in its view; the AOI on the map. */
function formChanged() {
  $("batchJson").textContent = JSON.stringify(formBody(), null, 2);
  if (kind() === "batch") map.show([bboxLayer(batchAoi())]);
}

/** Checks the form; sends it when there is nothing to fix. */
async function create() {
  const errors = formErrors();
  if (Object.keys(errors).length) {
    showError(
      $("batchState"),
      Object.assign(new Error(`fix ${Object.keys(errors).length} field(s) first: nothing was sent`), { errors }),
      $("batchForm"),
    );
    return;
  }
  try {
    const stat = kind() === "statbatch";
    const task = await json(stat ? STATBATCH : BATCH, { method: "POST", body: formBody() });
    for (const old of $("batchForm").querySelectorAll(".field-error")) old.remove();
    showState($("batchState"), `created ${task.id}`);
    await refreshBatch();
  } catch (err) {
    showError($("batchState"), err, $("batchForm"));
  }
}

/** First show: the map, the collections and grids, the form's events. */
async function start() {
  started = true;
  map = miniMap($("batchMap"));
  const [{ collections }, grids] = await Promise.all([
    json("/api/v1/catalog/1.0.0/collections"),
    json("/api/v2/batch/tilinggrids"),
  ]);
  $("batchCollection").replaceChildren(...collections.map((c) => new Option(c.id, c.id)));
  if (collections.some((c) => c.id === "sentinel-2-l2a")) $("batchCollection").value = "sentinel-2-l2a";
  fillGrids(grids.data);
  showKind();
  formChanged();
  document.body.dataset.batchReady = "1";
}

/** Wires the batch page's form (once, at load). */
export function initBatch() {
  $("taskKind").addEventListener("change", () => (showKind(), formChanged()));
  $("batchForm").addEventListener("input", formChanged);
  $("batchForm").addEventListener("change", formChanged);
  $("batchFill").addEventListener("click", () =>
    fillFromBuilder() ? formChanged() : showState($("batchState"), "open the request builder first"),
  );
  $("gridPreview").addEventListener("click", () =>
    previewTiles({ bbox: batchAoi() }, gridChoice().id, gridChoice().resolution),
  );
  $("batchForm").addEventListener("submit", (e) => (e.preventDefault(), create()));
  $("batchRefresh").addEventListener("click", () => refreshBatch().catch((err) => showError($("batchState"), err)));
  $("sbUpload").addEventListener("change", () => uploadFeatures().catch((err) => showError($("batchState"), err)));
}

/**
 * Uploads the chosen GeoPackage through the S3 endpoint into the output URL's bucket, under uploads/<file name>,
 * and points the Features field at it.
 */
async function uploadFeatures() {
  const file = $("sbUpload").files[0];
  const bucket = /^s3:\/\/([^/]+)/.exec($("batchOutput").value.trim())?.[1];
  if (!file) return;
  if (!bucket) throw new Error("Output (S3 URL) names no bucket: the GeoPackage is uploaded into the output's bucket.");
  showState($("batchState"), `uploading ${file.name} (${file.size} bytes)...`);
  const key = `uploads/${file.name}`;
  await putObject(bucket, key, file);
  $("sbFeatures").value = `s3://${bucket}/${key}`;
  $("sbUpload").value = "";
  formChanged();
  showState($("batchState"), `uploaded ${file.name} (${file.size} bytes) to s3://${bucket}/${key}`);
}
