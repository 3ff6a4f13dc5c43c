/**
 * zod schema of the Processing API request (spec "Process request"; Sentinel Hub OpenAPI `ProcessRequest`): the
 * shared `input` (src/pipeline/input.ts), `output` and `evalscript`.
 * Unknown members are kept (passthrough) so collection-specific options (e.g. S1 backCoeff) do not fail.
 */
import { z } from "zod";
import { inputSchema } from "../pipeline/input";
import { MAX_SYNC_SIZE } from "../pipeline/plan";
import { outputResponseSchema } from "../pipeline/output";

const size = z.number().positive().max(MAX_SYNC_SIZE, `must be at most ${MAX_SYNC_SIZE} pixels`).transform((v) => Math.round(v));

export const responseSchema = outputResponseSchema;
export type ResponseRequest = z.infer<typeof responseSchema>;

export const outputSchema = z
  .object({
    width: size.optional(),
    height: size.optional(),
    resx: z.number().positive("resx must be > 0").optional(),
    resy: z.number().positive("resy must be > 0").optional(),
    responses: z.array(responseSchema).min(1).optional(),
  })
  .passthrough()
  .refine((o) => !((o.width !== undefined || o.height !== undefined) && (o.resx !== undefined || o.resy !== undefined)), {
    message: "set either width/height or resx/resy, not both",
  });
export type OutputRequest = z.infer<typeof outputSchema>;

export const processRequestSchema = z.object({
  input: inputSchema,
  output: outputSchema.optional(),
  evalscript: z.string({ error: "evalscript is required: a //VERSION=3 script" }).min(1, "evalscript is empty"),
});
export type ProcessRequest = z.infer<typeof processRequestSchema>;
