/**
 * The message kinds the queue consumer knows, and `probe`, the diagnostic kind: it records the message on
 * the TaskObject named `task` (counter `probes` + 1, once per message id), or with `fail: true` fails every
 * attempt (retried at once) until the dead-letter queue hands it to onDead (counter `dead` + 1). With `units`
 * and `unit` it runs as leased unit `unit` of the UnitObject named `units` (./lease.ts). Tests and a running
 * server check the queue → consumer → Durable Object path, the dead-letter path and the lease watchdog with it.
 * The task APIs register their kinds here.
 */
import type { Env } from "../env";
import { unwrap } from "./machine";
import { QueueRouter, type TaskMessage } from "./queue";
import { unitsStub, type UnitRef } from "./runner";
import { ANALYSE_KIND, TILE_KIND } from "../batch/messages";
import { analyseMessage } from "../batch/analyse";
import { deadTile, tileMessage } from "../batch/execute";
import { batchAnalysisUnit, batchTileUnit } from "../batch/stub";
import {
  analysisUnit, featureUnit, STATBATCH_ANALYSE_KIND, STATBATCH_FEATURE_KIND, statbatchAnalyse, statbatchDeadAnalysis, statbatchDeadFeature, statbatchFeature,
} from "../statbatch/run";
import { ASYNC_KIND, asyncUnit, deadAsyncMessage, runAsyncMessage } from "../async/queue";
import { BYOC_INGEST_KIND, byocIngest, byocIngestDead, ingestUnit } from "../byoc/ingest";
import { ZARR_INGEST_KIND, zarrIngestDead, zarrIngestMessage, zarrUnit } from "../zarr/ingest";

export const PROBE_KIND = "probe";

/** A probe message: `{kind: "probe", task: "<TaskObject name>", fail?: true, units?: "<UnitObject name>", unit?: "<unit id>"}`. */
export interface ProbeMessage extends TaskMessage {
  kind: typeof PROBE_KIND;
  task: string;
  fail?: boolean;
  units?: string;
  unit?: string;
}

/** The TaskObject stub of a task name. */
export const taskStub = (env: Env, name: string) => env.TASKS.get(env.TASKS.idFromName(name));

/** The probe's task name. @throws Error when it is not a non-empty string (the message is retried, then dead). */
function probeTask(body: TaskMessage): string {
  if (typeof body.task !== "string" || body.task === "") throw new Error("probe message without a task name");
  return body.task;
}

/** @throws Error when asked to fail or without a task name. */
async function probe(body: TaskMessage, env: Env, message: Message<unknown>): Promise<void> {
  const task = probeTask(body);
  if (body.fail === true) throw new Error("probe asked to fail");
  unwrap(await taskStub(env, task).applyMessage(message.id, { counters: { probes: 1 } }));
}

/** A dead probe: counter `dead` + 1 on its task, once per dead letter. */
async function deadProbe(body: TaskMessage, env: Env, message: Message<unknown>): Promise<void> {
  unwrap(await taskStub(env, probeTask(body)).applyMessage(`dead:${message.id}`, { counters: { dead: 1 } }));
}

/** The leased unit of a probe with `units` and `unit`. */
const probeUnit = (body: TaskMessage, env: Env): UnitRef | null =>
  typeof body.units === "string" && typeof body.unit === "string" ? { stub: unitsStub(env, body.units), unit: body.unit } : null;

/** The consumer the Worker's `queue()` entry uses. */
export const queueRouter = new QueueRouter()
  .on(PROBE_KIND, probe, { onDead: deadProbe, retryDelay: () => 0, lease: probeUnit })
  .on(ANALYSE_KIND, analyseMessage, { lease: batchAnalysisUnit })
  .on(TILE_KIND, tileMessage, { onDead: deadTile, lease: batchTileUnit })
  .on(STATBATCH_ANALYSE_KIND, statbatchAnalyse, { onDead: statbatchDeadAnalysis, lease: analysisUnit })
  .on(STATBATCH_FEATURE_KIND, statbatchFeature, { onDead: statbatchDeadFeature, lease: featureUnit })
  .on(ASYNC_KIND, runAsyncMessage, { onDead: deadAsyncMessage, lease: asyncUnit })
  .on(BYOC_INGEST_KIND, byocIngest, { onDead: byocIngestDead, lease: ingestUnit })
  .on(ZARR_INGEST_KIND, zarrIngestMessage, { onDead: zarrIngestDead, lease: zarrUnit });
