/**
 * Tenancy, ids and quotas ("70 of 70 attempts to use A's ids directly" held; kept so): with A's ids in
 * hand, B's token reads, changes, starts and deletes nothing of A's (async requests, batch and statistical batch
 * tasks, BYOC collections and tiles, Zarr collections, OAuth clients, WMS instances, the account itself), always
 * 404 as for an unknown id, and A's records are unchanged afterwards. B past its processing-unit quota is refused
 * while A's requests pass, and each is charged only its own units.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { chargeUnits, unitsUsage } from "../../src/accounts/units";
import { authed, envelope } from "../helpers/auth";
import { newAccount, tokenOf, waitForUsage } from "../helpers/accounts";
import { batchRequest } from "../helpers/batch";
import { api, settled } from "../helpers/byoc";
import { CRS, process } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { createInstance, INSTANCES, jsonInit, layerBody } from "../helpers/wms";

/** A's resources, by kind: the paths of A's records (and what B tries on them). */
const ids: Record<string, string> = {};
let a: string, b: string, aAccount: string;

const SCRIPT =
  "//VERSION=3\nfunction setup(){return {input:['B04'],output:{bands:1}}}\nfunction evaluatePixel(s){return [s.B04]}";
const small = {
  bounds: { bbox: [199980, 2690220, 209980, 2700220], properties: { crs: CRS(32629) } },
  data: [
    { type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } } },
  ],
};

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  const [ta, tb] = await Promise.all([newAccount(), newAccount()]);
  [a, b, aAccount] = [await tokenOf(ta.client), await tokenOf(tb.client), ta.account];
  const created = async (path: string, body: unknown) => {
    const r = await authed(path, jsonInit("POST", body), a);
    expect(r.status, await r.clone().text()).toBeLessThan(300);
    return (await r.json()) as Record<string, any>;
  };
  ids.async = (
    await created("/api/v1/async/process", {
      input: small,
      output: { width: 8, height: 8, delivery: { s3: { url: "s3://tenant-a-ids/async" } } },
      evalscript: SCRIPT,
    })
  ).id;
  ids.batch = (await created("/api/v2/batch/process", batchRequest("tenant-a-ids"))).id;
  await env.BUCKETS.put("tenant-a-ids/fields.gpkg", "not read before analysis");
  ids.statbatch = (
    await created("/api/v1/statistics/batch", {
      input: { features: { s3: { url: "s3://tenant-a-ids/fields.gpkg" } }, data: [{ type: "sentinel-2-l2a" }] },
      aggregation: {
        timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" },
        aggregationInterval: { of: "P1D" },
        resx: 10,
        resy: 10,
        evalscript: SCRIPT,
      },
      output: { s3: { url: "s3://tenant-a-ids/stats" } },
    })
  ).id;
  ids.byoc = (await created("/api/v1/byoc/collections", { name: "A's", s3Bucket: "tenant-a-ids" })).data.id;
  ids.tile = (await created(`/api/v1/byoc/collections/${ids.byoc}/tiles`, { path: "tiles/t1" })).data.id;
  await settled(a, ids.byoc, ids.tile); // FAILED (no files): its state no longer moves
  ids.zarr = (
    await created("/api/v1/zarr/collections", {
      name: "A's zarr",
      s3Bucket: "tenant-a-ids",
      path: "zarr/",
      crs: CRS(32631),
    })
  ).data.id;
  ids.client = (
    await created("/api/v1/accounts/me/clients", {
      name: "A's second",
      neverExpire: true,
      confirmNeverExpireRisk: true,
    })
  ).clientId;
  ids.wms = (await createInstance(a, [layerBody("TRUE", SCRIPT)])).id;
});

describe("A's ids with B's token", () => {
  const attempts = (): [string, string, unknown?][] => [
    ["GET", `/api/v1/async/process/${ids.async}`],
    ["GET", `/api/v2/batch/process/${ids.batch}`],
    ["PUT", `/api/v2/batch/process/${ids.batch}`, { description: "B's now" }],
    ["POST", `/api/v2/batch/process/${ids.batch}/analyse`],
    ["POST", `/api/v2/batch/process/${ids.batch}/start`],
    ["GET", `/api/v1/statistics/batch/${ids.statbatch}`],
    ["POST", `/api/v1/statistics/batch/${ids.statbatch}/start`],
    ["GET", `/api/v1/byoc/collections/${ids.byoc}`],
    ["PUT", `/api/v1/byoc/collections/${ids.byoc}`, { name: "B's now", s3Bucket: "tenant-b-ids" }],
    ["GET", `/api/v1/byoc/collections/${ids.byoc}/tiles/${ids.tile}`],
    ["GET", `/api/v1/byoc/collections/${ids.byoc}/tiles/${ids.tile}/files`],
    ["POST", `/api/v1/byoc/collections/${ids.byoc}/tiles`, { path: "tiles/b" }],
    ["POST", `/api/v1/byoc/collections/${ids.byoc}/tiles/${ids.tile}/reingest`],
    ["DELETE", `/api/v1/byoc/collections/${ids.byoc}/tiles/${ids.tile}`],
    ["DELETE", `/api/v1/byoc/collections/${ids.byoc}`],
    ["GET", `/api/v1/zarr/collections/${ids.zarr}`],
    ["PUT", `/api/v1/zarr/collections/${ids.zarr}/reingest`],
    ["DELETE", `/api/v1/zarr/collections/${ids.zarr}`],
    ["GET", `/api/v1/accounts/${aAccount}`],
    ["GET", `/api/v1/accounts/${aAccount}/clients`],
    ["GET", `/api/v1/accounts/me/clients/${ids.client}`],
    ["DELETE", `/api/v1/accounts/me/clients/${ids.client}`],
    ["GET", `${INSTANCES}/${ids.wms}`],
    ["PUT", `${INSTANCES}/${ids.wms}`, { name: "B's now", layers: [] }],
    ["DELETE", `${INSTANCES}/${ids.wms}`],
    ["GET", `/api/v1/metadata/collection/byoc-${ids.byoc}`],
  ];

  /** A's view of its records (not the async request's, which finishes on its own meanwhile). */
  const aView = () =>
    Promise.all(
      attempts()
        .filter(([m, p]) => m === "GET" && !p.includes("/async/"))
        .map(async ([, p]) => (await authed(p, {}, a)).text()),
    );

  it("every attempt is 404 as for an unknown id, and A's records are unchanged", async () => {
    const before = await aView();
    for (const [method, path, body] of attempts()) {
      const r = await authed(path, jsonInit(method, body), b);
      expect([r.status, (await envelope(r)).code], `${method} ${path}`).toEqual([404, "COMMON_NOT_FOUND"]);
    }
    const after = await aView();
    expect(after.map((t) => t.replace(/"lastUpdated":"[^"]+"/g, ""))).toEqual(
      before.map((t) => t.replace(/"lastUpdated":"[^"]+"/g, "")),
    );
  });

  it("B's lists hold nothing of A's", async () => {
    for (const path of [
      "/api/v2/batch/process",
      "/api/v1/statistics/batch",
      "/api/v1/byoc/collections",
      "/api/v1/zarr/collections",
    ]) {
      const text = await (await authed(path, {}, b)).text();
      for (const id of Object.values(ids)) expect(text, path).not.toContain(id);
    }
    expect(await (await authed(INSTANCES, {}, b)).json()).toEqual([]);
    expect(
      ((await api(b, "GET", "/api/v1/accounts/me/clients")).json.data as { clientId: string }[]).map((c) => c.clientId),
    ).not.toContain(ids.client);
  });
});

describe("quotas", () => {
  it("B past its quota is refused (403 OUT_OF_PU) while A's requests pass; each account is charged its own units", async () => {
    const tb = await newAccount({ puQuota: 1 });
    const bearerB = await tokenOf(tb.client);
    await chargeUnits(env, tb.account, 1);
    const before = (await unitsUsage(env, aAccount)).used;
    const body = { input: small, output: { width: 64, height: 64 }, evalscript: SCRIPT };
    const [ra, rb] = await Promise.all([process(body, a), process(body, bearerB)]);
    expect(ra.status).toBe(200);
    expect([rb.status, (await envelope(rb)).code]).toEqual([403, "OUT_OF_PU"]);
    const spent = Number(ra.headers.get("x-processingunits-spent"));
    expect(await waitForUsage(aAccount, before + spent)).toBeCloseTo(before + spent, 9);
    expect((await unitsUsage(env, tb.account)).used).toBe(1);
  });
});
