/**
 * The create body of a Statistical Batch task (Sentinel Hub OpenAPI `BatchStatisticalRequest`: `input` =
 * `BatchStatisticalInput` {features: ObjectStorageInfoV2, data}, `aggregation` = the Statistical API's aggregation
 * with `evalscript` or `evalscriptReference`, `calculations`, `output` = `ObjectStorageOutputInfoV2` {s3:
 * S3BucketInfoTemplated}). The parts shared with the synchronous Statistical API are validated with its own zod
 * schema (src/stats/schema.ts), so both APIs accept and reject the same aggregations and calculations; descriptor
 * URLs are checked by src/buckets/descriptor.ts, as async's and batch's are.
 */
import { z } from "zod";
import { validate } from "../http/parse";
import { badRequest } from "../http/errors";
import { dataSourceSchema } from "../pipeline/input";
import { statisticalRequestSchema, type StatisticalRequest } from "../stats/schema";
import type { BucketDescriptor } from "../buckets";
import { objectStorageSchema } from "../buckets/descriptor";

const aggregationShape = z
  .object({
    evalscriptReference: objectStorageSchema("aggregation.evalscriptReference").optional(),
    evalscript: z.string().optional(),
  })
  .passthrough()
  .refine((a) => (a.evalscript === undefined) !== (a.evalscriptReference === undefined), {
    message: "aggregation needs exactly one of evalscript or evalscriptReference",
  });

export const batchStatisticalRequestSchema = z.object({
  input: z.object(
    {
      features: objectStorageSchema("input.features"),
      data: z.array(dataSourceSchema).min(1, "input.data needs at least one data source"),
    },
    { error: "input is required: {features: {s3: {url}}, data: [...]}" },
  ),
  aggregation: aggregationShape,
  calculations: z.unknown().optional(),
  output: objectStorageSchema("output"),
});
export type BatchStatisticalRequest = z.infer<typeof batchStatisticalRequestSchema>;

/** Stands in for a feature's geometry when the request is checked at creation (the features are read at analysis). */
const PLACEHOLDER_BOUNDS = { bbox: [0, 0, 1, 1] };
/** Stands in for a referenced evalscript at creation (scripts are validated at analysis, as Sentinel Hub does). */
const PLACEHOLDER_SCRIPT = "//VERSION=3 (evalscriptReference)";

/**
 * The synchronous Statistical request one feature of the task runs: the task's data, aggregation (with the
 * evalscript text `evalscript`) and calculations over `bounds` (the feature's geometry and CRS).
 * @throws ApiError 400 (the sync API's zod messages) when the aggregation or calculations are invalid.
 */
export function featureRequest(req: BatchStatisticalRequest, bounds: unknown, evalscript: string): StatisticalRequest {
  const { evalscriptReference: _ref, ...aggregation } = req.aggregation;
  const body = {
    input: { bounds, data: req.input.data },
    aggregation: { ...aggregation, evalscript },
    calculations: req.calculations,
  };
  return validate(statisticalRequestSchema, body, "statistical batch request");
}

/**
 * Validates a create body: its own members, then (through {@link featureRequest}) the aggregation and
 * calculations against the sync API's schema, and the output template.
 * @throws ApiError 400 naming the first problem.
 */
export function parseBatchStatisticalRequest(body: unknown): BatchStatisticalRequest {
  const req = validate(batchStatisticalRequestSchema, body, "statistical batch request");
  featureRequest(req, PLACEHOLDER_BOUNDS, req.aggregation.evalscript ?? PLACEHOLDER_SCRIPT);
  checkOutputTemplate(req.output.s3.url);
  return req;
}

const PLACEHOLDER = /<[A-Z_]+>/g;
const KNOWN = new Set(["<REQUEST_ID>", "<ID>", "<IDENTIFIER>"]);

/** True when the output URL is a template (has a placeholder) rather than a folder. */
const isTemplate = (url: string): boolean => /<[A-Z_]+>/.test(url);

/** @throws ApiError 400 for unknown placeholders or a template without `<ID>` or `<IDENTIFIER>`. */
function checkOutputTemplate(url: string): void {
  if (!isTemplate(url)) return;
  const unknown = (url.match(PLACEHOLDER) ?? []).filter((p) => !KNOWN.has(p));
  if (unknown.length)
    throw badRequest(`output.s3.url has unknown placeholder ${unknown[0]}; use <REQUEST_ID>, <ID> or <IDENTIFIER>.`);
  if (!url.includes("<ID>") && !url.includes("<IDENTIFIER>"))
    throw badRequest(
      "output.s3.url must contain <ID> or <IDENTIFIER> so that every feature gets its own file, e.g. s3://bucket/folder/<ID>.json.",
    );
}

/**
 * The object-storage descriptor of one feature's result: a folder URL `s3://b/f` means `s3://b/f/<REQUEST_ID>/<ID>.json`
 * (OpenAPI S3BucketInfoTemplated); placeholders are replaced by the task id, the feature's id and its identifier
 * (the id when the GeoPackage has no identifier). Credentials are kept.
 */
export function featureOutput(
  output: BucketDescriptor,
  taskId: string,
  feature: { id: number; identifier?: string | null },
): BucketDescriptor {
  const template = isTemplate(output.url) ? output.url : `${output.url.replace(/\/+$/, "")}/<REQUEST_ID>/<ID>.json`;
  const values: Record<string, string> = {
    "<REQUEST_ID>": taskId,
    "<ID>": String(feature.id),
    "<IDENTIFIER>": feature.identifier ?? String(feature.id),
  };
  return { ...output, url: template.replace(PLACEHOLDER, (p) => values[p] ?? p) };
}
