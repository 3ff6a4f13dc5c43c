/**
 * Catalog test helpers: real STAC items into D1 (data/items and test/fixtures/catalog/items), and an ajv
 * validator built from the official STAC 1.0.0 / extension / GeoJSON schemas in test/fixtures/catalog/schemas.
 */
import { env } from "cloudflare:workers";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { sampleItems } from "../helpers/seed";
import { authed, token } from "../helpers/auth";

/** Fixture items (shared STAC examples) and the catalog collection each one is stored under. */
export const FIXTURE_ITEMS: [string, string][] = [
  ["S2A_T01LAC_20200717T221944_L1C.json", "sentinel-2-l1c"],
  ["S2A_T07HFE_20190212T192646_L2A.json", "sentinel-2-l2a"],
  ["S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13.json", "sentinel-1-grd"],
  ["S2B_MSIL2A_20190629T212529_R043_T06VVN_20201006T080531.json", "sentinel-2-l2a"],
];

export async function fixture(path: string): Promise<unknown> {
  const r = await env.SAMPLE_DATA.fetch(`http://sample/fixtures/catalog/${path}`);
  if (!r.ok) throw new Error(`fixture ${path}: ${r.status}`);
  return r.json();
}

/** The shared STAC fixture items, with `collection` set to the catalog collection they are stored in. */
export async function fixtureItems(): Promise<StacItem[]> {
  const out: StacItem[] = [];
  for (const [file, collection] of FIXTURE_ITEMS)
    out.push({ ...((await fixture(`items/${file}`)) as StacItem), collection });
  return out;
}

/** Inserts every real item (data/items + fixtures) into D1; returns them. */
export async function seedCatalog(): Promise<StacItem[]> {
  const items = [...(await sampleItems()), ...(await fixtureItems())];
  for (const item of items) await upsertItem(env, item);
  return items;
}

/**
 * `count` items derived from real ones (cycling through `sources`): the same documents with the id
 * `D<nnn>_<id>`, the datetime moved `k + 1` days later and the properties "eoedge:derived": true and
 * "eoedge:derived_from": <real id> (as bench/bench-catalog.mjs labels its derived catalog). Inserted into D1.
 */
export async function seedDerived(sources: StacItem[], count: number): Promise<StacItem[]> {
  const out: StacItem[] = [];
  for (let k = 0; k < count; k++) {
    const src = sources[k % sources.length]!;
    const datetime = new Date(Date.parse(src.properties.datetime) + (k + 1) * 86_400_000).toISOString();
    const item: StacItem = {
      ...src,
      id: `D${String(k).padStart(3, "0")}_${src.id}`,
      properties: { ...src.properties, datetime, "eoedge:derived": true, "eoedge:derived_from": src.id },
    };
    await upsertItem(env, item);
    out.push(item);
  }
  return out;
}

let bearer: string | undefined;

/** GET/POST a catalog path with a (cached) real token; returns status and parsed JSON. */
export async function api(path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  bearer ??= await token();
  const init: RequestInit =
    body === undefined
      ? {}
      : { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } };
  const r = await authed(path, init, bearer);
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined, headers: r.headers };
}

export const ROOT = "/api/v1/catalog/1.0.0";

/** The GeoJSON schema files (ids https://geojson.org/schema/<Type>.json). */
export const GEOJSON_FILES = [
  ...[
    "Feature",
    "FeatureCollection",
    "Geometry",
    "GeometryCollection",
    "LineString",
    "MultiLineString",
    "MultiPoint",
    "MultiPolygon",
    "Point",
    "Polygon",
  ].map((g) => `geojson/${g}.json`),
];

const SCHEMA_FILES = [
  "v1.0.0/item-spec/json-schema/item.json",
  "v1.0.0/item-spec/json-schema/basics.json",
  "v1.0.0/item-spec/json-schema/datetime.json",
  "v1.0.0/item-spec/json-schema/instrument.json",
  "v1.0.0/item-spec/json-schema/licensing.json",
  "v1.0.0/item-spec/json-schema/provider.json",
  "v1.0.0/catalog-spec/json-schema/catalog.json",
  "v1.0.0/collection-spec/json-schema/collection.json",
  "extensions/eo/v1.0.0/schema.json",
  "extensions/eo/v1.1.0/schema.json",
  "extensions/projection/v1.0.0/schema.json",
  "extensions/projection/v1.1.0/schema.json",
  "extensions/sar/v1.0.0/schema.json",
  ...GEOJSON_FILES,
];

export interface StacValidator {
  /** Validates a document against its core schema and every listed extension schema available offline. */
  check(doc: Record<string, any>, kind: "item" | "collection" | "catalog"): string[];
}

/** Builds the validator from the schema copies. */
export async function stacValidator(): Promise<StacValidator> {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("iri", fullFormats.uri);
  ajv.addFormat("iri-reference", fullFormats["uri-reference"]);
  for (const f of SCHEMA_FILES) ajv.addSchema((await fixture(`schemas/${f}`)) as object);
  for (const v of ["v0.2", "v0.5"]) ajv.addSchema({ $id: `https://proj.org/schemas/${v}/projjson.schema.json` });
  const core: Record<string, string> = {
    item: "https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json",
    collection: "https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json",
    catalog: "https://schemas.stacspec.org/v1.0.0/catalog-spec/json-schema/catalog.json",
  };
  const cache = new Map<string, ValidateFunction | null>();
  const get = (id: string): ValidateFunction | null => {
    if (!cache.has(id)) cache.set(id, ajv.getSchema(id) ?? ajv.getSchema(`${id}#`) ?? null);
    return cache.get(id)!;
  };
  return {
    check(doc, kind) {
      const errors: string[] = [];
      for (const id of [core[kind]!, ...((doc.stac_extensions as string[]) ?? [])]) {
        const v = get(id);
        if (!v) continue; // extension schema not available offline (sat, scientific, raster, ...)
        if (!v(doc)) errors.push(`${id}: ${ajv.errorsText(v.errors)}`);
      }
      return errors;
    },
  };
}
