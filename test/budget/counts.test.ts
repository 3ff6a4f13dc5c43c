/**
 * Subrequests and D1 queries of the worst-case request of each API, counted by the wrapper every invocation runs
 * under (src/budget): a long Statistical API series (1,000 daily intervals with data; a 5-year daily series), a
 * 2500 x 2500 multi-date Processing request, a batch tile (a queue invocation) and a WMTS tile. Each must stay
 * within the Paid plan's limits, or be refused up front with a 400 naming the limit and what fits. The table
 * is printed (the counts in docs/deploy-and-edge-limits.md come from it).
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, envelope, token } from "../helpers/auth";
import { CRS, process } from "../helpers/process";
import { sampleFile, seedSamples } from "../helpers/seed";
import { createInstance, layerBody } from "../helpers/wms";
import { batchTaskIn, deliver, msg, tileMessage } from "../helpers/batchtasks";
import { recentMeters, type Meter } from "../../src/budget/meter";
import { D1_QUERY_LIMIT, SUBREQUEST_LIMIT } from "../../src/budget/limits";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { authed } from "../helpers/auth";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
/** Days of synthetic daily acquisitions over the West Flanders field (one a day from SYNTH_FROM). */
const SYNTH_DAYS = 1000;
const SYNTH_FROM = Date.UTC(2019, 0, 1);
const WF = { bbox: [501360, 5629040, 502000, 5629680], crs: 32631 };
const NDVI = `//VERSION=3
function setup(){return {input:["B04","B08","dataMask"], output:[{id:"ndvi",bands:1,sampleType:"FLOAT32"},{id:"dataMask",bands:1}]}}
function evaluatePixel(s){return {ndvi:[(s.B08-s.B04)/(s.B08+s.B04)], dataMask:[s.dataMask]}}`;

const table: string[] = [];
let bearer: string;

/** The meter of the latest invocation labelled `label` (its work after the response included: waits for it). */
async function meterOf(label: string): Promise<Meter> {
  await new Promise((r) => setTimeout(r, 50));
  const m = [...recentMeters()].reverse().find((x) => x.label === label);
  if (!m) throw new Error(`no invocation ${label}`);
  return m;
}

/** Records a row of the table and checks the limits. */
function row(name: string, m: Meter): void {
  const c = m.counts();
  const kinds = Object.entries(c.calls)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  table.push(`| ${name} | ${c.subrequests} | ${c.d1Queries} | ${c.peakInFlight} | ${kinds} |`);
  expect(c.subrequests).toBeLessThanOrEqual(SUBREQUEST_LIMIT);
  expect(c.d1Queries).toBeLessThanOrEqual(D1_QUERY_LIMIT);
}

beforeAll(async () => {
  const items = await seedSamples((i) => i.id.includes("31UDS") || i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
  // a daily series: the 19 real West Flanders scenes' files, one a day for SYNTH_DAYS days
  const wf = items.filter((i) => i.id.includes("31UDS"));
  const synth: StacItem[] = Array.from({ length: SYNTH_DAYS }, (_, d) => {
    const base = wf[d % wf.length]!;
    const datetime = new Date(SYNTH_FROM + d * 86_400_000 + 10 * 3_600_000).toISOString();
    return { ...base, id: `synthetic-${d}`, properties: { ...base.properties, datetime } };
  });
  for (let i = 0; i < synth.length; i += 50) await Promise.all(synth.slice(i, i + 50).map((it) => upsertItem(E, it)));
}, 120_000);

afterAll(() =>
  console.log(
    ["| request | subrequests | D1 queries | peak in flight | calls by kind |", "|---|---|---|---|---|", ...table].join(
      "\n",
    ),
  ),
);

const statsBody = (from: string, to: string, of = "P1D") => ({
  input: { bounds: { bbox: WF.bbox, properties: { crs: CRS(WF.crs) } }, data: [{ type: "sentinel-2-l2a" }] },
  aggregation: { timeRange: { from, to }, aggregationInterval: { of }, width: 64, height: 64, evalscript: NDVI },
});

describe("Statistical API", () => {
  it("daily over the 19 real scenes (487 intervals, 19 with data)", async () => {
    const r = await authed(
      "/api/v1/statistics",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(statsBody("2017-08-01T00:00:00Z", "2018-12-01T00:00:00Z")),
      },
      bearer,
    );
    expect(r.status).toBe(200);
    const body = (await r.json()) as { status: string; data: unknown[] };
    expect(body.data).toHaveLength(19);
    row("statistics, P1D over 16 months, 19 intervals with data", await meterOf("POST /api/v1/statistics"));
  });

  it(`daily with data every day (${SYNTH_DAYS} intervals, 64 x 64 px) fits the budgets`, async () => {
    const to = new Date(SYNTH_FROM + SYNTH_DAYS * 86_400_000).toISOString();
    const r = await authed(
      "/api/v1/statistics",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(statsBody(new Date(SYNTH_FROM).toISOString(), to)),
      },
      bearer,
    );
    const text = await r.text();
    row(`statistics, P1D, ${SYNTH_DAYS} intervals with data`, await meterOf("POST /api/v1/statistics"));
    expect(r.status, text.slice(0, 500)).toBe(200);
    const body = JSON.parse(text) as { status: string; data: { error?: unknown }[] };
    expect(body.data.find((d) => d.error)).toBeUndefined();
    expect(body.status).toBe("OK");
    expect(body.data).toHaveLength(SYNTH_DAYS);
  }, 120_000);

  it("a daily series of 12 bands that would pass the subrequests is refused up front, naming what fits", async () => {
    const bands = ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12"];
    const script = `//VERSION=3
function setup(){return {input:${JSON.stringify([...bands, "dataMask"])}, output:[{id:"default",bands:${bands.length},sampleType:"FLOAT32"},{id:"dataMask",bands:1}]}}
function evaluatePixel(s){return {default:${JSON.stringify(bands)}.map((b)=>s[b]), dataMask:[s.dataMask]}}`;
    const to = new Date(SYNTH_FROM + SYNTH_DAYS * 86_400_000).toISOString();
    const body = statsBody(new Date(SYNTH_FROM).toISOString(), to);
    body.aggregation.evalscript = script;
    const r = await authed(
      "/api/v1/statistics",
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      bearer,
    );
    const e = await envelope(r);
    expect(r.status, e.message).toBe(400);
    expect(e.code).toBe("COMMON_BAD_PAYLOAD");
    expect(e.message).toMatch(/at most 10000/);
    const errors = e.errors as { limit: string; max: number; needed: number; fits: string };
    expect(errors).toMatchObject({ limit: "subrequests per invocation", max: SUBREQUEST_LIMIT });
    expect(errors.needed).toBeGreaterThan(SUBREQUEST_LIMIT);
    expect(errors.fits).toMatch(/^At most \d+ intervals with data fit \(up to 20\d\d-/);
    const c = (await meterOf("POST /api/v1/statistics")).counts();
    expect(c.calls.r2).toBe(0); // refused before any read
    row("statistics, P1D, 1000 intervals x 12 bands (400 up front)", await meterOf("POST /api/v1/statistics"));
  });

  it("a 5-year daily series is refused up front with a 400 naming the limit and what fits", async () => {
    const r = await authed(
      "/api/v1/statistics",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(statsBody("2019-01-01T00:00:00Z", "2024-01-01T00:00:00Z")),
      },
      bearer,
    );
    expect(r.status).toBe(400);
    const e = await envelope(r);
    expect(e.message).toMatch(/at most 1000/);
    row("statistics, P1D over 5 years (400)", await meterOf("POST /api/v1/statistics"));
  });
});

describe("Processing API", () => {
  it("2500 x 2500 px over 19 dates (ORBIT mosaicking, B04 + B08)", async () => {
    const script = `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1,sampleType:"FLOAT32"}, mosaicking:"ORBIT"}}
function evaluatePixel(samples){let m=-1; for (const s of samples) m=Math.max(m,(s.B08-s.B04)/(s.B08+s.B04)); return [m]}`;
    const body = {
      input: {
        bounds: { bbox: WF.bbox, properties: { crs: CRS(WF.crs) } },
        data: [
          {
            type: "sentinel-2-l2a",
            dataFilter: { timeRange: { from: "2017-08-01T00:00:00Z", to: "2018-12-01T00:00:00Z" } },
          },
        ],
      },
      output: { width: 2500, height: 2500, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
      evalscript: script,
    };
    const r = await process(body, bearer);
    expect(r.status, r.status === 200 ? "" : await r.clone().text()).toBe(200);
    await r.arrayBuffer();
    row("process, 2500 x 2500, 19 dates (ORBIT)", await meterOf("POST /api/v1/process"));
  }, 120_000);
});

describe("OGC WMTS", () => {
  it("a GetTile over the 29RKH scene", async () => {
    const script = new TextDecoder().decode(await sampleFile("evalscripts/sentinel-2__true_color__script.js"));
    const inst = await createInstance(bearer, [layerBody("TRUE_COLOR", script)]);
    const path = `/ogc/wmts/${inst.id}`;
    const r = await call(
      `${path}?REQUEST=GetTile&LAYER=TRUE_COLOR&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=9&TILECOL=239&TILEROW=219`,
    );
    expect(r.status).toBe(200);
    await r.arrayBuffer();
    row("WMTS GetTile 9/239/219 (first)", await meterOf(`GET ${path}`));
    const again = await call(
      `${path}?REQUEST=GetTile&LAYER=TRUE_COLOR&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=9&TILECOL=239&TILEROW=220`,
    );
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    row("WMTS GetTile 9/239/220 (next)", await meterOf(`GET ${path}`));
  });
});

describe("Batch processing", () => {
  it("one tile, run by the queue consumer", async () => {
    const { id, tiles } = await batchTaskIn("acct-budget", "PROCESSING", "budget-out");
    const r = await deliver("eo-edge-heavy", [msg("m1", tileMessage(id, tiles[0]!))]);
    expect(r.acked).toEqual(["m1"]);
    row("batch, one tile (queue invocation)", await meterOf("queue eo-edge-heavy"));
  }, 120_000);
});
