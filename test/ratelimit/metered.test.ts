/**
 * Every path that renders is metered from the route table (RouteMeta `metered`, read by the rate-limit
 * middleware): WMS GetMap and WMTS GetTile (public URLs: the instance owner's account) as the Processing API,
 * with real accounts, quotas and policies. Past the monthly quota: 403 OUT_OF_PU with the rate-limit headers and
 * nothing charged; a burst over a policy: 429 with X-RateLimit-ViolatedPolicy, Retry-After and
 * X-RateLimit-Remaining; what is admitted is charged, once. OGC answers are ServiceExceptionReports (text/xml)
 * carrying the same status, headers and code. (The regression it guards: GetMaps once went through a 1 PU quota
 * and a 2/s policy.)
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, authed } from "../helpers/auth";
import { newAccount, setLimiterClock, tokenOf, waitForUsage } from "../helpers/accounts";
import { seedSamples } from "../helpers/seed";
import { layerBody } from "../helpers/wms";
import { CRS } from "../helpers/process";
import { chargeUnits, unitsUsage } from "../../src/accounts/units";
import { createInstance } from "../../src/wms/configuration/store";
import type { LayerInput } from "../../src/wms/configuration/schema";

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const RED = `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "AUTO" } }; }
function evaluatePixel(s) { return [2.5 * s.B04]; }`;
const PROCESS_BODY = {
  input: {
    bounds: { bbox: [-12.0, 24.3, -11.9, 24.4], properties: { crs: CRS(4326) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: 64, height: 64 },
  evalscript: RED,
};

/** One way to render for an account: a call, and how its errors read (status, code, message). */
interface Channel {
  name: string;
  ogc: boolean;
  /** Prepares the account (a token or a WMS instance) and answers its rendering call. */
  setup(account: string, client: { client_id: string; client_secret: string }): Promise<() => Promise<Response>>;
}

/** An instance of `account` with layer RED, written to the store as the Configuration API does. */
async function instanceOf(account: string): Promise<string> {
  return (await createInstance(env, account, { name: "metered", layers: [layerBody("RED", RED) as LayerInput] })).id;
}

const CHANNELS: Channel[] = [
  {
    name: "Process",
    ogc: false,
    async setup(_account, client) {
      const bearer = await tokenOf(client);
      return () =>
        authed(
          "/api/v1/process",
          { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(PROCESS_BODY) },
          bearer,
        );
    },
  },
  {
    name: "WMS GetMap",
    ogc: true,
    async setup(account) {
      const id = await instanceOf(account);
      return () =>
        call(
          `/ogc/wms/${id}?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=RED&CRS=EPSG:4326&BBOX=24.3,-12.0,24.4,-11.9&WIDTH=64&HEIGHT=64&FORMAT=image/png`,
        );
    },
  },
  {
    name: "WMTS GetTile",
    ogc: true,
    async setup(account) {
      const id = await instanceOf(account);
      return () =>
        call(
          `/ogc/wmts/${id}?REQUEST=GetTile&LAYER=RED&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=10&TILECOL=478&TILEROW=440`,
        );
    },
  },
];

/** Status, code and message of an error answer: the JSON envelope, or an OGC ServiceExceptionReport (read by regex). */
async function errorOf(r: Response, ogc: boolean): Promise<{ status: number; code: string; message: string }> {
  const text = await r.text();
  if (!ogc) {
    const e = (JSON.parse(text) as { error: { status: number; code: string; message: string } }).error;
    expect(e.status).toBe(r.status);
    return { status: r.status, code: e.code, message: e.message };
  }
  expect(r.headers.get("content-type")).toMatch(/^text\/xml/);
  expect(text).toMatch(/<ServiceExceptionReport [^>]*xmlns="http:\/\/www\.opengis\.net\/ogc"/);
  const m = /<ServiceException code="([^"]+)"[^>]*>([^<]*)<\/ServiceException>/.exec(text);
  expect(m, text).not.toBeNull();
  return { status: r.status, code: m![1]!, message: m![2]! };
}

const spentOf = (r: Response): number => Number(r.headers.get("x-processingunits-spent"));
const settle = () => new Promise((r) => setTimeout(r, 150));

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
});

describe.each(CHANNELS)("$name is metered", ({ name, ogc, setup }) => {
  it("past the monthly quota: 403 OUT_OF_PU with the rate-limit headers, nothing more charged", async () => {
    const a = await newAccount({ puQuota: 1 });
    await setLimiterClock(`account:${a.account}`, T0);
    const render = await setup(a.account, a.client);
    const first = await render();
    expect(first.status, await first.clone().text()).toBe(200);
    expect(first.headers.get("x-ratelimit-remaining")).not.toBeNull();
    const spent = spentOf(first);
    expect(spent).toBeGreaterThan(0);
    await waitForUsage(a.account, spent); // charged after the response, once
    await chargeUnits(env, a.account, 1); // the month's quota (1 PU) is now used up
    const before = (await unitsUsage(env, a.account)).used;
    const refused = await render();
    expect(refused.status).toBe(403);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    const e = await errorOf(refused, ogc);
    expect(e.code).toBe("OUT_OF_PU");
    expect(e.message).toMatch(/Out of processing units/);
    await settle();
    expect((await unitsUsage(env, a.account)).used, name).toBe(before);
  });

  it("a burst over a 2 per second policy: 2 answered, 8 refused with 429 and the headers; the 2 are charged", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1S", limit: 2 }] });
    const render = await setup(a.account, a.client);
    await setLimiterClock(`account:${a.account}`, T0); // time stands still: no token comes back during the burst
    const rs = await Promise.all(Array.from({ length: 10 }, () => render()));
    const ok = rs.filter((r) => r.status === 200);
    const refused = rs.filter((r) => r.status !== 200);
    expect(ok.length).toBe(2);
    expect(refused.map((r) => r.status)).toEqual(Array(8).fill(429));
    for (const r of refused) {
      expect(r.headers.get("x-ratelimit-violatedpolicy")).toBe('{"samplingPeriod":"PT1S","limit":2}');
      expect(r.headers.get("retry-after")).toBe("500");
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      const e = await errorOf(r, ogc);
      expect(e.code).toBe("COMMON_TOO_MANY_REQUESTS");
      expect(e.message).toMatch(/2 per PT1S/);
    }
    const spent = ok.map(spentOf);
    expect(spent.every((pu) => pu > 0)).toBe(true);
    await waitForUsage(a.account, spent[0]! + spent[1]!);
    await settle();
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(spent[0]! + spent[1]!, 9);
  });
});

describe("what the OGC routes meter", () => {
  it("GetCapabilities spends no units: it still answers past the quota, and takes a token from the owner's policy", async () => {
    const a = await newAccount({ puQuota: 1, policies: [{ samplingPeriod: "PT1S", limit: 1 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    await chargeUnits(env, a.account, 5);
    const id = await instanceOf(a.account);
    for (const service of ["wms", "wmts"]) {
      await setLimiterClock(`account:${a.account}`, T0 + (service === "wms" ? 0 : 10_000));
      const caps = await call(`/ogc/${service}/${id}?SERVICE=${service.toUpperCase()}&REQUEST=GetCapabilities`);
      expect(caps.status, service).toBe(200);
      expect(caps.headers.get("x-ratelimit-remaining")).toBe("0");
      const again = await call(`/ogc/${service}/${id}?SERVICE=${service.toUpperCase()}&REQUEST=GetCapabilities`);
      expect(again.status).toBe(429);
      expect((await errorOf(again, true)).code).toBe("COMMON_TOO_MANY_REQUESTS");
    }
  });

  it("an unknown instance is still the OGC 404, charged to no one", async () => {
    const r = await call(`/ogc/wms/${crypto.randomUUID()}?SERVICE=WMS&REQUEST=GetMap&LAYERS=RED`);
    expect(r.status).toBe(404);
    expect((await errorOf(r, true)).code).toBe("InstanceNotFound");
  });
});
