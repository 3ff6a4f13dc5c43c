/**
 * zod schema of an Async Processing request (Sentinel Hub OpenAPI `AsyncProcessRequest`): the Processing
 * `input` (src/pipeline/input.ts), `output` (`AsyncProcessRequestOutput`: width/height 1..10000 or resx/resy,
 * responses, `delivery.s3` = `AsyncProcessS3BucketInfoTemplated`) and `evalscript` or `evalscriptReference`
 * (`ObjectStorageInfoV2` with `s3`). Google Cloud Storage (`gs`) descriptors are refused with a 400. Descriptor URLs
 * and response identifiers (file names in the delivery) are checked by src/buckets/descriptor.ts.
 */
import { z } from "zod";
import { inputSchema } from "../pipeline/input";
import { ONE_OUTPUT_SIZE, oneOutputSize, outputGridShape, outputResponseSchema } from "../pipeline/output";
import { MAX_ASYNC_SIZE } from "../pipeline/plan";
import { identifierSchema, objectStorageSchema } from "../buckets/descriptor";

const size = z
  .number()
  .int("must be an integer")
  .min(1, "must be at least 1 pixel")
  .max(MAX_ASYNC_SIZE, `must be at most ${MAX_ASYNC_SIZE} pixels`);

export const asyncOutputSchema = z
  .object({
    ...outputGridShape(size),
    responses: z
      .array(outputResponseSchema.extend({ identifier: identifierSchema }))
      .min(1)
      .optional(),
    delivery: objectStorageSchema("output.delivery"),
  })
  .passthrough()
  .refine(oneOutputSize, ONE_OUTPUT_SIZE);

export const asyncRequestSchema = z
  .object({
    input: inputSchema,
    output: asyncOutputSchema,
    evalscript: z.string().min(1, "evalscript is empty").optional(),
    evalscriptReference: objectStorageSchema("evalscriptReference").optional(),
  })
  .refine((r) => (r.evalscript === undefined) !== (r.evalscriptReference === undefined), {
    message: "give exactly one of evalscript (the script text) and evalscriptReference (an s3 object holding it)",
  });
export type AsyncRequest = z.infer<typeof asyncRequestSchema>;

/** A request as its task keeps it: id, account, creation time and the request with its evalscript filled in. */
export interface AsyncRecord {
  id: string;
  account: string;
  /** ISO 8601 UTC. */
  created: string;
  /** Location id that accepted it; it is rendered as that location. */
  location?: string;
  request: AsyncRequest & { evalscript: string };
}
