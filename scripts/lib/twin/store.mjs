// What the archive twin (scripts/archive-twin.mjs) serves, read once from data/archive/ of the repository:
// - objects.json: `<bucket-or-host>/<key>` -> a file of the repository (the object's bytes, byte for byte);
// - stac/<archive>/collections/<id>.json: the archive's collections;
// - stac/<archive>/<collection>/<id>.json: its items, with their real asset hrefs.
// The buckets and storage accounts the twin knows (their owner, region, access rules) are listed here too.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** The STAC archives the twin imitates: path under the twin's URL, and which flavour of API answers there. */
export const ARCHIVES = {
  "earth-search": { path: "/earth-search/v1", flavour: "stac-server" },
  "planetary-computer": { path: "/planetary-computer/api/stac/v1", flavour: "pgstac" },
};

/**
 * Buckets and storage hosts the twin serves under /objects/<name>/. `kind`: "s3" (AWS S3 answers and errors), "azure"
 * (Azure Blob Storage: needs a SAS token of the twin's token endpoint). `requesterPays`: S3 requester-pays (SigV4 with
 * `x-amz-request-payer: requester`), `region`: the bucket's region (a signature for another region is refused as S3
 * does). `prefixes`: the real URL prefixes of the objects (the twin's urlMap maps each onto /objects/<name>/).
 * Regions and hosts from the AWS Open Data registry (registry.opendata.aws: sentinel-2-l2a-cogs, copernicus-dem,
 * usgs-landsat, sentinel-1) and the Planetary Computer's dataset pages.
 */
export const BUCKETS = {
  "sentinel-cogs": {
    kind: "s3",
    region: "us-west-2",
    prefixes: [
      "https://sentinel-cogs.s3.us-west-2.amazonaws.com/",
      "https://sentinel-cogs.s3.amazonaws.com/",
      "s3://sentinel-cogs/",
    ],
  },
  "sentinel-s2-l2a": {
    kind: "s3",
    region: "eu-central-1",
    requesterPays: true,
    prefixes: ["s3://sentinel-s2-l2a/", "https://sentinel-s2-l2a.s3.eu-central-1.amazonaws.com/"],
  },
  "copernicus-dem-30m": {
    kind: "s3",
    region: "eu-central-1",
    prefixes: [
      "https://copernicus-dem-30m.s3.amazonaws.com/",
      "https://copernicus-dem-30m.s3.eu-central-1.amazonaws.com/",
      "s3://copernicus-dem-30m/",
    ],
  },
  "copernicus-dem-90m": {
    kind: "s3",
    region: "eu-central-1",
    prefixes: [
      "https://copernicus-dem-90m.s3.amazonaws.com/",
      "https://copernicus-dem-90m.s3.eu-central-1.amazonaws.com/",
      "s3://copernicus-dem-90m/",
    ],
  },
  "usgs-landsat": {
    kind: "s3",
    region: "us-west-2",
    requesterPays: true,
    prefixes: [
      "s3://usgs-landsat/",
      "https://usgs-landsat.s3.us-west-2.amazonaws.com/",
      "https://landsatlook.usgs.gov/data/",
    ],
  },
  "sentinel-s1-l1c": {
    kind: "s3",
    region: "eu-central-1",
    requesterPays: true,
    prefixes: ["s3://sentinel-s1-l1c/", "https://sentinel-s1-l1c.s3.eu-central-1.amazonaws.com/"],
  },
  "elevationeuwest.blob.core.windows.net": {
    kind: "azure",
    prefixes: ["https://elevationeuwest.blob.core.windows.net/"],
  },
  "landsateuwest.blob.core.windows.net": { kind: "azure", prefixes: ["https://landsateuwest.blob.core.windows.net/"] },
  "sentinel1euwest.blob.core.windows.net": {
    kind: "azure",
    prefixes: ["https://sentinel1euwest.blob.core.windows.net/"],
  },
  "sentinel1euwestrtc.blob.core.windows.net": {
    kind: "azure",
    prefixes: ["https://sentinel1euwestrtc.blob.core.windows.net/"],
  },
};

/**
 * Planetary Computer collection -> the storage account and container its assets live in (the SAS token endpoint's
 * `/token/{collection}` answers a token for that container). From the Planetary Computer's dataset pages.
 */
export const PC_CONTAINERS = {
  "cop-dem-glo-30": { account: "elevationeuwest", container: "copernicus-dem" },
  "cop-dem-glo-90": { account: "elevationeuwest", container: "copernicus-dem" },
  "landsat-c2-l2": { account: "landsateuwest", container: "landsat-c2" },
  "sentinel-1-grd": { account: "sentinel1euwest", container: "s1-grd" },
  "sentinel-1-rtc": { account: "sentinel1euwestrtc", container: "sentinel1-grd-rtc" },
};

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const jsonFiles = (dir) => {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
};

/**
 * Loads data/archive/ under `root` (the repository; default: this checkout). Returns
 * { objects: Map<name, {file, size, mtime, etag()}>, archives: { <archive>: { collections: Map<id, json>, items: item[] } } }.
 * Throws when objects.json names a missing file (the twin must not start half-stocked).
 */
export function loadStore(root = resolve(import.meta.dirname, "../../..")) {
  const dir = join(root, "data/archive");
  const objects = new Map();
  for (const [name, path] of Object.entries(readJson(join(dir, "objects.json")))) {
    const file = join(root, path);
    const st = statSync(file);
    let etag;
    objects.set(name, {
      file,
      size: st.size,
      mtime: st.mtime,
      etag: () => (etag ??= createHash("md5").update(readFileSync(file)).digest("hex")),
    });
  }
  const archives = {};
  for (const archive of Object.keys(ARCHIVES)) {
    const base = join(dir, "stac", archive);
    const collections = new Map(
      jsonFiles(join(base, "collections"))
        .map((f) => readJson(f))
        .map((c) => [c.id, c]),
    );
    const items = [...collections.keys()].flatMap((id) => jsonFiles(join(base, id)).map(readJson));
    archives[archive] = { collections, items };
  }
  return { objects, archives };
}

/** The twin's URL map: every real asset prefix -> `${url}/objects/<bucket-or-host>/` (longest prefix wins when applied). */
export function urlMapFor(url) {
  const map = {};
  for (const [name, b] of Object.entries(BUCKETS)) for (const p of b.prefixes) map[p] = `${url}/objects/${name}/`;
  return map;
}
