/** Bindings and variables of the EO Edge Worker (see wrangler.toml). */
import type { TaskObject } from "./tasks/task-object";
import type { TaskMessage } from "./tasks/queue";

export interface Env {
  /** D1: accounts, OAuth clients, signing keys, collections and STAC items. */
  DB: D1Database;
  /** R2: scene files (COGs), keyed by their path under data/ (e.g. `sentinel-2-l2a/<scene>/B04.tif`). */
  DATA: R2Bucket;
  /** Worker Loader: runs evalscripts in sandboxed isolates. */
  LOADER: WorkerLoader;
  /** Durable Objects: one task (state machine, counters, processed message ids) per name; see src/tasks/. */
  TASKS: DurableObjectNamespace<TaskObject>;
  /** Queue producer of task messages `{kind, ...}`, consumed by the Worker's `queue()` (src/tasks/kinds.ts). */
  TASK_QUEUE: Queue<TaskMessage>;
  /** Location id of this deployment (`local` in development). */
  LOCATION_ID: string;
  /** Public base URL (http(s), no trailing slash needed): token issuer and links; see src/http/base.ts. */
  PUBLIC_BASE_URL: string;
  /** Production: the token signing key as an Ed25519 private JWK (JSON string), set with `wrangler secret put`. */
  JWT_PRIVATE_JWK?: string;
}
