/**
 * Request shapes of the Configuration API's WMS instances and layers (Sentinel Hub `/configuration/v1/wms/...`,
 * as sentinelhub-js reads them in fetchLayerParamsFromConfigurationService: a layer has `id`, `title`,
 * `description`, `styles[{name, description, evalScript}]`, `defaultStyleName`, `orderHint` and
 * `datasourceDefaults` {type, mosaickingOrder, maxCloudCoverage}). EO Edge adds `datasourceDefaults.timeRange`
 * ({from, to}, ISO 8601): the default TIME of the layer's GetMap.
 */
import { z } from "zod";

/** Layer ids are WMS layer names: letters, digits, `_`, `-`, `.` (no spaces: they travel in LAYERS=a,b). */
const layerId = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a layer id is 1-64 letters, digits, '_', '-' or '.'");
const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "an ISO 8601 date-time");

export const styleSchema = z.object({
  name: z.string().min(1).max(64),
  description: z.string().max(1000).optional(),
  evalScript: z.string().min(1).max(100_000),
});

export const datasourceDefaultsSchema = z.object({
  /** A data collection type (sentinel-2-l2a / S2L2A, byoc-<id>, ...): checked against the registry when stored (routes.ts). */
  type: z.string().min(1, "a data collection type, e.g. sentinel-2-l2a or S2L2A"),
  timeRange: z.object({ from: isoTime.optional(), to: isoTime.optional() }).optional(),
  mosaickingOrder: z.enum(["mostRecent", "leastRecent", "leastCC"]).optional(),
  maxCloudCoverage: z.number().min(0).max(100).optional(),
  upsampling: z.enum(["NEAREST", "BILINEAR", "BICUBIC"]).optional(),
  downsampling: z.enum(["NEAREST", "BILINEAR", "BICUBIC"]).optional(),
});

export const layerSchema = z
  .object({
    id: layerId,
    title: z.string().max(200).optional(),
    description: z.string().max(2000).optional(),
    styles: z.array(styleSchema).min(1).max(20),
    defaultStyleName: z.string().optional(),
    orderHint: z.number().int().optional(),
    datasourceDefaults: datasourceDefaultsSchema,
  })
  .refine((l) => l.defaultStyleName === undefined || l.styles.some((s) => s.name === l.defaultStyleName), {
    message: "defaultStyleName must name one of styles[].name",
    path: ["defaultStyleName"],
  });

/** Layers of an instance: at most 100, each id once (a second layer of an id would silently replace the first). */
const layersSchema = z
  .array(layerSchema)
  .max(100)
  .superRefine((layers, ctx) => {
    const first = new Map<string, number>();
    for (const [i, l] of layers.entries()) {
      const j = first.get(l.id);
      if (j === undefined) first.set(l.id, i);
      else
        ctx.addIssue({
          code: "custom",
          path: [i, "id"],
          message: `layer id '${l.id}' is already used by layers.${j}; each layer id must be unique in an instance`,
        });
    }
  });

export const instanceSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  additionalData: z.record(z.string(), z.unknown()).optional(),
  layers: layersSchema.optional(),
});

export type LayerInput = z.infer<typeof layerSchema>;
export type InstanceInput = z.infer<typeof instanceSchema>;
