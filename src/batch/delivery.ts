/**
 * Where a batch task writes its outputs (OpenAPI `BatchV2RasterOutput.delivery`): a plain `s3://bucket/prefix`
 * means the template `s3://bucket/prefix/<requestId>/<tileName>/<outputId>.<format>`; a templated URL may use
 * `<requestId>`, `<tileName>`, `<outputId>` and `<format>` (the file extension: `tiff`, or `json` for userdata),
 * must contain `<tileName>`, and `<outputId>` when there are several outputs.
 */
import type { Env } from "../env";
import { requireObject, resolveBucket, type BucketDescriptor, type ObjectStore } from "../buckets";
import { badRequest } from "../http/errors";
import type { BatchRequest, BatchResponse } from "./schema";

const PLACEHOLDER = /<(requestId|tileName|outputId|format)>/g;

/** The file extension `<format>` stands for. */
export const formatExtension = (r: BatchResponse): string => (r.format.type === "application/json" ? "json" : "tiff");

/** The full template of a delivery URL (the default layout appended when the URL has no placeholder). */
export function deliveryTemplate(url: string): string {
  return /<[A-Za-z]+>/.test(url) ? url : `${url.replace(/\/+$/, "")}/<requestId>/<tileName>/<outputId>.<format>`;
}

/**
 * Checks a delivery URL against the outputs it receives.
 * @throws ApiError 400 for an unknown placeholder, no `<tileName>`, or several outputs without `<outputId>`.
 */
export function checkDelivery(url: string, responses: BatchResponse[]): void {
  const template = deliveryTemplate(url);
  const unknown = [...template.matchAll(/<([^>]*)>/g)]
    .map((m) => m[1]!)
    .filter((p) => !["requestId", "tileName", "outputId", "format"].includes(p));
  if (unknown.length)
    throw badRequest(
      `output.delivery.s3.url has unknown placeholder(s) <${unknown.join(">, <")}>; use <requestId>, <tileName>, <outputId>, <format>.`,
    );
  if (!template.includes("<tileName>"))
    throw badRequest("output.delivery.s3.url must contain <tileName> so that every tile gets its own files.");
  if (responses.length > 1 && !template.includes("<outputId>"))
    throw badRequest("output.delivery.s3.url must contain <outputId> when the request has several outputs.");
}

/** The object key (inside the delivery bucket's location) of one output of one tile. */
export function outputUrl(
  url: string,
  values: { requestId: string; tileName: string; response: BatchResponse },
): string {
  const v: Record<string, string> = {
    requestId: values.requestId,
    tileName: values.tileName,
    outputId: values.response.identifier,
    format: formatExtension(values.response),
  };
  return deliveryTemplate(url).replace(PLACEHOLDER, (_, k: string) => v[k]!);
}

/**
 * The store and object key of an object URL (`s3://bucket/path/file`), with the delivery's credentials, used by
 * `account` (the task's, from its record).
 * @throws EngineError invalid-argument for a bad bucket URL; BucketAccessDenied (403) for a bucket `account` may
 *   not use.
 */
export async function bucketObject(
  env: Env,
  account: string,
  delivery: BucketDescriptor,
  url: string,
): Promise<{ store: ObjectStore; key: string }> {
  const at = await resolveBucket(env, account, { ...delivery, url });
  return { store: at.store, key: at.prefix };
}

/**
 * Checks at creation that `account` may use every bucket the request names: the delivery's (raster or Zarr) and
 * the GeoPackage input's, whose object must exist (as statistical batch checks it), claiming unowned ones; the
 * queue-time work checks again with the task's account.
 * @throws EngineError invalid-argument for a bad bucket URL or a missing GeoPackage; BucketAccessDenied (403) for
 *   another account's bucket.
 */
export async function checkBuckets(env: Env, account: string, req: BatchRequest): Promise<void> {
  await resolveBucket(env, account, req.output.delivery.s3);
  if (req.input.type === "geopackage")
    await requireObject(env, account, req.input.features.s3, "input.features", "GeoPackage");
}
