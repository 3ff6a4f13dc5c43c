/**
 * The location a BYOC collection is hosted in: the one serving its bucket's region, as at Sentinel Hub, where a
 * BYOC collection is served by the deployment next to its bucket (docs.sentinel-hub.com, "Bring Your Own COG",
 * BYOC endpoints: services.sentinel-hub.com for buckets in AWS eu-central-1, services-uswest2.sentinel-hub.com for
 * AWS us-west-2, creodias.sentinel-hub.com for CREODIAS buckets).
 *
 * Configuration (Worker var, optional): `BUCKET_REGIONS`, a JSON object `{"<bucket>": "<region>"}` (or a TOML inline
 * table). A bucket it does not list is in the primary location's region: its collections are hosted by the primary
 * location. A listed bucket's collections are hosted by REGION_LOCATIONS[region], also when that location is not
 * configured in LOCATIONS (its requests then say so, src/locations/hosting.ts). The hosting follows the bucket: it is
 * decided on each request from the configuration, never stored, so changing a collection's `s3Bucket` (allowed while
 * it is empty) or BUCKET_REGIONS moves it.
 */
import type { LocationEnv } from "./config";

/**
 * Storage region -> Sentinel Hub location id (lower-case regions): AWS regions of Sentinel Hub's deployments, and
 * the CloudFerro cloud regions of CREODIAS (WAW3-1, WAW3-2, WAW4-1, FRA1-2) for `creo`.
 */
export const REGION_LOCATIONS: Readonly<Record<string, string>> = {
  "eu-central-1": "aws-eu-central-1",
  "us-west-2": "aws-us-west-2",
  "waw3-1": "creo",
  "waw3-2": "creo",
  "waw4-1": "creo",
  "fra1-2": "creo",
};

/** What the bucket rule reads from the environment. */
export type RegionEnv = LocationEnv & { BUCKET_REGIONS?: string | Record<string, string> };

/** Parsed BUCKET_REGIONS per configured value (an isolate parses each value once): bucket -> location id. */
const parsed = new Map<string | Record<string, string>, Map<string, string>>();

/**
 * The bucket -> location id map of BUCKET_REGIONS (empty when unset).
 * @throws Error (deployment error) when it is not a JSON object of bucket names to regions of REGION_LOCATIONS.
 */
export function bucketLocations(env: RegionEnv): Map<string, string> {
  const raw = env.BUCKET_REGIONS;
  if (raw === undefined || raw === "") return new Map();
  const hit = parsed.get(raw);
  if (hit) return hit;
  let map: unknown;
  try {
    map = typeof raw === "string" ? JSON.parse(raw) : raw;
  } catch {
    throw new Error('BUCKET_REGIONS must be a JSON object {"<bucket>": "<region>"}; it is not JSON.');
  }
  if (typeof map !== "object" || map === null || Array.isArray(map))
    throw new Error('BUCKET_REGIONS must be a JSON object {"<bucket>": "<region>"}.');
  const out = new Map<string, string>();
  for (const [bucket, region] of Object.entries(map)) {
    const location = typeof region === "string" ? REGION_LOCATIONS[region.toLowerCase()] : undefined;
    if (!location)
      throw new Error(
        `BUCKET_REGIONS: bucket '${bucket}' has region ${JSON.stringify(region)}; known regions: ${Object.keys(REGION_LOCATIONS).join(", ")}.`,
      );
    out.set(bucket, location);
  }
  parsed.set(raw, out);
  return out;
}

/**
 * The location hosting the collections of bucket `bucket`: its region's location, or null (= the primary location)
 * for a bucket BUCKET_REGIONS does not list.
 * @throws Error for a malformed BUCKET_REGIONS (deployment error).
 */
export const bucketLocation = (env: RegionEnv, bucket: string): string | null =>
  bucketLocations(env).get(bucket) ?? null;
