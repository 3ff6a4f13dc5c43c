/** Bad statistical requests: 400 envelope whose message says what to fix (limits stated). */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { references, statistics, type References } from "./helpers";
import { ndviScl, statsBody } from "./requests";

let bearer: string;
let refs: References;
let NDVI_SCL: string;

beforeAll(async () => {
  await seedSamples((i) => i.id.startsWith("S2_L2A_31UDS_"));
  bearer = await token();
  refs = await references();
  NDVI_SCL = await ndviScl();
});

type Body = ReturnType<typeof statsBody>;

/** A valid one-day West Flanders request, changed by `edit`. */
function body(edit: (b: Body) => void): Body {
  const c = refs.wf_p1d_april;
  const b = statsBody(
    { ...c, timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
    refs.wf_grid,
    NDVI_SCL,
  );
  edit(b);
  return b;
}

async function expect400(b: unknown, message: RegExp): Promise<void> {
  const r = await statistics(b, bearer);
  const text = await r.text();
  expect(r.status, text).toBe(400);
  const e = (JSON.parse(text) as { error: { status: number; reason: string; message: string; code: string } }).error;
  expect([e.status, e.reason, e.code]).toEqual([400, "Bad Request", "COMMON_BAD_PAYLOAD"]);
  expect(e.message).toMatch(message);
}

const hist = (h: unknown) => (b: Body) =>
  void ((b.calculations as Record<string, unknown>).ndvi = { histograms: { default: h } });
const pct = (k: number[]) => (b: Body) =>
  void ((b.calculations as Record<string, unknown>).ndvi = { statistics: { default: { percentiles: { k } } } });

describe("Statistical API bad input", () => {
  it("the baseline request is valid", async () => {
    expect(
      (
        await statistics(
          body(() => undefined),
          bearer,
        )
      ).status,
    ).toBe(200);
  });

  it("an evalscript without a dataMask output", async () => {
    const script = `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [(s.B08 - s.B04) / (s.B08 + s.B04)]; }`;
    await expect400(
      body((b) => void (b.aggregation.evalscript = script)),
      /no 'dataMask' output/,
    );
  });

  it("timeRange.from after timeRange.to", async () => {
    await expect400(
      body((b) => void (b.aggregation.timeRange = { from: "2018-05-01T00:00:00Z", to: "2018-04-01T00:00:00Z" })),
      /timeRange.from must not be after/,
    );
  });

  it("an unknown or sub-day aggregation period", async () => {
    for (const of of ["monthly", "PT1H", "P0D"])
      await expect400(
        body((b) => void (b.aggregation.aggregationInterval = { of })),
        /not a supported ISO 8601 period.*P1D/,
      );
  });

  it("an unknown lastIntervalBehavior", async () => {
    await expect400(
      body((b) => void (b.aggregation.aggregationInterval = { of: "P1D", lastIntervalBehavior: "ROUND" } as never)),
      /SKIP, SHORTEN or EXTEND/,
    );
  });

  it("nBins <= 0, binWidth <= 0, decreasing bins, two bin rules at once", async () => {
    await expect400(body(hist({ nBins: 0 })), /nBins must be at least 1/);
    await expect400(body(hist({ nBins: -3, lowEdge: 0, highEdge: 1 })), /nBins must be at least 1/);
    await expect400(body(hist({ binWidth: 0 })), /binWidth must be > 0/);
    await expect400(body(hist({ bins: [0, 0.5, 0.2] })), /strictly increasing/);
    await expect400(body(hist({ nBins: 4, binWidth: 0.1 })), /exactly one of nBins, binWidth or bins/);
    await expect400(body(hist({ nBins: 4, lowEdge: 1, highEdge: 0 })), /lowEdge must be less than highEdge/);
  });

  it("a percentile outside 0..100", async () => {
    await expect400(body(pct([50, 101])), /between 0 and 100/);
    await expect400(body(pct([-1])), /between 0 and 100/);
  });

  it("too many intervals, stating the limit", async () => {
    await expect400(
      body((b) => void (b.aggregation.timeRange = { from: "2015-01-01T00:00:00Z", to: "2018-06-01T00:00:00Z" })),
      /at most 1000 are allowed/,
    );
  });

  it("too many pixels: over 2500 px per side, or over the per-request total", async () => {
    await expect400(
      body((b) => void (b.aggregation.width = 3000)),
      /at most 2500/,
    );
    await expect400(
      body((b) => {
        b.aggregation = {
          ...b.aggregation,
          width: 2500,
          height: 2500,
          timeRange: { from: "2017-08-01T00:00:00Z", to: "2018-12-01T00:00:00Z" },
        };
      }),
      /at most 100000000 px per request/,
    );
  });

  it("calculations naming an output or band the evalscript does not have", async () => {
    await expect400(
      body((b) => void (b.calculations = { ndwi: {} })),
      /calculations.ndwi names no evalscript output; use one of ndvi or 'default'/,
    );
    await expect400(
      body((b) => void (b.calculations = { ndvi: { histograms: { B3: { nBins: 2 } } } })),
      /names no band of output 'ndvi'; use one of B0/,
    );
  });

  it("a band the collection does not have (every interval fails the same way: a 400)", async () => {
    await expect400(
      body((b) => void (b.aggregation.evalscript = NDVI_SCL.replace('"B08"', '"B99"'))),
      /B99/,
    );
  });

  it("missing aggregation or evalscript, width with resx", async () => {
    await expect400(
      body((b) => void delete (b as Partial<Body>).aggregation),
      /aggregation/,
    );
    await expect400(
      body((b) => void delete (b.aggregation as Partial<Body["aggregation"]>).evalscript),
      /evalscript is required/,
    );
    await expect400(
      body((b) => void Object.assign(b.aggregation, { resx: 10, resy: 10 })),
      /either width\/height or resx\/resy/,
    );
  });
});
