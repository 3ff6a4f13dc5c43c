/**
 * Tenancy, grants: while A's bucket policy grants B the bucket, B may make BYOC and Zarr collections on
 * it, ingest, list and download tile files and process their pixels; once A removes the policy every one of those
 * is refused at its own step (files, download, Process, new tiles, reingestion, Zarr reingestion: 403 or FAILED
 * with the reason), never answering A's bytes. The policy is set here through src/buckets/owners.ts as the S3
 * endpoint's PutBucketPolicy does (that operation itself, with botocore: test/tenancy/s3.test.ts).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { bucketPolicy, setBucketPolicy } from "../../src/buckets/owners";
import { PolicyError } from "../../src/buckets/policy";
import { authed } from "../helpers/auth";
import { api, putInBucket, settled } from "../helpers/byoc";
import { CRS, process } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { putZarrFixture, settledZarr } from "../helpers/zarr";
import { jsonInit } from "../helpers/wms";
import { grantPolicy, refused, tenant, type Tenant, WF_DATE, WF_SENSED, wfB04, wfRequest } from "./helpers";

const BYOC = "/api/v1/byoc/collections";
const ZARR = "/api/v1/zarr/collections";
const BUCKET = "tenant-a-shared";

let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  await seedSamples((i) => i.id.includes(WF_DATE.replaceAll("-", "")));
  [a, b] = await Promise.all([tenant(), tenant()]);
  for (const band of ["B04", "B08"])
    await putInBucket(BUCKET, `wf/${WF_DATE}/${band}.tif`, `sentinel-2-l2a/westflanders/${WF_DATE}/${band}.tif`);
  await putZarrFixture("westflanders.zarr", `s3://${BUCKET}/wf.zarr/`);
  await setBucketPolicy(env, a.account, BUCKET, grantPolicy(BUCKET, [b.account])); // A claims the bucket and grants it
});

describe("a granted bucket, then the grant revoked", () => {
  it("BYOC: B ingests, lists, downloads and processes while granted; after the revocation every step is refused", async () => {
    const c = (await api(b.bearer, "POST", BYOC, { name: "B on A's shared bucket", s3Bucket: BUCKET })).json.data
      .id as string;
    const t = (await api(b.bearer, "POST", `${BYOC}/${c}/tiles`, { path: `wf/${WF_DATE}`, sensingTime: WF_SENSED }))
      .json.data.id as string;
    expect((await settled(b.bearer, c, t)).status).toBe("INGESTED");
    const files = `${BYOC}/${c}/tiles/${t}/files`;
    expect((await api(b.bearer, "GET", files)).json).toEqual([`wf/${WF_DATE}/B04.tif`, `wf/${WF_DATE}/B08.tif`]);
    const file = await authed(`${files}/wf/${WF_DATE}/B04.tif`, { headers: { range: "bytes=0-3" } }, b.bearer);
    expect([file.status, Array.from(new Uint8Array(await file.arrayBuffer()))]).toEqual([
      206,
      [0x49, 0x49, 0x2a, 0x00],
    ]);
    const pixels = await wfB04(`byoc-${c}`, b.bearer);
    expect(pixels.filter((v) => v > 0).length).toBe(64 * 64);

    await setBucketPolicy(env, a.account, BUCKET, null);
    await refused(await authed(files, {}, b.bearer));
    await refused(await authed(`${files}/wf/${WF_DATE}/B04.tif`, {}, b.bearer));
    await refused(await process(wfRequest(`byoc-${c}`), b.bearer));
    await refused(await authed(`${BYOC}/${c}/tiles`, jsonInit("POST", { path: `wf/${WF_DATE}/(BAND)` }), b.bearer));
    expect((await authed(`${BYOC}/${c}/tiles/${t}/reingest`, { method: "POST" }, b.bearer)).status).toBe(204);
    const again = await settled(b.bearer, c, t);
    expect(again.status).toBe("FAILED");
    expect(again.additionalData.failedIngestionCause).toMatch(/Access to bucket 'tenant-a-shared' is denied/);
  });

  it("Zarr: B's collection is ingested and processed while granted; after the revocation Process is 403 and reingestion FAILS", async () => {
    await setBucketPolicy(env, a.account, BUCKET, grantPolicy(BUCKET, [b.account]));
    const created = await authed(
      ZARR,
      jsonInit("POST", { name: "B's view of A's group", s3Bucket: BUCKET, path: "wf.zarr/", crs: CRS(32631) }),
      b.bearer,
    );
    expect(created.status).toBe(201);
    const z = ((await created.json()) as { data: { id: string; status: string } }).data;
    expect(z.status).toBe("CREATED"); // ingested right after the answer
    expect((await settledZarr(b.bearer, z.id)).status).toBe("INGESTED");
    expect((await wfB04(`zarr-${z.id}`, b.bearer)).filter((v) => v > 0).length).toBe(64 * 64);

    await setBucketPolicy(env, a.account, BUCKET, null);
    await refused(await process(wfRequest(`zarr-${z.id}`), b.bearer));
    const again = await authed(`${ZARR}/${z.id}/reingest`, { method: "PUT" }, b.bearer);
    expect(again.status).toBe(200);
    const data = ((await again.json()) as { data: { status: string; ingestionErrors: string } }).data;
    expect(data.status).toBe("FAILED");
    expect(data.ingestionErrors).toMatch(/Access to bucket 'tenant-a-shared' is denied/);
  });

  it("only the owner sets the policy: B cannot grant itself (or anyone) A's bucket", async () => {
    await expect(setBucketPolicy(env, b.account, BUCKET, grantPolicy(BUCKET, [b.account]))).rejects.toMatchObject({
      kind: "forbidden",
    });
    await refused(await authed(BYOC, jsonInit("POST", { name: "still refused", s3Bucket: BUCKET }), b.bearer));
  });

  it("a grant to an account that does not exist is refused naming it (S3 answers 400 MalformedPolicy)", async () => {
    const ghost = crypto.randomUUID();
    const before = await bucketPolicy(env, a.account, BUCKET);
    const e = await setBucketPolicy(env, a.account, BUCKET, grantPolicy(BUCKET, [b.account, ghost])).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(PolicyError);
    expect((e as Error).message).toBe(
      `The bucket policy grants account(s) that do not exist: ${ghost}. Grant existing account ids only.`,
    );
    expect(await bucketPolicy(env, a.account, BUCKET)).toBe(before); // the refused policy was not stored
  });
});
