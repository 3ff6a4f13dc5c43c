/**
 * The files EO Edge writes next to an async request's outputs (same delivery template, see ./delivery.ts):
 * - `request.json`: a copy of the request, written at submission and updated when it finishes, as Sentinel Hub
 *   keeps one ("a copy of your Async API request is stored in your object storage; after processing it is updated
 *   with the cost", docs.sentinel-hub.com/api/latest/api/async-process). Sentinel Hub does not document its
 *   fields; EO Edge writes `{id, status: RUNNING | DONE | FAILED, created, finished?, processingUnits?, error?,
 *   request}` with `accessKey` / `secretAccessKey` removed from the request.
 * - `error.json` after a failure: the error envelope `{error: {status, reason, message, code, errors}}` the
 *   synchronous Processing API would have answered with (Sentinel Hub does not document what it leaves on failure).
 */
import type { Env } from "../env";
import { renderError } from "../http/errors";
import { encodeJson } from "../raster/encode";
import { BucketAccessDenied } from "../buckets";
import { deliveryTarget } from "./delivery";
import type { AsyncRecord } from "./schema";

const JSON_TYPE = "application/json";

/** A descriptor without its secrets. */
function redacted<T extends object | undefined>(storage: T): T {
  if (!storage || !("s3" in storage)) return storage;
  const { accessKey: _a, secretAccessKey: _s, ...s3 } = (storage as { s3: Record<string, unknown> }).s3;
  return { ...storage, s3 } as T;
}

/** Writes one JSON file of a request (`request.json`, `error.json`). */
async function putJson(env: Env, record: AsyncRecord, file: string, value: unknown): Promise<void> {
  const { store, key } = await deliveryTarget(env, record.account, record.request.output.delivery.s3, record.id, file);
  await store.put(key, encodeJson(value), { contentType: JSON_TYPE });
}

/** Writes (or rewrites) `request.json` with the request's status and `extra` fields (finished, processingUnits, error). */
export async function writeRequestCopy(
  env: Env,
  record: AsyncRecord,
  status: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const { request } = record;
  const copy = {
    ...request,
    output: { ...request.output, delivery: redacted(request.output.delivery) },
    evalscriptReference: redacted(request.evalscriptReference),
  };
  await putJson(env, record, "request.json", {
    id: record.id,
    status,
    created: record.created,
    ...extra,
    request: copy,
  });
}

/** The error envelope of any failure, as the HTTP API renders it (4xx for client errors, a generic 500 otherwise). */
export async function errorEnvelope(error: unknown): Promise<{ error: Record<string, unknown> }> {
  return (await renderError(error).json()) as { error: Record<string, unknown> };
}

/**
 * Writes `error.json` and marks `request.json` FAILED; nothing when the account may no longer use the delivery
 * bucket (its owner revoked the grant: the failure is then only in the request's status).
 */
export async function writeFailure(env: Env, record: AsyncRecord, error: unknown): Promise<void> {
  const envelope = await errorEnvelope(error);
  try {
    await putJson(env, record, "error.json", envelope);
    await writeRequestCopy(env, record, "FAILED", { finished: new Date().toISOString(), error: envelope.error });
  } catch (e) {
    if (!(e instanceof BucketAccessDenied)) throw e;
  }
}
