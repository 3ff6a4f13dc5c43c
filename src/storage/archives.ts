/**
 * The upstream archive a deployment's built-in collections come from, as the operator configures it (wrangler
 * `[vars]` and secrets, docs/archives.md), and which built-ins each archive offers. Data about the stores, read by
 * the collection registry (./registry.ts hides the archive-only built-ins the archive does not offer) and by the
 * archive readers (src/archive/config.ts adds the retry policy; src/archive/catalogue.ts says how each offered
 * built-in is read). Imports nothing, so that the registry stays below src/archive.
 * - `EO_EDGE_ARCHIVE`: `twin` (the local archive twin, scripts/archive-twin.mjs; it answers as Earth Search does),
 *   `earth-search` (Earth Search v1 over AWS Open Data) or `planetary-computer` (Microsoft Planetary Computer);
 *   unset or empty: no archive, the built-ins hold only the local store's items;
 * - `ARCHIVE_STAC_URL`: the STAC API root (default: the real API of `earth-search` / `planetary-computer`);
 * - `ARCHIVE_URL_MAP`: JSON `{ "<asset URL prefix>": "<replacement prefix>" }` applied to every asset href before
 *   it is read (the longest matching prefix wins), so a twin or a mirror can stand in for the buckets;
 * - `ARCHIVE_TIMEOUT_MS`: how long one upstream attempt may take (default 10000; three attempts with backoff);
 * - `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (secrets): the operator's keys for requester-pays buckets; without
 *   them the collections stored there are not offered.
 */

/** The archive adapters: which STAC API flavour and asset access rules apply. */
export type ArchiveKind = "earth-search" | "planetary-computer";

/** The bindings the archive reads (all optional: an unconfigured deployment has no archive). */
export interface ArchiveEnv {
  EO_EDGE_ARCHIVE?: string;
  ARCHIVE_STAC_URL?: string;
  ARCHIVE_URL_MAP?: string;
  ARCHIVE_TIMEOUT_MS?: string;
  AWS_ACCESS_KEY_ID?: string;
  AWS_SECRET_ACCESS_KEY?: string;
  /** Optional R2 bucket: a read-through cache of upstream COG blocks. */
  ARCHIVE_CACHE?: R2Bucket;
}

/** The archive's settings as read from the environment. */
export interface ArchiveSettings {
  /** The adapter (`twin` answers as Earth Search). */
  kind: ArchiveKind;
  /** The configured name (`twin`, `earth-search`, `planetary-computer`). */
  name: string;
  /** STAC API root, no trailing slash. */
  stacUrl: string;
  /** URL map entries, longest prefix first. */
  urlMap: [string, string][];
  /** The operator's AWS keys for requester-pays buckets, or null. */
  aws: { accessKeyId: string; secretAccessKey: string } | null;
  /** ARCHIVE_TIMEOUT_MS when a positive integer (ms per upstream attempt), else null (the default applies). */
  timeoutMs: number | null;
}

/** Real STAC API roots of the adapters. */
export const DEFAULT_STAC_URLS: Record<ArchiveKind, string> = {
  "earth-search": "https://earth-search.aws.element84.com/v1",
  "planetary-computer": "https://planetarycomputer.microsoft.com/api/stac/v1",
};

const KINDS: Record<string, ArchiveKind> = {
  twin: "earth-search",
  "earth-search": "earth-search",
  "planetary-computer": "planetary-computer",
};

/**
 * The built-in ids each archive offers, in catalogue order, each with whether its assets lie in a requester-pays
 * bucket (offered only with the operator's AWS keys). Sources: Earth Search v1 collections and the Planetary
 * Computer's catalog; src/archive/catalogue.ts holds how each one is read and must list exactly these.
 */
export const ARCHIVE_OFFERS: Record<ArchiveKind, { id: string; requesterPays: boolean }[]> = {
  "earth-search": [
    { id: "sentinel-2-l2a", requesterPays: false },
    { id: "dem", requesterPays: false },
    { id: "landsat-ot-l2", requesterPays: true },
    { id: "sentinel-1-grd", requesterPays: true },
  ],
  "planetary-computer": [
    { id: "sentinel-2-l2a", requesterPays: false },
    { id: "dem", requesterPays: false },
    { id: "landsat-ot-l2", requesterPays: false },
    { id: "sentinel-1-grd", requesterPays: false },
  ],
};

/** Parses ARCHIVE_URL_MAP; throws a plain Error (an operator's mistake, a 500 logged) when it is not a string map. */
export function parseUrlMap(text: string | undefined): [string, string][] {
  if (!text || !text.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error("ARCHIVE_URL_MAP is not valid JSON (expected an object of URL prefix -> URL prefix)");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error("ARCHIVE_URL_MAP must be a JSON object");
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.some(([, v]) => typeof v !== "string")) throw new Error("ARCHIVE_URL_MAP values must be strings");
  return (entries as [string, string][]).sort((a, b) => b[0].length - a[0].length);
}

const memo = new Map<string, ArchiveSettings | null>();

/**
 * The archive settings of `env`, or null when EO_EDGE_ARCHIVE is unset or empty (memoized per isolate by the
 * values: the same values give the same object).
 * @throws Error (the operator's configuration: a logged 500) for an unknown EO_EDGE_ARCHIVE or a malformed ARCHIVE_URL_MAP.
 */
export function archiveSettings(env: ArchiveEnv): ArchiveSettings | null {
  const name = (env.EO_EDGE_ARCHIVE ?? "").trim();
  const key = JSON.stringify([
    name,
    env.ARCHIVE_STAC_URL ?? "",
    env.ARCHIVE_URL_MAP ?? "",
    env.ARCHIVE_TIMEOUT_MS ?? "",
    env.AWS_ACCESS_KEY_ID ?? "",
    env.AWS_SECRET_ACCESS_KEY ?? "",
  ]);
  if (memo.has(key)) return memo.get(key)!;
  let settings: ArchiveSettings | null = null;
  if (name) {
    const kind = KINDS[name];
    if (!kind)
      throw new Error(
        `EO_EDGE_ARCHIVE '${name}' is not an archive this service knows; use twin, earth-search or planetary-computer`,
      );
    const stacUrl = (env.ARCHIVE_STAC_URL?.trim() || DEFAULT_STAC_URLS[kind]).replace(/\/+$/, "");
    const aws =
      env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY }
        : null;
    const timeout = Number(env.ARCHIVE_TIMEOUT_MS);
    const timeoutMs = Number.isInteger(timeout) && timeout > 0 ? timeout : null;
    settings = { kind, name, stacUrl, urlMap: parseUrlMap(env.ARCHIVE_URL_MAP), aws, timeoutMs };
  }
  if (memo.size > 16) memo.clear();
  memo.set(key, settings);
  return settings;
}

/**
 * The built-in ids the archive offers under `settings` (catalogue order): none without an archive, and those in
 * requester-pays buckets only with the operator's AWS keys.
 */
export function offeredCollections(settings: Pick<ArchiveSettings, "kind" | "aws"> | null): string[] {
  if (!settings) return [];
  return ARCHIVE_OFFERS[settings.kind].filter((o) => !o.requesterPays || settings.aws).map((o) => o.id);
}
