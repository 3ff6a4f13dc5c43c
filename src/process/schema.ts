/**
 * zod schema of the Processing API request (spec "Process request"; Sentinel Hub OpenAPI `ProcessRequest`): the
 * shared `input` (src/pipeline/input.ts), `output` and `evalscript`.
 * Unknown members are kept (passthrough) so collection-specific options (e.g. S1 backCoeff) do not fail.
 */
import { z } from "zod";
import { inputSchema } from "../pipeline/input";
import { MAX_SYNC_SIZE } from "../pipeline/plan";
import { ONE_OUTPUT_SIZE, oneOutputSize, outputGridShape, outputResponseSchema } from "../pipeline/output";

const size = z
  .number()
  .positive()
  .max(MAX_SYNC_SIZE, `must be at most ${MAX_SYNC_SIZE} pixels`)
  .transform((v) => Math.round(v));

export const responseSchema = outputResponseSchema;
export type ResponseRequest = z.infer<typeof responseSchema>;

export const outputSchema = z.object(outputGridShape(size)).passthrough().refine(oneOutputSize, ONE_OUTPUT_SIZE);
export type OutputRequest = z.infer<typeof outputSchema>;

export const processRequestSchema = z.object({
  input: inputSchema,
  output: outputSchema.optional(),
  evalscript: z.string({ error: "evalscript is required: a //VERSION=3 script" }).min(1, "evalscript is empty"),
});
export type ProcessRequest = z.infer<typeof processRequestSchema>;
