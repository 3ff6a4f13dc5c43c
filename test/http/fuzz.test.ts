/**
 * Fuzzing the body-taking endpoints with fast-check (fixed seed, bounded runs): random JSON, random text and
 * mutations of valid requests over real sample scenes. Whatever the body: never a 5xx; a 4xx is the API envelope
 * (OAuth's `{error, error_description}` at the token endpoint); a 200 is what the endpoint serves.
 */
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { base64url } from "jose";
import { TOKEN_PATH, authed, call, testClient, token } from "../helpers/auth";
import { FUZZ_SEED, bodyText, value } from "../helpers/fuzz";
import { seedSamples } from "../helpers/seed";
import { CRS, bandsScript } from "../helpers/process";

const RUNS = 200;
const BBOX = [501360, 5629040, 502000, 5629680];
const DAY = { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" };

const PROCESS = {
  input: {
    bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: DAY, maxCloudCoverage: 80 } }],
  },
  output: { width: 16, height: 16, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["B04", "B08"]),
};

const STATISTICS = {
  input: {
    bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { maxCloudCoverage: 80 } }],
  },
  aggregation: {
    timeRange: DAY,
    aggregationInterval: { of: "P1D", lastIntervalBehavior: "SHORTEN" },
    width: 16,
    height: 16,
    evalscript: `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: [{ id: "b", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { b: [s.B04], dataMask: [s.dataMask] }; }`,
  },
  calculations: {
    b: {
      histograms: { default: { nBins: 4, lowEdge: 0, highEdge: 1 } },
      statistics: { default: { percentiles: { k: [10, 50] } } },
    },
  },
};

const SEARCH = {
  collections: ["sentinel-2-l2a"],
  datetime: "2018-04-01T00:00:00Z/2018-05-01T00:00:00Z",
  intersects: {
    type: "Polygon",
    coordinates: [
      [
        [2.9, 50.8],
        [3.1, 50.8],
        [3.1, 50.9],
        [2.9, 50.8],
      ],
    ],
  },
  limit: 5,
  filter: {
    op: "and",
    args: [
      { op: "<", args: [{ property: "eo:cloud_cover" }, 50] },
      { op: "like", args: [{ property: "id" }, "S2%"] },
    ],
  },
  "filter-lang": "cql2-json",
  fields: { include: ["id", "properties.datetime"], exclude: ["assets"] },
};

/** Evalscripts a mutation may put in: odd outputs, mosaicking, wrong return shapes, throws. */
const v3 = (setup: string, body: string) =>
  `//VERSION=3\nfunction setup(){return ${setup}}\nfunction evaluatePixel(s){${body}}`;
const SCRIPTS = [
  v3(
    `{input:["B04","dataMask"],output:[{id:"default",bands:2,sampleType:"UINT8"},{id:"dataMask",bands:1}]}`,
    `return {default:[s.B04*255, NaN], dataMask:[s.dataMask]}`,
  ),
  v3(`{input:["B04","dataMask"],output:{bands:1,sampleType:"UINT16"}}`, `return [s.B04*1e9]`),
  v3(`{input:["B04"],output:{bands:3}}`, `return [s.B04]`),
  v3(`{input:["B04"],output:{bands:1}}`, `return "x"`),
  v3(`{input:["B04"],output:{bands:1}}`, `throw new Error("boom")`),
  v3(`{input:["B04"],output:{bands:1},mosaicking:"ORBIT"}`, `return [s.length]`),
  v3(
    `{input:[{bands:["B04","SCL","CLM","sunZenithAngles"],units:"DN"}],output:{bands:4,sampleType:"FLOAT32"}}`,
    `return [s.B04,s.SCL,s.CLM,s.sunZenithAngles]`,
  ),
  v3(
    `{input:["B04","dataMask"],output:[{id:"b",bands:1,sampleType:"FLOAT32"},{id:"dataMask",bands:1}]}`,
    `return {b:[Infinity],dataMask:[1]}`,
  ),
  v3(`{input:["VV","dataMask"],output:{bands:1}}`, `return [s.VV]`),
  v3(`{input:[],output:{bands:0}}`, `return []`),
];

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
  bearer = await token();
});

/** Asserts: below 500, and a 4xx is the envelope with the same status. Returns the status. */
async function checkEnvelope(r: Response): Promise<number> {
  if (r.status < 400) {
    await r.arrayBuffer();
    return r.status;
  }
  const text = await r.text();
  expect(r.status, text.slice(0, 500)).toBeLessThan(500);
  const e = (JSON.parse(text) as { error: Record<string, unknown> }).error;
  expect([e.status, typeof e.message, typeof e.code, typeof e.reason]).toEqual([
    r.status,
    "string",
    "string",
    "string",
  ]);
  return r.status;
}

const runs = { numRuns: RUNS, seed: FUZZ_SEED, verbose: 1 } as const;

describe("fuzz: never a 5xx, 4xx in the envelope", () => {
  for (const [route, valid] of [
    ["/api/v1/process", PROCESS],
    ["/api/v1/statistics", STATISTICS],
    ["/api/v1/catalog/1.0.0/search", SEARCH],
  ] as const) {
    it(`${route}: ${RUNS} bodies`, { timeout: 240_000 }, async () => {
      const first = await authed(
        route,
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(valid) },
        bearer,
      );
      expect(first.status, await first.clone().text()).toBe(200);
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(bodyText(valid, SCRIPTS), async (body) => {
          const status = await checkEnvelope(
            await authed(route, { method: "POST", headers: { "content-type": "application/json" }, body }, bearer),
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }),
        runs,
      );
      console.log(`fuzz ${route} (seed ${FUZZ_SEED}): statuses`, Object.fromEntries(statuses));
      // the mutations must also reach the evaluation/search, not only the validation
      expect(statuses.get(200) ?? 0).toBeGreaterThanOrEqual(RUNS / 20);
    });
  }

  it(`token endpoint: ${RUNS} forms and Basic headers`, { timeout: 120_000 }, async () => {
    const c = await testClient();
    const field = fc.oneof(
      fc.string({ unit: "binary", maxLength: 300 }),
      value().map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
    );
    const formArb = fc.record(
      {
        grant_type: fc.oneof(fc.constant("client_credentials"), field),
        client_id: fc.oneof(fc.constant(c.client_id), field),
        client_secret: fc.oneof(fc.constant(c.client_secret), field),
      },
      { requiredKeys: [] },
    );
    const basicArb = fc.option(
      fc.oneof(
        fc.string({ maxLength: 80 }).map((s) => `Basic ${s}`),
        fc
          .tuple(field, field)
          .map(([a, b]) => `Basic ${base64url.encode(`${a}:${b}`).replace(/-/g, "+").replace(/_/g, "/")}`),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        formArb,
        fc.dictionary(fc.string({ maxLength: 20 }), field, { maxKeys: 3 }),
        basicArb,
        async (fields, extra, authorization) => {
          const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
          if (authorization !== null) headers.authorization = authorization;
          const r = await call(TOKEN_PATH, {
            method: "POST",
            headers,
            body: new URLSearchParams({ ...extra, ...fields }).toString(),
          });
          const body = (await r.json()) as Record<string, unknown>;
          expect(r.status, JSON.stringify(body)).toBeLessThan(500);
          if (r.status === 200) expect(typeof body.access_token).toBe("string");
          else expect(Object.keys(body).sort()).toEqual(["error", "error_description"]);
        },
      ),
      runs,
    );
  });
});
