// The storage regions of `npm start`'s buckets (Worker var BUCKET_REGIONS, src/locations/regions.ts): the bucket of
// the second location's BYOC sample (scripts/seed-byoc.ts) is in CREODIAS region WAW3-1, so its collection is hosted
// in location `creo`, as Sentinel Hub hosts a BYOC collection by its bucket's region. Every other bucket is in the
// primary location's region.

/** The bucket of the Sentinel-1 GRD BYOC sample, hosted in `creo`. */
export const CREO_SAMPLE_BUCKET = "eo-edge-byoc-creo";

/** BUCKET_REGIONS of `npm start`: bucket -> region. */
export const BUCKET_REGIONS = { [CREO_SAMPLE_BUCKET]: "waw3-1" };
