/**
 * BYOC tile paths as Sentinel Hub documents them: `folder` (files `folder/<band>.tiff`), `folder/(BAND)`
 * (the extension is optional), `folder/(BAND).tiff` and `folder/(BAND).tif`; `.tif` files work wherever `.tiff`
 * ones do. Real West Flanders COGs in a local bucket, ingested by the real queue consumer (workerd, D1, R2).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, putInBucket, settled, tokenOf } from "../helpers/byoc";

const BUCKET = "byoc-paths";
const WF = "sentinel-2-l2a/westflanders/2018-04-14";
const C = "/api/v1/byoc/collections";
let owner: string;

beforeAll(async () => {
  owner = await tokenOf(crypto.randomUUID());
  for (const b of ["B04", "B08"]) {
    await putInBucket(BUCKET, `tiff/${b}.tiff`, `${WF}/${b}.tif`);
    await putInBucket(BUCKET, `tif/${b}.tif`, `${WF}/${b}.tif`);
    await putInBucket(BUCKET, `prefixed/t1_${b}_2018.tiff`, `${WF}/${b}.tif`);
  }
  await putInBucket(BUCKET, "half/B04.tiff", `${WF}/B04.tif`);
});

/** A new collection of the bucket (bands from its first tile unless given); its id. */
async function collection(bands?: Record<string, unknown>): Promise<string> {
  const r = await api(owner, "POST", C, {
    name: "paths",
    s3Bucket: BUCKET,
    ...(bands ? { additionalData: { bands } } : {}),
  });
  expect(r.status).toBe(201);
  return r.json.data.id;
}

/** Creates a tile of `body` in collection `c` and waits for its end state: [tile JSON, its file list]. */
async function ingest(c: string, body: Record<string, unknown>): Promise<[any, string[]]> {
  const r = await api(owner, "POST", `${C}/${c}/tiles`, body);
  expect(r.status).toBe(201);
  const t = await settled(owner, c, r.json.data.id);
  return [t, (await api(owner, "GET", `${C}/${c}/tiles/${t.id}/files`)).json];
}

const BANDS16 = { B04: { bitDepth: 16, sampleFormat: "UINT" }, B08: { bitDepth: 16, sampleFormat: "UINT" } };

describe("tile paths (Sentinel Hub's forms)", () => {
  const cases: [string, string[]][] = [
    ["tiff", ["tiff/B04.tiff", "tiff/B08.tiff"]],
    ["tiff/(BAND)", ["tiff/B04.tiff", "tiff/B08.tiff"]],
    ["tiff/(BAND).tiff", ["tiff/B04.tiff", "tiff/B08.tiff"]],
    ["tif", ["tif/B04.tif", "tif/B08.tif"]],
    ["tif/(BAND)", ["tif/B04.tif", "tif/B08.tif"]],
    ["tif/(BAND).tif", ["tif/B04.tif", "tif/B08.tif"]],
    ["prefixed/t1_(BAND)_2018.tiff", ["prefixed/t1_B04_2018.tiff", "prefixed/t1_B08_2018.tiff"]],
    ["prefixed/t1_(BAND)_2018", ["prefixed/t1_B04_2018.tiff", "prefixed/t1_B08_2018.tiff"]],
  ];
  for (const [path, files] of cases)
    for (const bands of [undefined, BANDS16])
      it(`${path} (${bands ? "bands configured" : "bands from the files"}) ingests ${files.join(", ")}`, async () => {
        const c = await collection(bands);
        const [t, listed] = await ingest(c, { path });
        expect([t.status, t.additionalData.failedIngestionCause]).toEqual(["INGESTED", null]);
        expect(listed).toEqual(files);
        const meta = (await api(owner, "GET", `${C}/${c}`)).json.data.additionalData.bands;
        expect(Object.keys(meta).sort()).toEqual(["B04", "B08"]);
        const item = (await api(owner, "GET", `/api/v1/catalog/1.0.0/collections/byoc-${c}/items/${t.id}`)).json;
        expect(
          Object.values(item.assets)
            .map((a: any) => a.href)
            .sort(),
        ).toEqual(files.map((f) => `s3://${BUCKET}/${f}`));
      });

  it("a missing band file: the cause names the keys expected", async () => {
    const c = await collection(BANDS16);
    const [t] = await ingest(c, { path: "half" });
    expect(t.status).toBe("FAILED");
    expect(t.additionalData.failedIngestionCause).toMatch(
      /half\/B08\.tiff is missing.*expected.*half\/B04\.tiff, half\/B08\.tiff/,
    );
    const [none] = await ingest(c, { path: "none/(BAND)" });
    expect(none.additionalData.failedIngestionCause).toMatch(/none\/B04\.tiff \(or \.tif\).*none\/B08\.tiff/);
  });

  it("no file matches a path (bands from the files): the cause names the keys looked for", async () => {
    const c = await collection();
    const [t] = await ingest(c, { path: "nothing/x_(BAND).tiff" });
    expect(t.status).toBe("FAILED");
    expect(t.additionalData.failedIngestionCause).toMatch(
      /No band files match path 'nothing\/x_\(BAND\)\.tiff'.*nothing\/x_<band>\.tiff/,
    );
  });
});

describe("tileGeometry given at creation (the spec: optional, any CRS, stored in CRS84, returned in the tile CRS)", () => {
  const UTM31 = { type: "name", properties: { name: "urn:ogc:def:crs:EPSG::32631" } };
  const ring = [
    [501400, 5629100],
    [501900, 5629100],
    [501900, 5629600],
    [501400, 5629100],
  ];

  it("is kept through ingestion and reingest; the files' extent only when none was given", async () => {
    const c = await collection();
    const [t] = await ingest(c, { path: "tiff", tileGeometry: { type: "Polygon", crs: UTM31, coordinates: [ring] } });
    expect(t.status).toBe("INGESTED");
    expect(t.tileGeometry.crs).toEqual(UTM31);
    t.tileGeometry.coordinates[0].forEach((p: number[], i: number) =>
      p.forEach((v, j) => expect(v).toBeCloseTo(ring[i]![j]!, 3)),
    );
    // the item's footprint: the given polygon in CRS84 (its bbox from GDAL: gdaltransform -s_srs EPSG:32631 -t_srs OGC:CRS84)
    const item = (await api(owner, "GET", `/api/v1/catalog/1.0.0/collections/byoc-${c}/items/${t.id}`)).json;
    [3.0198721546326, 50.8136253292962, 3.02697194166097, 50.8181217215268].forEach((v, i) =>
      expect(item.bbox[i]).toBeCloseTo(v, 9),
    );
    expect(item.geometry.coordinates[0]).toHaveLength(4);
    expect((await api(owner, "POST", `${C}/${c}/tiles/${t.id}/reingest`)).status).toBe(204);
    const again = await settled(owner, c, t.id);
    expect(again.tileGeometry.coordinates[0][1][0]).toBeCloseTo(501900, 3);
    const [plain] = await ingest(c, { path: "tiff/(BAND).tiff" });
    expect(plain.tileGeometry.coordinates).toEqual([
      [
        [501360, 5629040],
        [502000, 5629040],
        [502000, 5629680],
        [501360, 5629680],
        [501360, 5629040],
      ],
    ]);
  });

  it("without a crs member it is CRS84; a MultiPolygon is kept as one", async () => {
    const c = await collection();
    const square = [
      [3.02, 50.814],
      [3.025, 50.814],
      [3.025, 50.817],
      [3.02, 50.817],
      [3.02, 50.814],
    ];
    const [t] = await ingest(c, { path: "tiff", tileGeometry: { type: "MultiPolygon", coordinates: [[square]] } });
    expect([t.status, t.tileGeometry.type, t.tileGeometry.crs]).toEqual(["INGESTED", "MultiPolygon", UTM31]);
    const item = (await api(owner, "GET", `/api/v1/catalog/1.0.0/collections/byoc-${c}/items/${t.id}`)).json;
    expect(item.geometry).toMatchObject({ type: "MultiPolygon", coordinates: [[square]] });
  });

  it("a geometry that is not a polygon, has an open ring, an unknown CRS or lies outside it is a 400 naming tileGeometry", async () => {
    const c = await collection();
    const bad: [unknown, RegExp][] = [
      [{ type: "Point", coordinates: [3, 50] }, /tileGeometry/],
      [
        {
          type: "Polygon",
          coordinates: [
            [
              [3, 50],
              [4, 50],
              [4, 51],
              [3, 50.5],
            ],
          ],
        },
        /tileGeometry.*closed/,
      ],
      [
        { type: "Polygon", crs: { type: "name", properties: { name: "EPSG:999999" } }, coordinates: [ring] },
        /tileGeometry.*999999/,
      ],
      [{ type: "Polygon", coordinates: [ring] }, /tileGeometry.*(outside|range)/],
    ];
    for (const [tileGeometry, message] of bad) {
      const r = await api(owner, "POST", `${C}/${c}/tiles`, { path: `bad-${crypto.randomUUID()}`, tileGeometry });
      expect([r.status, r.json.error.message]).toEqual([400, expect.stringMatching(message)]);
    }
  });
});
