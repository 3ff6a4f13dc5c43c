/**
 * Tenancy, collections: account B cannot make a BYOC or Zarr collection over account A's bucket (create
 * or update: 403, nothing stored), so it can add no tile at A's paths, download none of A's files and process none
 * of A's pixels; A's own collections keep working. What B may do once A grants it the bucket, and what B loses
 * when A revokes the grant, is test/tenancy/grants.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed } from "../helpers/auth";
import { api, putInBucket, settled } from "../helpers/byoc";
import { CRS, process } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { putZarrFixture, settledZarr } from "../helpers/zarr";
import { refused, tenant, type Tenant, WF_DATE, WF_SENSED, wfB04, wfRequest } from "./helpers";

const BYOC = "/api/v1/byoc/collections";
const ZARR = "/api/v1/zarr/collections";
const A_BYOC = "tenant-a-byoc";
const A_ZARR = "tenant-a-zarr";
const BANDS = ["B04", "B08"];

let a: Tenant;
let b: Tenant;
let aCollection: string;
let aTile: string;

beforeAll(async () => {
  await seedSamples((i) => i.id.includes(WF_DATE.replaceAll("-", "")));
  [a, b] = await Promise.all([tenant(), tenant()]);
  for (const band of BANDS)
    await putInBucket(A_BYOC, `wf/${WF_DATE}/${band}.tif`, `sentinel-2-l2a/westflanders/${WF_DATE}/${band}.tif`);
  aCollection = (await api(a.bearer, "POST", BYOC, { name: "A's collection", s3Bucket: A_BYOC })).json.data.id;
  aTile = (
    await api(a.bearer, "POST", `${BYOC}/${aCollection}/tiles`, { path: `wf/${WF_DATE}`, sensingTime: WF_SENSED })
  ).json.data.id;
  expect((await settled(a.bearer, aCollection, aTile)).status).toBe("INGESTED");
  await putZarrFixture("westflanders.zarr", `s3://${A_ZARR}/wf.zarr/`);
  const zarr = await authed(
    ZARR,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "A's zarr", s3Bucket: A_ZARR, path: "wf.zarr/", crs: CRS(32631) }),
    },
    a.bearer,
  );
  expect(zarr.status).toBe(201);
  expect((await settledZarr(a.bearer, ((await zarr.json()) as { data: { id: string } }).data.id)).status).toBe(
    "INGESTED",
  );
});

describe("BYOC", () => {
  it("B cannot create a collection on A's bucket: 403, nothing stored", async () => {
    const r = await authed(
      BYOC,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "B on A's bucket", s3Bucket: A_BYOC }),
      },
      b.bearer,
    );
    await refused(r, [`wf/${WF_DATE}`]);
    expect((await api(b.bearer, "GET", BYOC)).json.data).toEqual([]);
  });

  it("B cannot move its own collection onto A's bucket: 403, the collection keeps its bucket", async () => {
    const mine = (await api(b.bearer, "POST", BYOC, { name: "B's", s3Bucket: "tenant-b-byoc" })).json.data.id as string;
    const r = await authed(
      `${BYOC}/${mine}`,
      {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "B's", s3Bucket: A_BYOC }),
      },
      b.bearer,
    );
    await refused(r);
    expect((await api(b.bearer, "GET", `${BYOC}/${mine}`)).json.data.s3Bucket).toBe("tenant-b-byoc");
  });

  it("A's collection, tile files and pixels stay A's: B gets 404 for them, A gets them", async () => {
    expect((await api(b.bearer, "GET", `${BYOC}/${aCollection}/tiles/${aTile}/files`)).status).toBe(404);
    expect(
      (await authed(`${BYOC}/${aCollection}/tiles/${aTile}/files/wf/${WF_DATE}/B04.tif`, {}, b.bearer)).status,
    ).toBe(404);
    expect((await process(wfRequest(`byoc-${aCollection}`), b.bearer)).status).toBe(404); // as an unknown collection for B
    expect((await api(a.bearer, "GET", `${BYOC}/${aCollection}/tiles/${aTile}/files`)).json).toEqual(
      BANDS.map((band) => `wf/${WF_DATE}/${band}.tif`),
    );
    expect((await wfB04(`byoc-${aCollection}`, a.bearer)).filter((v) => v > 0).length).toBe(64 * 64);
  });
});

describe("Zarr", () => {
  it("B cannot register a Zarr collection on A's group: 403, nothing stored", async () => {
    const body = { name: "B on A's group", s3Bucket: A_ZARR, path: "wf.zarr/", crs: CRS(32631) };
    await refused(
      await authed(
        ZARR,
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
        b.bearer,
      ),
      [".zarray", ".zattrs"],
    );
    expect(((await (await authed(ZARR, {}, b.bearer)).json()) as { data: unknown[] }).data).toEqual([]);
  });
});
