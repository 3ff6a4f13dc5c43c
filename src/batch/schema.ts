/**
 * zod schemas of Batch Processing v2 requests (Sentinel Hub OpenAPI `BatchV2ProcessRequest`,
 * `BatchV2ProcessRequestUpdatePayload`): `processRequest` (a Process request whose responses are TIFF rasters or
 * `userdata` JSON), `input` (TilingGridInput or GeoPackageInput), `output` (RasterOutput, or ZarrOutput: ./zarrschema.ts), `description`, `instanceType`. Unknown members are kept (passthrough).
 * Descriptor URLs and response identifiers (file names of the outputs) are checked by src/buckets/descriptor.ts.
 */
import { z } from "zod";
import { dataSourceSchema, boundsSchema } from "../pipeline/input";
import { OVERVIEW_RESAMPLING } from "../raster/encode/cogoverviews";
import { zarrOutputSchema } from "./zarrschema";
import { identifierSchema, objectStorageSchema } from "../buckets/descriptor";

const responseSchema = z
  .object({
    identifier: identifierSchema,
    format: z
      .object({
        type: z.enum(["image/tiff", "application/json", "zarr/array"], {
          error: "batch outputs are image/tiff rasters (or application/json for userdata, zarr/array with Zarr output)",
        }),
      })
      .passthrough(),
  })
  .passthrough();
export type BatchResponse = z.infer<typeof responseSchema>;

/** `processRequest`: input bounds (optional with a GeoPackage) and data, output responses, evalscript. */
export const batchProcessRequestSchema = z
  .object({
    input: z
      .object({
        bounds: boundsSchema.optional(),
        data: z.array(dataSourceSchema).min(1, "processRequest.input.data needs at least one data source"),
      })
      .passthrough(),
    output: z
      .object({ responses: z.array(responseSchema).min(1).optional() })
      .passthrough()
      .optional(),
    evalscript: z
      .string({ error: "processRequest.evalscript is required: a //VERSION=3 script" })
      .min(1, "processRequest.evalscript is empty"),
  })
  .passthrough();

export const tilingGridInputSchema = z
  .object({
    type: z.literal("tiling-grid"),
    id: z.number().int(),
    resolution: z.number().positive(),
    bufferX: z.number().int().min(0).max(32767).optional(),
    bufferY: z.number().int().min(0).max(32767).optional(),
  })
  .passthrough();
export type TilingGridInput = z.infer<typeof tilingGridInputSchema>;

export const geoPackageInputSchema = z
  .object({
    type: z.literal("geopackage"),
    features: objectStorageSchema("input.features"),
    defaults: z
      .object({
        width: z.number().int().min(1).max(3500).optional(),
        height: z.number().int().min(1).max(3500).optional(),
        resolution: z.number().positive().optional(),
      })
      .refine(
        (d) => !(d.resolution !== undefined && (d.width !== undefined || d.height !== undefined)),
        "defaults: set width and height, or resolution, not both",
      )
      .optional(),
  })
  .passthrough();
export type GeoPackageInput = z.infer<typeof geoPackageInputSchema>;

export const cogParametersSchema = z
  .object({
    overviewLevels: z.array(z.number().int().min(2)).optional(),
    overviewMinSize: z.number().int().min(1).optional(),
    resamplingAlgorithm: z
      .enum(OVERVIEW_RESAMPLING, {
        error: `cogParameters.resamplingAlgorithm: EO Edge offers ${OVERVIEW_RESAMPLING.join(", ")}`,
      })
      .optional(),
    blockxsize: z.number().int().min(16).multipleOf(16).optional(),
    blockysize: z.number().int().min(16).multipleOf(16).optional(),
    usePredictor: z.boolean().optional(),
  })
  .passthrough();

export const rasterOutputSchema = z
  .object({
    type: z.literal("raster"),
    delivery: objectStorageSchema("output.delivery"),
    overwrite: z.boolean().default(false),
    skipExisting: z.boolean().default(false),
    cogOutput: z.boolean().default(false),
    cogParameters: cogParametersSchema.optional(),
    createCollection: z.boolean().default(false),
    collectionId: z.string().optional(),
  })
  .passthrough();
export type RasterOutput = z.infer<typeof rasterOutputSchema>;

/**
 * `instanceType`: NORMAL or LARGE (the OpenAPI's enum), in any case: sentinelhub-py's BatchProcessClient sends its
 * default as "normal" (sentinelhub/api/batch/process.py); stored in the spec's upper case.
 */
const instanceTypeSchema = z.preprocess(
  (v) => (typeof v === "string" ? v.toUpperCase() : v),
  z.enum(["NORMAL", "LARGE"], { error: "instanceType must be NORMAL or LARGE (any case)" }),
);

export const batchRequestSchema = z
  .object({
    processRequest: batchProcessRequestSchema,
    input: z.discriminatedUnion("type", [tilingGridInputSchema, geoPackageInputSchema], {
      error: "input.type must be 'tiling-grid' or 'geopackage'",
    }),
    output: z.discriminatedUnion("type", [rasterOutputSchema, zarrOutputSchema], {
      error: "output.type must be 'raster' or 'zarr'",
    }),
    description: z.string().max(10_000).optional(),
    instanceType: instanceTypeSchema.optional(),
  })
  .passthrough();
export type BatchRequest = z.infer<typeof batchRequestSchema>;

export const updateSchema = z.object({ description: z.string().max(10_000).optional() }).passthrough();
