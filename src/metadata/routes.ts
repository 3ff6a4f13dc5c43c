/**
 * Custom collection metadata (interface spec 4.15; OpenAPI metadata_byoc_id / metadata_batch_id / metadata_zarr_id):
 * GET /api/v1/metadata/collection/{byoc|batch|zarr}-<uuid> -> `{"@id", id, location, datasetType: "custom",
 * bands: [{name, sampleType}]}` from the collection registry, for the owner of the collection (others: 404);
 * `location` is the location hosting it (src/locations/hosting.ts).
 */
import type { Env } from "../env";
import { json, publicBaseUrl } from "../http/base";
import { notFound } from "../http/errors";
import { isUuid } from "../http/ids";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { findLocation } from "../locations/config";
import { hostOf } from "../locations/hosting";
import { resolveCollectionType } from "../storage/registry";

const PATH = "/api/v1/metadata/collection";
const CUSTOM = /^(?:byoc|batch|zarr)-(.*)$/;

async function collectionMetadata(request: AuthedRequest, env: Env): Promise<Response> {
  const type = decodeURIComponent(String(request.params.typeId ?? "")).toLowerCase();
  const c = isUuid(CUSTOM.exec(type)?.[1] ?? "")
    ? await resolveCollectionType(env, accountOf(request), type)
    : undefined;
  if (!c || c.kind !== type.split("-")[0])
    throw notFound(`Collection ${type.slice(0, 80)} not found (custom collections: byoc-<id>, batch-<id>, zarr-<id>).`);
  const base = publicBaseUrl(env);
  const host = hostOf(env, c);
  const location = findLocation(env, host) ?? { id: host };
  return json({
    "@id": `${base}${PATH}/${c.id}`,
    id: c.id,
    location,
    datasetType: "custom",
    bands: [...c.bands.values()].map((b) => ({ name: b.name, sampleType: b.sampleType })),
  });
}

/** Registers GET /api/v1/metadata/collection/:typeId. */
export function registerCollectionMetadata(api: Api): void {
  api.on("GET", `${PATH}/:typeId`, collectionMetadata, {
    tags: ["Metadata"],
    summary: "Metadata of a data collection type (bands, location)",
  });
}
