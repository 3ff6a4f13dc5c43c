/**
 * How an asset href becomes a request the archive's storage accepts:
 * - the URL map (ARCHIVE_URL_MAP) is applied to the href as the item names it; an `s3://bucket/key` href left over
 *   becomes the bucket's virtual-hosted HTTPS URL (AWS S3 REST API);
 * - requester-pays S3 buckets (REQUESTER_PAYS) are signed with the operator's AWS keys (Signature Version 4, by
 *   aws4fetch) and carry `x-amz-request-payer: requester` (the operator pays the transfer);
 * - Planetary Computer blobs (`*.blob.core.windows.net`) carry a SAS token of PC's token endpoint
 *   (`/api/sas/v1/token/{collection}`, planetarycomputer.microsoft.com/docs/concepts/sas/), cached per isolate until
 *   shortly before its `msft:expiry` and fetched again after a 403. Tokens are never logged nor put in messages.
 */
import { AwsClient } from "aws4fetch";
import { mapUrl, type ArchiveConfig } from "./config";
import { UpstreamError } from "./errors";
import { upstreamFetch } from "./fetch";

/** Requester-pays buckets of AWS Open Data the built-ins read, with their regions (registry.opendata.aws). */
export const REQUESTER_PAYS: Record<string, string> = {
  "usgs-landsat": "us-west-2",
  "sentinel-s1-l1c": "eu-central-1",
  "sentinel-s2-l2a": "eu-central-1",
  "sentinel-s2-l1c": "eu-central-1",
};

/** Regions of the public buckets (for `s3://` hrefs without a URL map entry). */
const PUBLIC_REGIONS: Record<string, string> = {
  "sentinel-cogs": "us-west-2",
  "copernicus-dem-30m": "eu-central-1",
  "copernicus-dem-90m": "eu-central-1",
};

/** The S3 bucket an href names (`s3://bucket/...` or `https://bucket.s3[.region].amazonaws.com/...`), or undefined. */
export function s3Bucket(href: string): string | undefined {
  return (
    /^s3:\/\/([^/]+)\//.exec(href)?.[1] ??
    /^https:\/\/([^./]+)\.s3(?:[.-][a-z0-9-]+)?\.amazonaws\.com\//.exec(href)?.[1]
  );
}

/** True when the href is a Planetary Computer blob (needs a SAS token). */
export const isAzureBlob = (href: string): boolean => /^https:\/\/[^/]+\.blob\.core\.windows\.net\//.test(href);

/** True when reading `href` needs the operator's AWS keys. */
export const needsRequesterPays = (href: string): boolean => REQUESTER_PAYS[s3Bucket(href) ?? ""] !== undefined;

/** The URL an href is read from: the URL map applied, then `s3://` turned into the bucket's HTTPS URL. */
export function resolveHref(href: string, config: ArchiveConfig): string {
  const mapped = mapUrl(href, config.urlMap);
  const s3 = /^s3:\/\/([^/]+)\/(.*)$/.exec(mapped);
  if (!s3) return mapped;
  const region = REQUESTER_PAYS[s3[1]!] ?? PUBLIC_REGIONS[s3[1]!] ?? "us-west-2";
  return `https://${s3[1]}.s3.${region}.amazonaws.com/${s3[2]}`;
}

interface SasToken {
  token: string;
  /** ms since epoch after which the cached token is not used. */
  useUntil: number;
}

/** SAS tokens per token endpoint + collection (values only: never a pending promise shared between requests). */
const sasTokens = new Map<string, SasToken>();

/** The SAS API root of a Planetary Computer STAC root (`.../api/stac/v1` -> `.../api/sas/v1`). */
export const sasRoot = (stacUrl: string): string => stacUrl.replace(/\/api\/stac\/v1$/, "/api/sas/v1");

/**
 * A SAS token for `collection` (query string without `?`), from the cache unless `fresh`. Kept until 5 minutes
 * (or a quarter of its lifetime, when shorter) before `msft:expiry`.
 * @throws UpstreamError when the token endpoint fails or answers something else than `{token, msft:expiry}`.
 */
export async function sasToken(config: ArchiveConfig, collection: string, fresh = false): Promise<string> {
  const url = `${sasRoot(config.stacUrl)}/token/${encodeURIComponent(collection)}`;
  const hit = sasTokens.get(url);
  const now = Date.now();
  if (hit && !fresh && now < hit.useUntil) return hit.token;
  const response = await upstreamFetch({
    archive: config.name,
    retry: config.retry,
    request: () => new Request(url, { headers: { accept: "application/json" } }),
  });
  const body = (await response.json().catch(() => null)) as { token?: unknown; "msft:expiry"?: unknown } | null;
  const expiry = Date.parse(String(body?.["msft:expiry"] ?? ""));
  if (typeof body?.token !== "string" || !Number.isFinite(expiry)) {
    throw new UpstreamError(
      "upstream-failed",
      `The ${config.name} SAS token endpoint answered without a token for collection ${collection}.`,
      { archive: config.name },
    );
  }
  const margin = Math.min(5 * 60_000, Math.max(0, (expiry - now) / 4));
  sasTokens.set(url, { token: body.token.replace(/^\?/, ""), useUntil: expiry - margin });
  return body.token.replace(/^\?/, "");
}

/** Forgets every cached SAS token (tests). */
export function forgetSasTokens(): void {
  sasTokens.clear();
}

const awsClients = new Map<string, AwsClient>();

/** Signs a GET / HEAD of a requester-pays object (SigV4, service s3, the bucket's region). */
export async function signRequesterPays(
  config: ArchiveConfig,
  bucket: string,
  url: string,
  init: { method: string; headers: Record<string, string> },
): Promise<Request> {
  const aws = config.aws!;
  const region = REQUESTER_PAYS[bucket]!;
  const key = `${aws.accessKeyId}\n${region}`;
  let client = awsClients.get(key);
  if (!client) {
    client = new AwsClient({
      accessKeyId: aws.accessKeyId,
      secretAccessKey: aws.secretAccessKey,
      service: "s3",
      region,
    });
    awsClients.set(key, client);
  }
  return client.sign(url, { method: init.method, headers: { ...init.headers, "x-amz-request-payer": "requester" } });
}

/** What reading an asset needs: how to build each attempt's request and how to refresh credentials after a 403. */
export interface AssetAccess {
  /** The URL read (URL map applied; without a SAS token): the asset's identity in caches. */
  url: string;
  request(method: "GET" | "HEAD", headers: Record<string, string>): Promise<Request>;
  /** Fetches new credentials (a SAS token); undefined when the asset needs none. */
  refresh?: () => Promise<boolean>;
}

/**
 * The access to asset `href` of an item of upstream collection `collection` (for SAS tokens).
 * @throws UpstreamError upstream-failed when a requester-pays asset is read without the operator's AWS keys.
 */
export function assetAccess(config: ArchiveConfig, href: string, collection: string): AssetAccess {
  const url = resolveHref(href, config);
  const bucket = s3Bucket(href);
  if (bucket && REQUESTER_PAYS[bucket]) {
    if (!config.aws)
      throw new UpstreamError(
        "upstream-failed",
        `Reading s3://${bucket} (requester pays) needs the operator's AWS keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).`,
        { archive: config.name },
      );
    return { url, request: (method, headers) => signRequesterPays(config, bucket, url, { method, headers }) };
  }
  if (isAzureBlob(href)) {
    return {
      url,
      request: async (method, headers) =>
        new Request(`${url}${url.includes("?") ? "&" : "?"}${await sasToken(config, collection)}`, { method, headers }),
      // after a 403 (token expired or revoked early): one new token, then the request again
      refresh: async () => Boolean(await sasToken(config, collection, true)),
    };
  }
  return { url, request: async (method, headers) => new Request(url, { method, headers }) };
}
