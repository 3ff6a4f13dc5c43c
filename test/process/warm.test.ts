/**
 * A warm Process request's round trips, counted by the wrapper every invocation runs under (src/budget): once the
 * isolate has served the same request, the token's claims and its client's state, the collection, the scene search,
 * the compiled script and the file blocks come from per-isolate caches, so the request makes no D1 query and no R2
 * read, and one call to the account's RateLimiter (its decision, which carries the previous request's charge), or
 * none when the isolate holds a lease of the account's tokens (src/ratelimit/lease.ts, test/ratelimit/lease.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { process } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { recentMeters } from "../../src/budget/meter";

const body = (evalscript: string, size: number) => ({
  input: {
    bounds: { bbox: [-12.0, 24.3, -10.8, 25.3] },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: size, height: size, responses: [{ identifier: "default", format: { type: "image/png" } }] },
  evalscript,
});
const NDVI = `//VERSION=3
function setup(){return {input:["B04","B08","dataMask"],output:{bands:4}}}
function evaluatePixel(s){let n=(s.B08-s.B04)/(s.B08+s.B04);return n<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]}`;
const B08 = `//VERSION=3
function setup(){return {input:["B08"],output:{bands:1}}}
function evaluatePixel(s){return [2.5*s.B08]}`;

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
}, 120_000);

describe("a warm Process request", () => {
  it("makes no D1 query, no R2 read and at most one limiter call (NDVI 512 and B08 256 PNG)", async () => {
    for (const b of [body(NDVI, 512), body(B08, 256)]) {
      for (let i = 0; i < 3; i++) {
        const r = await process(b, bearer);
        expect(r.status).toBe(200);
        await r.arrayBuffer();
        if (i === 0) continue; // the first fills the caches
        const m = [...recentMeters()].reverse().find((x) => x.label === "POST /api/v1/process")!;
        const c = m.counts();
        expect([c.d1Queries, c.calls.r2, c.calls.fetch]).toEqual([0, 0, 0]);
        // its decision: one limiter call, or none when this isolate holds a lease of the account's tokens
        expect(c.calls["durable-object"] ?? 0).toBeLessThanOrEqual(1);
      }
    }
  }, 120_000);
});
