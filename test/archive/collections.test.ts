/**
 * The built-ins only an upstream archive holds (dem, landsat-ot-l2) and the archive adapters' access rules, against
 * the archive twin: DEM and Landsat pixels equal GDAL's reading of the same objects (test/fixtures/archive-reads);
 * Landsat from the requester-pays usgs-landsat bucket (SigV4 + x-amz-request-payer, checked by the twin); the
 * Planetary Computer adapter with its SAS tokens, fetched once, reused, fetched again after they expire; the
 * collections not offered without an archive or without the operator's AWS keys (Sentinel-1 GRD and its
 * processing options: test/archive/sentinel1.test.ts). (Plans over the subrequest limit are refused up front by src/pipeline/budget.ts,
 * upstream fetches counted with every other subrequest: test/budget.)
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { twinScope, type TwinScope } from "./scope";
import { sampleFile } from "../helpers/seed";
import { CRS, readTiff } from "../helpers/process";
import { forgetOpens } from "../../src/archive/bytes";
import { forgetUpstreamSearches } from "../../src/archive/upstream";
import { forgetSasTokens } from "../../src/archive/access";
import { clearCogCaches } from "../../src/raster/cog";

let bearer: string;
let twin: TwinScope;
/** The Planetary Computer adapter's vars on this file's scope. */
let PC: Record<string, string>;

const hook = (path: string, body?: unknown) => twin.hook(path, body);

/** POST /api/v1/process through the Worker reading this file's twin scope, with some bindings replaced. */
const processWith = (over: Record<string, string>, body: unknown) =>
  twin.call(
    "/api/v1/process",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    bearer,
    over,
  );
/** GET through the Worker reading this file's twin scope, with some bindings replaced. */
const getWith = (over: Record<string, string>, path: string) => twin.call(path, {}, bearer, over);

const script = (band: string, units = "DEFAULT") => `//VERSION=3
function setup(){return {input:[{bands:["${band}","dataMask"], units:"${units}"}], output:{bands:2, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [s.${band}, s.dataMask]}`;

/** The DEM window of test/fixtures/archive-reads/dem30.bin (native pixels of the GLO-30 tile N00 E006). */
const DEM_BBOX = [6.499861111111112, 0.17902777777777779, 6.570972222222224, 0.2501388888888889];
const demRequest = (dataFilter: Record<string, unknown> = {}) => ({
  input: { bounds: { bbox: DEM_BBOX, properties: { crs: CRS(4326) } }, data: [{ type: "dem", dataFilter }] },
  output: { width: 256, height: 256, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: script("DEM"),
});

/** The whole decimated Landsat fixture scene, on its own grid. */
const LS_BBOX = [143685, -204285 - 386 * 600.854922279792731, 143685 + 379 * 600.079155672823163, -204285];
const landsatRequest = (band: string, units?: string) => ({
  input: {
    bounds: { bbox: LS_BBOX, properties: { crs: CRS(32620) } },
    data: [
      {
        type: "landsat-ot-l2",
        dataFilter: { timeRange: { from: "2020-10-31T00:00:00Z", to: "2020-11-01T00:00:00Z" } },
      },
    ],
  },
  output: { width: 379, height: 386, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: script(band, units),
});

/** Band 1 and band 2 (dataMask) of a 2-band FLOAT32 GeoTIFF response. */
async function bands(r: Response): Promise<{ value: Float32Array; mask: Float32Array }> {
  // on failure the message carries the envelope (the upstream status and the redacted URL it failed on)
  expect(r.status, r.status === 200 ? "" : await r.clone().text()).toBe(200);
  const tif = await readTiff(await r.arrayBuffer());
  const n = tif.width * tif.height;
  const value = new Float32Array(n);
  const mask = new Float32Array(n);
  for (let i = 0; i < n; i++) [value[i], mask[i]] = [tif.data[2 * i]!, tif.data[2 * i + 1]!];
  return { value, mask };
}

beforeAll(async () => {
  bearer = await token();
  twin = await twinScope();
  PC = twin.vars("planetary-computer");
});

beforeEach(async () => {
  await hook("reset", {});
  forgetOpens();
  forgetUpstreamSearches();
  forgetSasTokens();
  clearCogCaches();
});

describe("dem (Copernicus DEM)", () => {
  it("GLO-30 from Earth Search equals GDAL on the same COG", async () => {
    const ref = new Float32Array(await sampleFile("fixtures/archive-reads/dem30.bin"));
    const { value, mask } = await bands(await processWith({}, demRequest({ demInstance: "COPERNICUS_30" })));
    expect(mask.every((m) => m === 1)).toBe(true);
    expect(value).toEqual(ref);
  });

  it("from the Planetary Computer: one SAS token, reused, fetched again once it is revoked", async () => {
    const ref = new Float32Array(await sampleFile("fixtures/archive-reads/dem30.bin"));
    expect((await bands(await processWith(PC, demRequest()))).value).toEqual(ref);
    expect((await hook("stats")).token).toBe(1);
    forgetOpens();
    clearCogCaches();
    expect((await bands(await processWith(PC, demRequest()))).value).toEqual(ref);
    expect((await hook("stats")).token).toBe(1);
    await hook("faults", { status: "expire-tokens" });
    forgetOpens();
    clearCogCaches();
    expect((await bands(await processWith(PC, demRequest()))).value).toEqual(ref);
    expect((await hook("stats")).token).toBe(2);
  });

  it("demInstance MAPZEN is a 400 naming the supported instances", async () => {
    const r = await processWith({}, demRequest({ demInstance: "MAPZEN" }));
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(
      /demInstance 'MAPZEN'.*COPERNICUS_30, COPERNICUS_90/,
    );
  });
});

describe("landsat-ot-l2 (requester pays)", () => {
  it("B04 REFLECTANCE and B10 KELVIN equal USGS scaling of GDAL's DN, read with the operator's signed requests", async () => {
    const dn4 = new Uint16Array(await sampleFile("fixtures/archive-reads/landsat_SR_B4.bin"));
    const b4 = await bands(await processWith({}, landsatRequest("B04")));
    for (let i = 0; i < dn4.length; i++) {
      expect(b4.mask[i]).toBe(dn4[i] ? 1 : 0);
      if (dn4[i]) expect(b4.value[i]).toBeCloseTo(dn4[i]! * 0.0000275 - 0.2, 5);
    }
    const dn10 = new Uint16Array(await sampleFile("fixtures/archive-reads/landsat_ST_B10.bin"));
    const b10 = await bands(await processWith({}, landsatRequest("B10")));
    const i = dn10.findIndex((v) => v > 0);
    expect(b10.value[i]).toBeCloseTo(dn10[i]! * 0.00341802 + 149, 3);
    const raw = await bands(await processWith({}, landsatRequest("B04", "DN")));
    expect(raw.value[dn4.findIndex((v) => v > 0)]).toBe(dn4.find((v) => v > 0));
  });

  it("without the operator's AWS keys the collection is not offered", async () => {
    const r = await processWith({ AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "" }, landsatRequest("B04"));
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(
      /Unknown data collection type 'landsat-ot-l2'/,
    );
    const list = await getWith({ AWS_ACCESS_KEY_ID: "" }, "/api/v1/catalog/1.0.0/collections");
    const ids = ((await list.json()) as { collections: { id: string }[] }).collections.map((c) => c.id);
    expect(ids).toContain("dem");
    expect(ids).not.toContain("landsat-ot-l2");
  });

  it("keys the bucket refuses: a 502 envelope naming the archive's answer", async () => {
    const r = await processWith(
      { AWS_ACCESS_KEY_ID: "AKIAWRONGWRONGWRONG0", AWS_SECRET_ACCESS_KEY: "wrong" },
      landsatRequest("B04"),
    );
    expect(r.status).toBe(502);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/answered 403/);
  });
});

describe("offering and limits", () => {
  it("no archive: dem and landsat-ot-l2 are not offered", async () => {
    const list = await getWith({ EO_EDGE_ARCHIVE: "" }, "/api/v1/catalog/1.0.0/collections");
    const ids = ((await list.json()) as { collections: { id: string }[] }).collections.map((c) => c.id);
    expect(ids).toEqual(["sentinel-2-l1c", "sentinel-2-l2a", "sentinel-1-grd"]);
  });
});
