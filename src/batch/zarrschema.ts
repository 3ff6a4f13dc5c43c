/**
 * zod schema of Batch Processing v2's ZarrOutput (Sentinel Hub OpenAPI `BatchV2ZarrOutput`, `BatchV2ZarrOutputGroup`,
 * `BatchV2ZarrOutputArrayParameters`, `BatchV2ArrayOverride`): one Zarr v2 group at `delivery` (`<requestId>` may be
 * used), one array per process response (responses of format `zarr/array`, single-band outputs), parameters from
 * `arrayParameters` with per-array `arrayOverrides`.
 *
 * EO Edge differences (answered with a 400 naming them): compressors are `null` (raw), `zlib` and `gzip` (no blosc:
 * workerd compiles no WebAssembly at run time); an omitted compressor means zlib level 5 (Sentinel Hub's default is
 * blosc/lz4). Only `origin: "topLeft"` is offered.
 */
import { z } from "zod";
import { objectStorageSchema } from "../buckets/descriptor";

/** Zarr v2 dtypes Sentinel Hub allows for output arrays. */
export const ZARR_DTYPES = ["|u1", "|i1", "<u2", ">u2", "<i2", ">i2", "<f4", ">f4", "<f8", ">f8"] as const;
export type ZarrDtype = (typeof ZARR_DTYPES)[number];

/** A compressor of the chunks (numcodecs ids): null = raw bytes. */
export const compressorSchema = z
  .object({ id: z.string(), level: z.number().int().min(0).max(9).default(5) })
  .refine(
    (c) => c.id === "zlib" || c.id === "gzip",
    "compressor.id: EO Edge writes zlib or gzip (or null for raw chunks); blosc is not available",
  )
  .transform((c) => ({ id: c.id as "zlib" | "gzip", level: c.level }))
  .nullable();
export type ZarrCompressor = z.infer<typeof compressorSchema>;

/** The compressor of arrays that name none. */
export const DEFAULT_COMPRESSOR: ZarrCompressor = { id: "zlib", level: 5 };

const parameterFields = {
  dtype: z.enum(ZARR_DTYPES, { error: `dtype must be one of ${ZARR_DTYPES.join(", ")}` }),
  order: z.literal("C", { error: 'order: only "C" (row-major) is supported' }),
  chunks: z
    .array(z.number().int().positive())
    .length(3, "chunks is [1, chunkHeight, chunkWidth]")
    .refine((c) => c[0] === 1, "chunks[0] (time) must be 1"),
  fill_value: z.number(),
  compressor: compressorSchema,
};

/** `arrayParameters` (every field optional here; the merge with an override must give dtype, chunks, fill_value). */
export const arrayParametersSchema = z.object(parameterFields).partial().passthrough();
const overrideSchema = arrayParametersSchema.extend({ customAttributes: z.record(z.string(), z.unknown()).optional() });

/** Complete parameters of one output array. */
export const fullParametersSchema = z.object({
  ...parameterFields,
  order: parameterFields.order.default("C"),
  compressor: compressorSchema.default(DEFAULT_COMPRESSOR),
});
export type ZarrArrayParameters = z.infer<typeof fullParametersSchema> & { customAttributes?: Record<string, unknown> };

export const zarrOutputSchema = z
  .object({
    type: z.literal("zarr"),
    delivery: objectStorageSchema("output.delivery"),
    group: z
      .object({
        zarr_format: z.literal(2, { error: "group.zarr_format: only Zarr version 2 is supported" }),
        coordinates: z
          .object({
            origin: z
              .literal("topLeft", { error: 'group.coordinates.origin: EO Edge writes "topLeft" only' })
              .optional(),
          })
          .passthrough()
          .optional(),
        customAttributes: z.record(z.string(), z.unknown()).optional(),
      })
      .passthrough(),
    arrayParameters: arrayParametersSchema.optional(),
    /** sentinelhub-py 3.11.5's spelling (`zarr_output(array_parameters=...)` writes it): read as arrayParameters. */
    arrayParameter: arrayParametersSchema.optional(),
    arrayOverrides: z.record(z.string(), overrideSchema).optional(),
  })
  .passthrough()
  .refine((o) => !(o.arrayParameters && o.arrayParameter), {
    message: "give arrayParameters or arrayParameter (sentinelhub-py's spelling of it), not both",
    path: ["arrayParameter"],
  })
  .transform(({ arrayParameter, ...o }): typeof o & Record<string, unknown> => ({
    ...o,
    arrayParameters: o.arrayParameters ?? arrayParameter,
  }));
export type ZarrOutput = z.infer<typeof zarrOutputSchema>;

/**
 * The parameters of output array `name` (arrayParameters overridden by arrayOverrides[name]).
 * @returns the parameters, or a message naming what is missing or wrong.
 */
export function arrayParameters(out: ZarrOutput, name: string): ZarrArrayParameters | string {
  const { customAttributes, ...override } = out.arrayOverrides?.[name] ?? {};
  const parsed = fullParametersSchema.safeParse({ ...out.arrayParameters, ...override });
  if (!parsed.success)
    return `output array ${name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "parameters"}: ${i.message}`).join("; ")}`;
  return {
    ...parsed.data,
    ...(customAttributes ? { customAttributes: customAttributes as Record<string, unknown> } : {}),
  };
}
