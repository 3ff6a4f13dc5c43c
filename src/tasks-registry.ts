/**
 * Registration of the task engine's plug-ins and of every queue kind (a registration point, like ./routes.ts: it may
 * import every area; src/tasks imports none). Each plug-in (src/tasks/plugin.ts) is bound to its Durable Object class
 * here — the classes wrangler.toml binds (ASYNC_TASKS, BATCH_TASKS, STATBATCH_TASKS, IMPORT_TASKS), exported by ./index.ts — and to
 * the queue consumer's ENGINE_KIND handler.
 */
import { TaskEngine } from "./tasks/engine";
import { engineKind } from "./tasks/work";
import { ENGINE_KIND } from "./tasks/messages";
import { QueueRouter } from "./tasks/queue";
import { PROBE_KIND, probeKind } from "./tasks/probe";
import type { TaskPlugin } from "./tasks/plugin";
import { statbatchPlugin } from "./statbatch/plugin";
import { batchPlugin } from "./batch/plugin";
import { asyncPlugin } from "./async/plugin";
import { BYOC_INGEST_KIND, byocIngest, byocIngestDead, ingestUnit } from "./byoc/ingest";
import { ZARR_INGEST_KIND, zarrIngestDead, zarrIngestMessage, zarrUnit } from "./zarr/ingest";
import { importPlugin } from "./dataimport/plugin";
import { ARCHIVE_KIND, archiveDead, archiveMessage } from "./dataimport/archives";

/** The engine's plug-ins. */
export const PLUGINS: readonly TaskPlugin[] = [asyncPlugin, batchPlugin, statbatchPlugin, importPlugin];

/** Async Processing requests (ASYNC_TASKS). */
export class AsyncTask extends TaskEngine {
  protected readonly plugin = asyncPlugin;
}

/** Batch Processing v2 tasks (BATCH_TASKS). */
export class BatchTask extends TaskEngine {
  protected readonly plugin = batchPlugin;
}

/** Statistical Batch tasks (STATBATCH_TASKS). */
export class StatisticalBatchTask extends TaskEngine {
  protected readonly plugin = statbatchPlugin;
}

/** Third-party import orders and subscriptions (IMPORT_TASKS): their deliveries are the units. */
export class ImportTask extends TaskEngine {
  protected readonly plugin = importPlugin;
}

/** The consumer the Worker's `queue()` entry uses. Third-party delivery archives are a queue kind of their own. */
export const queueRouter = new QueueRouter()
  .on(PROBE_KIND, ...probeKind)
  .on(ENGINE_KIND, ...engineKind(PLUGINS))
  .on(BYOC_INGEST_KIND, byocIngest, { onDead: byocIngestDead, lease: ingestUnit })
  .on(ZARR_INGEST_KIND, zarrIngestMessage, { onDead: zarrIngestDead, lease: zarrUnit })
  .on(ARCHIVE_KIND, archiveMessage, { onDead: archiveDead });
