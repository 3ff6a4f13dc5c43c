/**
 * zod schema of a request's `input` (bounds and data sources), shared by every API that runs the pipeline
 * (Processing, Statistical; spec "Process request", Sentinel Hub OpenAPI `ProcessRequestInput`).
 * Unknown members are kept (passthrough) so collection-specific options (e.g. S1 backCoeff) do not fail.
 */
import { z } from "zod";
import { countPositions, MAX_GEOMETRY_VERTICES, tooManyVertices } from "../raster/grid/vertices";

const finite = z.number().finite();
const position = z.array(finite).min(2).max(3);
const ring = z.array(position).min(4, "a linear ring needs at least 4 positions");

export const polygonSchema = z.object({ type: z.literal("Polygon"), coordinates: z.array(ring).min(1) });
export const multiPolygonSchema = z.object({
  type: z.literal("MultiPolygon"),
  coordinates: z.array(z.array(ring).min(1)).min(1),
});
export const areaGeometrySchema = z
  .discriminatedUnion("type", [polygonSchema, multiPolygonSchema], {
    error: "geometry must be a GeoJSON Polygon or MultiPolygon",
  })
  .check((ctx) => {
    const n = countPositions(ctx.value.coordinates);
    if (n > MAX_GEOMETRY_VERTICES) ctx.issues.push({ code: "custom", message: tooManyVertices(n), input: ctx.value });
  });
export type AreaGeometry = z.infer<typeof areaGeometrySchema>;

const dateTime = z
  .string()
  .refine((s) => Number.isFinite(Date.parse(s)), "must be an ISO 8601 date-time, e.g. 2020-02-19T00:00:00Z");

export const timeRangeSchema = z
  .object({ from: dateTime.optional(), to: dateTime.optional() })
  .refine(
    (t) => !t.from || !t.to || Date.parse(t.from) <= Date.parse(t.to),
    "timeRange.from must not be after timeRange.to",
  );

export const resamplingSchema = z.enum(["NEAREST", "BILINEAR", "BICUBIC"]);

const cloudCoverage = z
  .union([finite, z.string().regex(/^\s*-?\d+(\.\d+)?\s*$/, "maxCloudCoverage must be a number 0..100")])
  .transform((v) => Number(v))
  .refine((v) => v >= 0 && v <= 100, "maxCloudCoverage must be between 0 and 100");

export const dataFilterSchema = z
  .object({
    timeRange: timeRangeSchema.optional(),
    mosaickingOrder: z.enum(["mostRecent", "leastRecent", "leastCC"]).optional(),
    maxCloudCoverage: cloudCoverage.optional(),
    previewMode: z.enum(["DETAIL", "PREVIEW", "EXTENDED_PREVIEW"]).optional(),
  })
  .passthrough();

export const processingSchema = z
  .object({
    upsampling: resamplingSchema.optional(),
    downsampling: resamplingSchema.optional(),
    harmonizeValues: z.boolean().optional(),
  })
  .passthrough();

export const dataSourceSchema = z
  .object({
    type: z.string().min(1, "input.data[].type names the data collection, e.g. sentinel-2-l2a"),
    id: z.string().optional(),
    dataFilter: dataFilterSchema.optional(),
    processing: processingSchema.optional(),
  })
  .passthrough();
export type DataSourceRequest = z.infer<typeof dataSourceSchema>;

export const boundsSchema = z
  .object({
    bbox: z.array(finite).length(4, "bbox must have 4 numbers: minX, minY, maxX, maxY").optional(),
    geometry: areaGeometrySchema.optional(),
    properties: z.object({ crs: z.string().optional() }).passthrough().optional(),
  })
  .refine((b) => b.bbox || b.geometry, "input.bounds needs a bbox or a geometry");

export const inputSchema = z.object({
  bounds: boundsSchema,
  data: z.array(dataSourceSchema).min(1, "input.data needs at least one data source"),
});
export type ProcessInput = z.infer<typeof inputSchema>;
