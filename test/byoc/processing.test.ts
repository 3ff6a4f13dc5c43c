/**
 * BYOC end to end in workerd (real D1, local R2 bucket, queue producer -> consumer): a collection of real West
 * Flanders Sentinel-2 COGs copied into a local bucket is ingested (bands configured from the first tile, tile
 * geometry, catalog items) and processed as byoc-<id>: pixel-exact equal to the file read by geotiff.js (an
 * oracle outside the engine) and to the same request on the built-in collection; data fusion with the built-in;
 * Statistical API; another account sees nothing.
 */
import { env } from "cloudflare:workers";
import { fromArrayBuffer } from "geotiff";
import { beforeAll, describe, expect, it } from "vitest";
import { api, putInBucket, settled, tokenOf } from "../helpers/byoc";
import { CRS, process, readTiff } from "../helpers/process";
import { sampleFile, seedSamples } from "../helpers/seed";

const BUCKET = "byoc-wf";
const DATES = ["2017-08-24", "2017-09-26", "2017-11-02"];
const BANDS = ["B02", "B03", "B04", "B08", "SCL"];
const BBOX = [501360, 5629040, 502000, 5629680];
const OWNER = crypto.randomUUID();
let owner: string, other: string, collection: string, tiles: string[];

beforeAll(async () => {
  const items = await seedSamples((i) => DATES.some((d) => i.id.includes(d.replaceAll("-", ""))));
  for (const d of DATES)
    for (const b of BANDS) await putInBucket(BUCKET, `wf/${d}/${b}.tif`, `sentinel-2-l2a/westflanders/${d}/${b}.tif`);
  [owner, other] = await Promise.all([tokenOf(OWNER), tokenOf(crypto.randomUUID())]);
  collection = (await api(owner, "POST", "/api/v1/byoc/collections", { name: "West Flanders", s3Bucket: BUCKET })).json
    .data.id;
  tiles = [];
  for (const [i, d] of DATES.entries()) {
    const sensingTime = items.find((it) => it.id.includes(d.replaceAll("-", "")))!.properties.datetime;
    const path = i === 0 ? `wf/${d}` : `wf/${d}/(BAND)`; // both path forms
    const r = await api(owner, "POST", `/byoc/v1/collections/${collection}/tiles`, { path, sensingTime });
    expect(r.status).toBe(201);
    tiles.push(r.json.data.id);
  }
  for (const t of tiles) expect((await settled(owner, collection, t)).status).toBe("INGESTED");
});

const dnScript = (bands: string[]) => `//VERSION=3
function setup() { return { input: [{ bands: ${JSON.stringify(bands)}, units: "DN" }], output: { bands: ${bands.length}, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [${bands.map((b) => `s.${b}`).join(", ")}]; }`;

const request = (type: string, from: string, to: string, evalscript = dnScript(["B04", "B08"])) => ({
  input: {
    bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
    data: [{ type, dataFilter: { timeRange: { from, to }, mosaickingOrder: "leastRecent" } }],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript,
});

async function tiff(body: unknown, bearer = owner) {
  const r = await process(body, bearer);
  if (r.status !== 200) throw new Error(`${r.status}: ${await r.text()}`);
  return readTiff(await r.arrayBuffer());
}

/** The pixels of a sample file, read by geotiff.js. */
async function filePixels(path: string): Promise<number[]> {
  const image = await (await fromArrayBuffer(await sampleFile(path))).getImage();
  return Array.from((await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>);
}

describe("ingestion", () => {
  it("configures the bands from the first tile and reports geometry, extent and sensing times", async () => {
    const c = (await api(owner, "GET", `/api/v1/byoc/collections/${collection}`)).json.data;
    expect(c.isConfigured).toBe(true);
    expect(Object.keys(c.additionalData.bands).sort()).toEqual(BANDS);
    expect(c.additionalData.bands.B04).toMatchObject({
      source: "B04",
      bandIndex: 1,
      bitDepth: 16,
      sampleFormat: "UINT",
    });
    expect(c.additionalData.bands.SCL).toMatchObject({ bitDepth: 8, sampleFormat: "UINT" });
    expect([c.additionalData.hasSensingTimes, c.additionalData.maxMetersPerPixel]).toEqual(["YES", 10]);
    expect(c.additionalData.fromSensingTime).toBe("2017-08-24T10:52:40.000Z");
    const t = (await api(owner, "GET", `/api/v1/byoc/collections/${collection}/tiles/${tiles[0]}`)).json.data;
    expect(t.tileGeometry.crs.properties.name).toBe("urn:ogc:def:crs:EPSG::32631");
    expect(t.tileGeometry.coordinates[0][0]).toEqual([BBOX[0], BBOX[1]]);
    expect(t.tileGeometry.coordinates[0][2]).toEqual([BBOX[2], BBOX[3]]);
    expect(t.additionalData).toEqual({ failedIngestionCause: null, warnings: null });
  });

  it("lists tiles with sort, exact path and status filters; metadata names the bands", async () => {
    const desc = (await api(owner, "GET", `/api/v1/byoc/collections/${collection}/tiles?sort=created:desc&count=2`))
      .json;
    expect(desc.data.map((t: { id: string }) => t.id)).toEqual([tiles[2], tiles[1]]);
    expect(desc.links.nextToken).toBeTypeOf("string");
    const byPath = (
      await api(
        owner,
        "GET",
        `/api/v1/byoc/collections/${collection}/tiles?path=${encodeURIComponent("wf/2017-08-24")}`,
      )
    ).json;
    expect(byPath.data.map((t: { id: string }) => t.id)).toEqual([tiles[0]]);
    expect((await api(owner, "GET", `/api/v1/byoc/collections/${collection}/tiles?status=FAILED`)).json.data).toEqual(
      [],
    );
    const meta = (await api(owner, "GET", `/api/v1/metadata/collection/byoc-${collection}`)).json;
    expect([meta.id, meta.datasetType]).toEqual([`byoc-${collection}`, "custom"]);
    expect(meta.bands).toContainEqual({ name: "SCL", sampleType: "UINT8" });
    expect(meta.location.id).toBeTypeOf("string");
  });

  it("the catalog lists the collection and its tiles as items with s3:// assets", async () => {
    const r = await api(owner, "GET", `/api/v1/catalog/1.0.0/collections/byoc-${collection}/items`);
    expect(r.status).toBe(200);
    const ids = r.json.features.map((f: { id: string }) => f.id).sort();
    expect(ids).toEqual([...tiles].sort());
    const f = r.json.features.find((x: { id: string }) => x.id === tiles[0]);
    expect(f.assets["B04.tif"].href).toBe(`s3://${BUCKET}/wf/2017-08-24/B04.tif`);
    expect(f.properties.datetime).toBe("2017-08-24T10:52:40.000Z");
  });
});

describe("processing byoc-<id>", () => {
  it("one date: the file's pixels, and the built-in collection's", async () => {
    const [from, to] = ["2017-08-24T00:00:00Z", "2017-08-25T00:00:00Z"];
    const byoc = await tiff(request(`byoc-${collection}`, from, to));
    const builtin = await tiff(request("sentinel-2-l2a", from, to));
    const [b04, b08] = await Promise.all(
      ["B04", "B08"].map((b) => filePixels(`sentinel-2-l2a/westflanders/2017-08-24/${b}.tif`)),
    );
    expect(Array.from(byoc.data).filter((_, i) => i % 2 === 0)).toEqual(b04);
    expect(Array.from(byoc.data).filter((_, i) => i % 2 === 1)).toEqual(b08);
    expect(Array.from(byoc.data)).toEqual(Array.from(builtin.data));
  });

  it("mosaicking over the three tiles by sensing time equals the built-in collection (both orders)", async () => {
    const [from, to] = ["2017-08-01T00:00:00Z", "2017-12-01T00:00:00Z"];
    for (const order of ["leastRecent", "mostRecent"]) {
      const req = (type: string) => {
        const r = request(type, from, to, dnScript(["B02", "B03", "B04", "B08"]));
        r.input.data[0]!.dataFilter.mosaickingOrder = order;
        return r;
      };
      const byoc = await tiff(req(`byoc-${collection}`));
      expect(Array.from(byoc.data)).toEqual(Array.from((await tiff(req("sentinel-2-l2a"))).data));
    }
    const newest = await filePixels("sentinel-2-l2a/westflanders/2017-11-02/B04.tif");
    const oldest = await filePixels("sentinel-2-l2a/westflanders/2017-08-24/B04.tif");
    expect(newest).not.toEqual(oldest); // the order matters on these files
  });

  it("data fusion with the built-in collection: both sources give the same pixels", async () => {
    const evalscript = `//VERSION=3
function setup() { return { input: [{ datasource: "b", bands: ["B04"], units: "DN" }, { datasource: "s", bands: ["B04"], units: "DN" }], output: { bands: 2, sampleType: "UINT16" } }; }
function evaluatePixel(samples) { return [samples.b[0].B04, samples.s[0].B04]; }`;
    const timeRange = { from: "2017-09-26T00:00:00Z", to: "2017-09-27T00:00:00Z" };
    const body = {
      input: {
        bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
        data: [
          { id: "b", type: `byoc-${collection}`, dataFilter: { timeRange } },
          { id: "s", type: "sentinel-2-l2a", dataFilter: { timeRange } },
        ],
      },
      output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
      evalscript,
    };
    const out = Array.from((await tiff(body)).data);
    const file = await filePixels("sentinel-2-l2a/westflanders/2017-09-26/B04.tif");
    expect(out.filter((_, i) => i % 2 === 0)).toEqual(file);
    expect(out.filter((_, i) => i % 2 === 1)).toEqual(file);
  });

  it("Statistical API: the same statistics as the built-in collection", async () => {
    const stats = async (type: string) => {
      const body = {
        input: { bounds: { bbox: BBOX, properties: { crs: CRS(32631) } }, data: [{ type }] },
        aggregation: {
          timeRange: { from: "2017-08-01T00:00:00Z", to: "2017-12-01T00:00:00Z" },
          aggregationInterval: { of: "P1D" },
          width: 64,
          height: 64,
          evalscript: `//VERSION=3
function setup() { return { input: [{ bands: ["B04", "dataMask"], units: "DN" }], output: [{ id: "b", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { b: [s.B04], dataMask: [s.dataMask] }; }`,
        },
      };
      const r = await api(owner, "POST", "/api/v1/statistics", body);
      expect(r.status).toBe(200);
      return r.json.data;
    };
    const byoc = await stats(`byoc-${collection}`);
    expect(byoc.length).toBe(3);
    expect(byoc).toEqual(await stats("sentinel-2-l2a"));
  });
});

describe("a multi-band file with bandIndex", () => {
  it("bands configured on the collection read their band of one file (B08 = band 1, B04 = band 2)", async () => {
    await putInBucket(BUCKET, "stack/stack.tif", "fixtures/byoc/stack_B08_B04.tif");
    const format = { source: "stack", bitDepth: 16, sampleFormat: "UINT" };
    const bands = { NIR: { ...format, bandIndex: 1 }, RED: { ...format, bandIndex: 2 } };
    const id = (
      await api(owner, "POST", "/api/v1/byoc/collections", {
        name: "stack",
        s3Bucket: BUCKET,
        additionalData: { bands },
      })
    ).json.data.id;
    const t = await api(owner, "POST", `/api/v1/byoc/collections/${id}/tiles`, {
      path: "stack/(BAND)",
      sensingTime: "2017-08-24T10:52:40Z",
    });
    expect((await settled(owner, id, t.json.data.id)).status).toBe("INGESTED");
    const out = Array.from(
      (await tiff(request(`byoc-${id}`, "2017-08-24T00:00:00Z", "2017-08-25T00:00:00Z", dnScript(["RED", "NIR"]))))
        .data,
    );
    const [b04, b08] = await Promise.all(
      ["B04", "B08"].map((b) => filePixels(`sentinel-2-l2a/westflanders/2017-08-24/${b}.tif`)),
    );
    expect(out.filter((_, i) => i % 2 === 0)).toEqual(b04);
    expect(out.filter((_, i) => i % 2 === 1)).toEqual(b08);
  });
});

describe("another account", () => {
  it("sees no collection, tile, metadata, catalog entry, and cannot process it", async () => {
    expect((await api(other, "GET", `/api/v1/byoc/collections/${collection}`)).status).toBe(404);
    expect((await api(other, "GET", `/api/v1/byoc/collections/${collection}/tiles/${tiles[0]}`)).status).toBe(404);
    expect((await api(other, "GET", "/api/v1/byoc/collections")).json.data).toEqual([]);
    expect((await api(other, "GET", `/api/v1/metadata/collection/byoc-${collection}`)).status).toBe(404);
    expect((await api(other, "GET", `/api/v1/catalog/1.0.0/collections/byoc-${collection}`)).status).toBe(404);
    // processing: the 404 of a collection that does not exist, word for word (nothing tells it exists)
    const r = await process(request(`byoc-${collection}`, "2017-08-01T00:00:00Z", "2017-12-01T00:00:00Z"), other);
    expect(r.status).toBe(404);
    const unknown = crypto.randomUUID();
    const none = await process(request(`byoc-${unknown}`, "2017-08-01T00:00:00Z", "2017-12-01T00:00:00Z"), other);
    expect(none.status).toBe(404);
    expect(JSON.stringify(await r.json()).replaceAll(collection, unknown)).toBe(JSON.stringify(await none.json()));
    expect(await env.DB.prepare("SELECT count(*) AS n FROM byoc_tiles WHERE account = ?").bind(OWNER).first("n")).toBe(
      4,
    ); // 3 + the stack tile
  });
});
