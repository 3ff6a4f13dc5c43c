/**
 * Request bodies of the third-party import API (OpenAPI SearchQuery, NativeSearchQuery, OrderRequest,
 * SubscriptionRequest), validated with zod; the provider checks its own members (itemType, productBundle, ...)
 * in its `check`. Unknown members are kept: they belong to the provider.
 */
import { z } from "zod";
import { boundsSchema, timeRangeSchema } from "../pipeline/input";

/** maxCloudCoverage: a percentage 0..100 (numbers or numeric strings, as the process-like interface takes). */
const cloud = z
  .union([z.number(), z.string().regex(/^\s*\d+(\.\d+)?\s*$/)])
  .transform(Number)
  .refine((v) => v >= 0 && v <= 100, "maxCloudCoverage must be between 0 and 100");

export const dataFilterBody = z
  .object({
    timeRange: timeRangeSchema.optional(),
    maxCloudCoverage: cloud.optional(),
    nativeFilter: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();

/** The one `data` entry of a search, order or subscription input. */
export const dataItemBody = z
  .object({
    type: z.literal("catalog", { error: "data[].type must be 'catalog'" }).default("catalog"),
    itemType: z.string().optional(),
    productBundle: z.string().optional(),
    harmonizeTo: z.string().optional(),
    itemIds: z.array(z.string().min(1)).min(1).max(250).optional(),
    dataFilter: dataFilterBody.optional(),
  })
  .passthrough();

/** A process-like search body and an order's or subscription's `input` (OpenAPI PlanetSearchQuery / MaxarSearchQuery). */
export const searchBody = z
  .object({
    provider: z.string().min(1, "provider is required"),
    planetApiKey: z.string().optional(),
    bounds: boundsSchema,
    data: z.array(dataItemBody).length(1, "data must hold exactly 1 item"),
  })
  .passthrough();
export type SearchBody = z.infer<typeof searchBody>;

/** Native (proxy) search: `provider`, the key, and the provider's own members, passed on unchanged. */
export const nativeSearchBody = z
  .object({ provider: z.string().min(1, "provider is required"), planetApiKey: z.string().optional() })
  .passthrough();
export type NativeSearchBody = z.infer<typeof nativeSearchBody>;

const uuid = z.uuid("a BYOC collection id (uuid)").transform((s) => s.toLowerCase());

/** Create body of an order or subscription (OpenAPI PlanetOrderRequest, PlanetSubscriptionRequest; read-only members ignored). */
export const recordBody = z.object({
  name: z.string().min(1).max(256).optional(),
  collectionId: uuid.nullish(),
  input: searchBody,
});
export type RecordBody = z.infer<typeof recordBody>;
