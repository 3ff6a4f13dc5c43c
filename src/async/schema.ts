/**
 * zod schema of an Async Processing request (Sentinel Hub OpenAPI `AsyncProcessRequest`): the Processing
 * `input` (src/pipeline/input.ts), `output` (`AsyncProcessRequestOutput`: width/height 1..10000 or resx/resy,
 * responses, `delivery.s3` = `AsyncProcessS3BucketInfoTemplated`) and `evalscript` or `evalscriptReference`
 * (`ObjectStorageInfoV2` with `s3`). Google Cloud Storage (`gs`) descriptors are refused with a 400.
 */
import { z } from "zod";
import { inputSchema } from "../pipeline/input";
import { ONE_OUTPUT_SIZE, oneOutputSize, outputGridShape } from "../pipeline/output";
import { MAX_ASYNC_SIZE } from "../pipeline/plan";

const size = z.number().int("must be an integer").min(1, "must be at least 1 pixel").max(MAX_ASYNC_SIZE, `must be at most ${MAX_ASYNC_SIZE} pixels`);

/** An S3 object-storage descriptor (`S3BucketInfo`); `url` = `s3://<bucket>/<prefix or key>`. */
export const s3Schema = z
  .object({
    url: z.string({ error: "s3.url is required: s3://<bucket>/<prefix>" }).min(1, "s3.url is empty"),
    accessKey: z.string().optional(),
    secretAccessKey: z.string().optional(),
    region: z.string().optional(),
    iamRoleARN: z.string().optional(),
  })
  .passthrough();

/** `{s3: {...}}`; a `gs` descriptor alone is refused (no Google Cloud Storage here). */
const storageSchema = (what: string) =>
  z.object({ s3: s3Schema }, { error: `${what} must be an object with an 's3' descriptor ({"s3": {"url": "s3://<bucket>/<path>"}})` }).passthrough();

export const asyncOutputSchema = z
  .object({ ...outputGridShape(size), delivery: storageSchema("output.delivery") })
  .passthrough()
  .refine(oneOutputSize, ONE_OUTPUT_SIZE);

export const asyncRequestSchema = z
  .object({
    input: inputSchema,
    output: asyncOutputSchema,
    evalscript: z.string().min(1, "evalscript is empty").optional(),
    evalscriptReference: storageSchema("evalscriptReference").optional(),
  })
  .refine((r) => (r.evalscript === undefined) !== (r.evalscriptReference === undefined), {
    message: "give exactly one of evalscript (the script text) and evalscriptReference (an s3 object holding it)",
  });
export type AsyncRequest = z.infer<typeof asyncRequestSchema>;
