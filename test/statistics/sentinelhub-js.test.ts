/**
 * sentinelhub-js (the official JS client) against EO Edge's Statistical API: its own request path
 * (`StatisticalApi.getStatistics`: axios POST with the bearer token) goes to the worker under test through an
 * axios adapter that hands the request to the worker's fetch, and its parser (`StatisticsUtils.convertToFISResponse`,
 * what EO Browser and `layer.getStats(..., STAPI)` users feed the response to) must accept the result.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { StatisticalApi, StatisticsUtils } from "@sentinel-hub/sentinelhub-js";
import { token } from "../helpers/auth";
import { routeSentinelHubJsToWorker } from "../helpers/shjs";
import { seedSamples } from "../helpers/seed";
import { references, type References } from "./helpers";
import { ndviScl, statsBody } from "./requests";

let bearer: string;
let refs: References;
let script: string;

beforeAll(async () => {
  await seedSamples((i) => i.id.startsWith("S2_L2A_31UDS_2018"));
  bearer = await token();
  refs = await references();
  script = await ndviScl();
  routeSentinelHubJsToWorker();
});

describe("sentinelhub-js statistics parsing", () => {
  it("getStatistics returns EO Edge's response and convertToFISResponse turns it into per-band daily stats", async () => {
    const c = refs.wf_p1d_april;
    const payload = statsBody(c, refs.wf_grid, script);
    const res = (await new StatisticalApi().getStatistics("http://localhost/api/v1/statistics", payload as never, {
      authToken: bearer,
      cache: undefined,
    })) as unknown as {
      status: string;
      data: Parameters<typeof StatisticsUtils.convertToFISResponse>[0];
    };
    expect(res.status).toBe("OK");
    const fis = StatisticsUtils.convertToFISResponse(res.data, "ndvi") as unknown as Record<
      string,
      { date: Date; basicStats: Record<string, unknown>; histogram?: { bins: { lowEdge: unknown }[] } }[]
    >;
    expect(Object.keys(fis)).toEqual(["C0"]); // FIS naming: B0 -> C0
    const days = fis.C0!;
    expect(days.map((d) => d.date.toISOString().slice(0, 10))).toEqual([
      "2018-04-26",
      "2018-04-21",
      "2018-04-19",
      "2018-04-16",
      "2018-04-14",
      "2018-04-11",
    ]);
    const apr19 = days.find((d) => d.date.toISOString().startsWith("2018-04-19"))!;
    const ref = c.entries.find((e) => e.dates![0] === "2018-04-19")!.bands.B0!.stats;
    expect(apr19.basicStats).toMatchObject({
      min: ref.min,
      max: ref.max,
      sampleCount: ref.sampleCount,
      noDataCount: ref.noDataCount,
    });
    // percentiles become FIS-style equal-frequency bins: [min, p5, p25, p50, p75, p95]
    expect(apr19.histogram!.bins.map((b) => b.lowEdge)).toEqual([ref.min, ...Object.values(ref.percentiles!)]);
  });
});
