/**
 * Helpers of the tenancy suite: two accounts side by side, A the victim and B the other tenant with its
 * own token; B's refused calls must answer 403 in the error envelope, naming nothing of A's objects.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { tokenOf } from "../helpers/byoc";
import { CRS, process, readTiff } from "../helpers/process";

/** The demo account `npm start` seeds; it owns the sample buckets (migration 0010). */
export const DEMO_ACCOUNT = "00000000-0000-4000-8000-000000000001";

/** An account and a bearer token of it (a fresh account unless `account` is given). */
export interface Tenant {
  account: string;
  bearer: string;
}

export async function tenant(account: string = crypto.randomUUID()): Promise<Tenant> {
  return { account, bearer: await tokenOf(account) };
}

/**
 * Checks that `r` is the 403 envelope (COMMON_FORBIDDEN) and that its text holds none of `secrets` (A's object
 * bytes, keys, object names); answers the message.
 */
export async function refused(r: Response, secrets: string[] = []): Promise<string> {
  const text = await r.text();
  expect(r.status, text).toBe(403);
  const e = (JSON.parse(text) as { error: { status: number; reason: string; code: string; message: string } }).error;
  expect(e).toMatchObject({ status: 403, reason: "Forbidden", code: "COMMON_FORBIDDEN" });
  for (const s of secrets) expect(text, `the answer leaks '${s}'`).not.toContain(s);
  return e.message;
}

/** Etag and size of `key` in local bucket `bucket` (null when absent): what "A's object is unchanged" compares. */
export async function objectState(bucket: string, key: string): Promise<{ etag: string; size: number } | null> {
  const o = await env.BUCKETS.head(`${bucket}/${key}`);
  return o ? { etag: o.etag, size: o.size } : null;
}

/** A West Flanders date of the sample data and the sensing time of its scene (its STAC item). */
export const WF_DATE = "2017-08-24";
export const WF_SENSED = "2017-08-24T10:52:40Z";

/** A 64 x 64 DN request of B04 over West Flanders in August 2017 on collection `type`. */
export const wfRequest = (type: string) => ({
  input: {
    bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
    data: [{ type, dataFilter: { timeRange: { from: "2017-08-01T00:00:00Z", to: "2017-09-01T00:00:00Z" } } }],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript:
    '//VERSION=3\nfunction setup(){return {input:[{bands:["B04"],units:"DN"}],output:{bands:1,sampleType:"UINT16"}}}\nfunction evaluatePixel(s){return [s.B04]}',
});

/** The B04 pixels (DN) of wfRequest(type) as `bearer` (200 checked); all 0 would mean it read no scene. */
export async function wfB04(type: string, bearer: string): Promise<number[]> {
  const r = await process(wfRequest(type), bearer);
  expect(r.status, r.status === 200 ? "" : await r.clone().text()).toBe(200);
  return Array.from((await readTiff(await r.arrayBuffer())).data);
}

/**
 * A bucket policy granting `bucket` to `accounts` in Sentinel Hub's form (Allow, s3:*, the bucket and its objects);
 * `over` replaces members of the statement (to make policies EO Edge refuses).
 */
export const grantPolicy = (bucket: string, accounts: string[], over: Record<string, unknown> = {}): string =>
  JSON.stringify({
    Version: "2012-10-17",
    Statement: [
      {
        Effect: "Allow",
        Principal: { AWS: accounts },
        Action: "s3:*",
        Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
        ...over,
      },
    ],
  });
