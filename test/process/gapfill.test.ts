/**
 * SIMPLE mosaicking fills gaps per pixel: two overlapping PARTIAL acquisitions (real West Flanders B04 of
 * 2018-04-21 and 2018-04-19 cut along two swath edges by test/reference/derive_partial.py, a DERIVED fixture, see
 * data/SOURCES.md) and the numpy mosaics the script wrote (test/fixtures/process/partial/<order>.bin).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { token } from "../helpers/auth";
import { sampleFile } from "../helpers/seed";
import { window } from "../helpers/raster";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";

const BBOX = [501360, 5629040, 502000, 5629680];
const RANGE = { from: "2018-04-19T00:00:00Z", to: "2018-04-21T23:59:59Z" };
const N = 64 * 64;
let bearer: string;

beforeAll(async () => {
  const items = JSON.parse(
    new TextDecoder().decode(await sampleFile("fixtures/process/partial/items.json")),
  ) as StacItem[];
  for (const item of items) {
    await upsertItem(env, item);
    await env.DATA.put(item.assets.B04!.href, await sampleFile(item.assets.B04!.href));
  }
  bearer = await token();
});

const body = (dataFilter: Record<string, unknown>, evalscript = bandsScript(["B04", "dataMask"])) => ({
  input: {
    bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RANGE, ...dataFilter } }],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript,
});

async function run(dataFilter: Record<string, unknown>, evalscript?: string): Promise<ArrayLike<number>> {
  const r = await process(body(dataFilter, evalscript), bearer);
  expect(r.status).toBe(200);
  return (await readTiff(await r.arrayBuffer())).data;
}

/** numpy's mosaic: B04 reflectance, -1 where no scene has data. */
const expected = async (name: string) => new Float32Array(await sampleFile(`fixtures/process/partial/${name}.bin`));

/** Pixels whose [B04, dataMask] differ from the numpy mosaic. */
function mismatches(got: ArrayLike<number>, want: Float32Array): number {
  let bad = 0;
  for (let i = 0; i < N; i++) {
    const [b04, mask] = [got[i * 2]!, got[i * 2 + 1]!];
    if (want[i] === -1 ? mask !== 0 || b04 !== 0 : mask !== 1 || b04 !== want[i]) bad++;
  }
  return bad;
}

describe("SIMPLE gap-fill on partial acquisitions", () => {
  it("the fixture has pixels of every kind (only one scene, both, none)", async () => {
    const counts = JSON.parse(
      new TextDecoder().decode(await sampleFile("fixtures/process/partial/counts.json")),
    ) as Record<string, number>;
    expect(Object.values(counts).every((c) => c > 100)).toBe(true);
  });

  it("mostRecent: 04-21 where it has data, 04-19 fills its gap, dataMask 0 where neither has data", async () => {
    const want = await expected("mostRecent");
    expect(mismatches(await run({ mosaickingOrder: "mostRecent" }), want)).toBe(0);
  });

  it("leastRecent: 04-19 first, 04-21 fills the rest", async () => {
    const want = await expected("leastRecent");
    expect(mismatches(await run({ mosaickingOrder: "leastRecent" }), want)).toBe(0);
    expect(mismatches(await run({ mosaickingOrder: "leastRecent" }), await expected("mostRecent"))).toBeGreaterThan(
      100,
    );
  });

  it("leastCC: the clear 04-19 scene first (as leastRecent here)", async () => {
    expect(mismatches(await run({ mosaickingOrder: "leastCC" }), await expected("leastRecent"))).toBe(0);
  });

  it("maxCloudCoverage drops 04-21: its gap-only pixels have no data", async () => {
    expect(mismatches(await run({ maxCloudCoverage: 50 }), await expected("only_0419"))).toBe(0);
  });

  it("ORBIT gives each acquisition its own dataMask (no gap-fill across dates)", async () => {
    const script = `//VERSION=3
function setup(){return {input:[{bands:["B04","dataMask"]}], output:{bands:4, sampleType:"FLOAT32"}, mosaicking:"ORBIT"}}
function evaluatePixel(s){ return [s[0].B04, s[0].dataMask, s[1].B04, s[1].dataMask]; }`;
    const got = await run({}, script);
    const files = [
      await window("fixtures/process/partial/2018-04-21/B04.tif", 0, 0, 0, 64, 64),
      await window("fixtures/process/partial/2018-04-19/B04.tif", 0, 0, 0, 64, 64),
    ];
    let bad = 0;
    for (let i = 0; i < N; i++) {
      files.forEach((f, k) => {
        const dn = f[i]!;
        if (got[i * 4 + 2 * k + 1] !== (dn ? 1 : 0) || got[i * 4 + 2 * k] !== Math.fround(dn / 10000)) bad++;
      });
    }
    expect(bad).toBe(0);
  });
});
