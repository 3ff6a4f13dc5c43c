/**
 * Request bodies of the BYOC API (OpenAPI BYOCCollection, BYOCTile, BYOCTileUpdatePayload), validated with zod;
 * invalid bodies are 400 with the issues in `errors`. Optional members may be null (= omitted), as clients that
 * serialise unset fields send them; read-only members (id, created, status, ...) are ignored.
 */
import { z } from "zod";
import { ApiError, badRequest, zodIssues } from "../http/errors";
import { readJson } from "../http/parse";
import { TILE_STATUSES } from "../storage/byoc/model";

const band = z.object({
  source: z.string().min(1).optional(),
  bandIndex: z.number().int().min(1).default(1),
  bitDepth: z.union([z.literal(8), z.literal(16), z.literal(32)]),
  sampleFormat: z.enum(["UINT", "INT", "FLOAT"]),
  noData: z.number().optional(),
});

const bandName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Create and update body of a collection (update: also `name` and `s3Bucket` required, as Sentinel Hub's). */
export const collectionBody = z.object({
  name: z.string().min(1).max(256),
  s3Bucket: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)"),
  isConfigured: z.boolean().nullish(),
  noData: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
  additionalData: z
    .object({ bands: z.record(z.string().regex(bandName, "a band name: letters, digits and _"), band).optional() })
    .passthrough()
    .nullish()
    .transform((v) => v ?? undefined),
});
export type CollectionBody = z.infer<typeof collectionBody>;

const geometry = z.object({ type: z.string(), coordinates: z.array(z.unknown()) }).passthrough();

/** Create body of a tile: `path` without a leading `/` (OpenAPI pattern `^([^/](/?[^/])*)?$`). */
export const tileBody = z.object({
  path: z
    .string()
    .min(1)
    .regex(/^([^/](\/?[^/])*)?$/, "a path within the bucket that neither starts nor ends with '/' and has no '//'"),
  tileGeometry: geometry.nullish(),
  coverGeometry: geometry.nullable().optional(),
  sensingTime: z.string().datetime({ offset: true }).nullable().optional(),
  additionalData: z.record(z.string(), z.unknown()).nullish(),
});
export type TileBody = z.infer<typeof tileBody>;

/** Update body of a tile. */
export const tileUpdateBody = z.object({
  coverGeometry: geometry.nullable().optional(),
  sensingTime: z.string().datetime({ offset: true }).nullable().optional(),
});

/** The `status` query of the tile list. @throws ApiError 400 for another value. */
export function parseStatus(value: string | null): (typeof TILE_STATUSES)[number] | null {
  if (value === null || value === "") return null;
  const v = value.replace(/^"|"$/g, "");
  if ((TILE_STATUSES as readonly string[]).includes(v)) return v as (typeof TILE_STATUSES)[number];
  throw badRequest(`Invalid status '${value.slice(0, 40)}': one of ${TILE_STATUSES.join(", ")}.`);
}

/**
 * Parses a JSON body with `schema`.
 * @throws ApiError 400 for malformed JSON or a body the schema refuses, 413 over MAX_BODY_BYTES (src/http/limits.ts,
 *   counted while reading: a body is never buffered past the limit).
 */
export async function readBody<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  const raw = await readJson(request);
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new ApiError(
      400,
      `Invalid request: ${r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`,
      zodIssues(r.error),
    );
  return r.data;
}
