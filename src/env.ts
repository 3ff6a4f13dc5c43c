/**
 * Bindings and variables of the EO Edge Worker. `WorkerEnv` is generated from wrangler.toml by `npm run types`
 * (`wrangler types`, into worker-configuration.d.ts, committed; `npm run types:check` in CI says when it is out of
 * date); this adds what wrangler.toml cannot declare (secrets). The bindings:
 * - DB (D1): accounts, OAuth clients, signing keys, the collection registry and STAC items;
 * - DATA (R2): scene files (COGs), keyed by their path under data/ (e.g. `sentinel-2-l2a/<scene>/B04.tif`);
 * - LOADER (Worker Loader): runs evalscripts in sandboxed isolates;
 * - ASYNC_TASKS, BATCH_TASKS, STATBATCH_TASKS, IMPORT_TASKS (Durable Objects): one Async Processing request, Batch
 *   v2 task, Statistical Batch task or third-party order / subscription per name, each the task engine
 *   (src/tasks/engine.ts) with its area's plug-in (src/async, src/batch, src/statbatch, src/dataimport/plugin.ts);
 * - UNITS (Durable Objects): leased units of work without a task object of their own (BYOC and Zarr ingestion, one
 *   object per collection; src/tasks/unit-object.ts);
 * - RATE_LIMITER (Durable Objects): rate-limit buckets per account / OAuth client (src/ratelimit/);
 * - BUCKETS (R2): local user buckets of `s3://` descriptors, keys `<bucket>/<key>` (src/buckets/);
 * - TASK_QUEUE, HEAVY_QUEUE, INGEST_QUEUE (Queue producers): task messages `{kind, ...}` by weight (light: plans,
 *   features; heavy: tiles, async strips; ingest: BYOC tiles; src/tasks/runner.ts sendMessages), consumed by the
 *   Worker's `queue()` (src/tasks-registry.ts);
 * - LOCATION_ID: location id of this deployment (`local` in development);
 * - PUBLIC_BASE_URL: public base URL (http(s), no trailing slash needed): token issuer and links; see src/http/base.ts.
 */
export interface Env extends WorkerEnv {
  /**
   * Production: the first token signing key as an Ed25519 private JWK (JSON string), set with `wrangler secret put`
   * (`npm run deploy` makes one); keys rotated in later are sealed under it (src/auth/keys.ts).
   */
  JWT_PRIVATE_JWK?: string;
  /**
   * The operators' admin API (src/admin, `/api/v1/admin/...`): the bearer secret its calls must send, at least
   * ADMIN_TOKEN_MIN_CHARS characters; unset (or shorter), the admin API answers 404 (`npm run deploy` sets one).
   */
  ADMIN_TOKEN?: string;
  /** Optional: every location of the deployment family, JSON `[{id, url}, ...]`, primary first (src/locations/config.ts). */
  LOCATIONS?: string;
  /**
   * Benchmarks only: `off` skips the rate-limit middleware (src/ratelimit/middleware.ts) so `npm run bench` can
   * measure the limiter's cost (`wrangler dev --var RATE_LIMITS:off`); unset, or any other value, limits as usual.
   */
  RATE_LIMITS?: string;
  /**
   * Optional secrets: the operator's AWS keys for the requester-pays buckets of the upstream archive
   * (src/archive/access.ts); without them the collections stored there are not offered (docs/archives.md).
   */
  AWS_ACCESS_KEY_ID?: string;
  AWS_SECRET_ACCESS_KEY?: string;
  /** Optional R2 bucket: a read-through cache of upstream COG blocks (src/archive/bytes.ts). */
  ARCHIVE_CACHE?: R2Bucket;
}
