/**
 * Deployment locations (spec 4.14; Sentinel Hub `GET /api/v1/metadata/location`). A location is one deployment of
 * the service with its own endpoint URLs; every data collection is hosted in exactly one location (the collection
 * registry's `location`, src/storage/registry.ts; null = the primary location).
 *
 * Configuration (Worker vars):
 * - `LOCATION_ID`: the location this deployment serves (wrangler.toml: `local`).
 * - `LOCATIONS` (optional): JSON array `[{"id": "aws-eu-central-1", "url": "https://..."}, ...]` of every location
 *   of the family, the first one primary. Without it the deployment is the one location `LOCATION_ID` at
 *   PUBLIC_BASE_URL. A deployment listed in LOCATIONS with its own URL serves requests sent to any of the listed
 *   URLs as that location (`npm start` serves two locations from one Worker, scripts/start.mjs).
 * Ids are Sentinel Hub's (SENTINEL_HUB_LOCATIONS) or `local`; a malformed LOCATIONS is a deployment error (throws,
 * a logged 500), like a missing PUBLIC_BASE_URL.
 */
import type { Env } from "../env";
import { publicBaseUrl } from "../http/base";

/**
 * Sentinel Hub's location ids and their public base URLs (the ids of GET services.sentinel-hub.com/api/v1/metadata/location;
 * URLs as in @sentinel-hub/sentinelhub-js SHV3_LOCATIONS_ROOT_URL and docs.sentinel-hub.com "API Overview").
 */
export const SENTINEL_HUB_LOCATIONS: Readonly<Record<string, string>> = {
  "aws-eu-central-1": "https://services.sentinel-hub.com",
  "aws-us-west-2": "https://services-uswest2.sentinel-hub.com",
  creo: "https://creodias.sentinel-hub.com",
  mundi: "https://shservices.mundiwebservices.com",
  "gcp-us-central1": "https://services-gcp.sentinel-hub.com",
  cdse: "https://sh.dataspace.copernicus.eu",
  "cdse-otc": "https://sh-otc.dataspace.copernicus.eu",
};

/** The id of a single development deployment (wrangler.toml). */
export const LOCAL_LOCATION = "local";

/** A location as Sentinel Hub's OpenAPI `Location` schema describes it (all URLs absolute, no trailing slash). */
export interface Location {
  "@id": string;
  id: string;
  url: string;
  wmsUrl: string;
  processUrl: string;
  catalogUrl: string;
}

/** What the location functions read from the environment. */
export type LocationEnv = Pick<Env, "LOCATION_ID" | "PUBLIC_BASE_URL"> & { LOCATIONS?: string };

/** The record of location `id` served at `url`; `@id` is its metadata URL under `self` (the answering deployment). */
export function locationAt(id: string, url: string, self: string): Location {
  const u = url.replace(/\/+$/, "");
  return {
    "@id": `${self}/api/v1/metadata/location/${encodeURIComponent(id)}`,
    id,
    url: u,
    wmsUrl: `${u}/ogc/wms`,
    processUrl: `${u}/api/v1/process`,
    catalogUrl: `${u}/api/v1/catalog/1.0.0`,
  };
}

const KNOWN = (id: string): boolean => id === LOCAL_LOCATION || Object.hasOwn(SENTINEL_HUB_LOCATIONS, id);

/** Parsed LOCATIONS per configured string (an isolate parses each value once). */
const parsed = new Map<string, { id: string; url: string }[]>();

/**
 * The `{id, url}` entries of a LOCATIONS value in order.
 * @throws Error (deployment error) when it is not a JSON array of `{id, url}` with known, unique ids and http(s) URLs.
 */
export function parseLocations(value: string): { id: string; url: string }[] {
  const hit = parsed.get(value);
  if (hit) return hit;
  let list: unknown;
  try {
    list = JSON.parse(value);
  } catch {
    throw new Error("LOCATIONS must be a JSON array of {id, url}; it is not JSON.");
  }
  if (!Array.isArray(list) || list.length === 0)
    throw new Error("LOCATIONS must be a non-empty JSON array of {id, url}.");
  const out = list.map((e: { id?: unknown; url?: unknown }) => {
    if (typeof e?.id !== "string" || !KNOWN(e.id))
      throw new Error(
        `LOCATIONS: unknown location id ${JSON.stringify(e?.id)}; known: ${[LOCAL_LOCATION, ...Object.keys(SENTINEL_HUB_LOCATIONS)].join(", ")}.`,
      );
    if (typeof e.url !== "string" || !/^https?:\/\/[^/?#\s]+\/?$/i.test(e.url))
      throw new Error(`LOCATIONS: location ${e.id} needs an http(s) base URL without a path.`);
    return { id: e.id, url: e.url.replace(/\/+$/, "") };
  });
  if (new Set(out.map((e) => e.id)).size !== out.length) throw new Error("LOCATIONS: location ids must be unique.");
  parsed.set(value, out);
  return out;
}

/**
 * Every location of this deployment family in configuration order (the primary first), `@id`s under this
 * deployment's public URL. This deployment is always listed (at PUBLIC_BASE_URL when LOCATIONS omits it).
 * @throws Error for a malformed LOCATIONS or PUBLIC_BASE_URL (deployment errors).
 */
export function locations(env: LocationEnv): Location[] {
  const self = publicBaseUrl(env);
  const own = env.LOCATION_ID || LOCAL_LOCATION;
  const entries = env.LOCATIONS ? parseLocations(env.LOCATIONS) : [];
  const all = entries.some((e) => e.id === own) ? entries : [...entries, { id: own, url: self }];
  return all.map((e) => locationAt(e.id, e.url, self));
}

/** The location `id`, or undefined when it is not configured. */
export const findLocation = (env: LocationEnv, id: string): Location | undefined =>
  locations(env).find((l) => l.id === id);

/** The id of the primary location: the first of LOCATIONS, else this deployment's. */
export const primaryLocation = (env: LocationEnv): string =>
  env.LOCATIONS ? parseLocations(env.LOCATIONS)[0]!.id : env.LOCATION_ID || LOCAL_LOCATION;
