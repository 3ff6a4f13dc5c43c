/**
 * Data fusion in the Processing API on real pixels: two West Flanders L2A dates as two sources (compared with
 * the GDAL references of test/reference/references.py), ORBIT fusion with preProcessScenes(collections.<id>), and
 * S2 L2A + S1 GRD + S2 L1C in one request equal to single-source requests of each, and strips (> 1 Mpx).
 * Bad fusion input gets a 400 that says what to fix.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { compare, reference } from "../helpers/refs";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";
import { STRIP_PIXELS } from "../../src/pipeline/pipeline";

const BBOX = [501360, 5629040, 502000, 5629680];
const day = (d: string) => ({ from: `${d}T00:00:00Z`, to: `${d}T23:59:59Z` });
let bearer: string;

beforeAll(async () => {
  await seedSamples(
    (i) =>
      i.id.includes("31UDS_2018") ||
      i.id === "S2A_29RKH_20200219_0_L2A" ||
      i.id.startsWith("S1A_IW_GRDH") ||
      i.id.startsWith("S2A_MSIL1C"),
  );
  bearer = await token();
});

type Data = { type: string; id?: string; dataFilter?: Record<string, unknown> };

/** A FLOAT32 GeoTIFF request over the West Flanders grid (64 x 64 px, 10 m, UTM 31N). */
const wf = (data: Data[], evalscript: string) => ({
  input: { bounds: { bbox: BBOX, properties: { crs: CRS(32631) } }, data },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript,
});

/** A fusion script: `inputs` as setup() input, evaluatePixel body `body` returning `bands` values. */
const fusionScript = (inputs: string, bands: number, body: string, extra = "") => `//VERSION=3
function setup() { return { input: ${inputs}, output: { bands: ${bands}, sampleType: "FLOAT32" }${extra} }; }
function evaluatePixel(samples, scenes) { ${body} }`;

async function tiff(body: unknown) {
  const r = await process(body, bearer);
  if (r.status !== 200) throw new Error(`${r.status}: ${await r.text()}`);
  return { pu: Number(r.headers.get("x-processingunits-spent")), ...(await readTiff(await r.arrayBuffer())) };
}

/** Band `b` of a pixel-interleaved array with `n` bands. */
const band = (data: ArrayLike<number>, n: number, b: number) =>
  Float32Array.from({ length: data.length / n }, (_, i) => data[i * n + b]!);

describe("two L2A sources over West Flanders (own one-day timeRange each)", () => {
  it("samples.a / samples.b are the 2018-04-14 and 2018-04-19 pixels, one sample each, with their own dataMask", async () => {
    const [r14, r19] = [await reference("wf_2018-04-14_b04"), await reference("wf_2018-04-19_b04")];
    expect(compare(r14.data, r19.data, 1e-6).mismatch).toBeGreaterThan(0.9); // the two dates differ: a swap shows
    const script = fusionScript(
      `[{datasource: "a", bands: ["B04", "dataMask"]}, {datasource: "b", bands: ["B04", "dataMask"]}]`,
      5,
      "const a = samples.a[0], b = samples.b[0]; return [a.B04, b.B04, a.dataMask + 2 * b.dataMask, samples.a.length, samples.b.length];",
    );
    const t = await tiff(
      wf(
        [
          { type: "sentinel-2-l2a", id: "a", dataFilter: { timeRange: day("2018-04-14") } },
          { type: "S2L2A", id: "b", dataFilter: { timeRange: day("2018-04-19") } },
        ],
        script,
      ),
    );
    expect(compare(band(t.data, 5, 0), r14.data, 1e-6).mismatch).toBe(0);
    expect(compare(band(t.data, 5, 1), r19.data, 1e-6).mismatch).toBe(0);
    expect(new Set(band(t.data, 5, 2))).toEqual(new Set([3])); // both sources have data everywhere
    expect(new Set(band(t.data, 5, 3))).toEqual(new Set([1]));
    expect(new Set(band(t.data, 5, 4))).toEqual(new Set([1]));
    // per source: (64*64 / 512^2) px x (1 band / 3) x 1 sample x 2 (FLOAT32), summed over the two sources
    expect(t.pu).toBeCloseTo(2 * (4096 / 262144 / 3) * 2, 5); // each source's PU is rounded to 1e-6
  });

  it("one source with an id and datasource inputs works the same (samples.<id>[0], not NaN)", async () => {
    const r19 = await reference("wf_2018-04-19_b04");
    const script = fusionScript(`[{datasource: "s2", bands: ["B04"]}]`, 1, "return [samples.s2[0].B04];");
    const t = await tiff(
      wf([{ type: "sentinel-2-l2a", id: "s2", dataFilter: { timeRange: day("2018-04-19") } }], script),
    );
    expect(compare(t.data, r19.data, 1e-6).mismatch).toBe(0);
  });

  it("a SIMPLE source without any scene gives no sample (samples.<id> is empty), the other still its pixels", async () => {
    const r14 = await reference("wf_2018-04-14_b04");
    const script = fusionScript(
      `[{datasource: "a", bands: ["B04"]}, {datasource: "none", bands: ["B04", "dataMask"]}]`,
      3,
      "return [samples.a[0].B04, samples.a.length, samples.none.length];",
    );
    const t = await tiff(
      wf(
        [
          { type: "S2L2A", id: "a", dataFilter: { timeRange: day("2018-04-14") } },
          { type: "S2L2A", id: "none", dataFilter: { timeRange: day("2019-01-01") } },
        ],
        script,
      ),
    );
    expect(compare(band(t.data, 3, 0), r14.data, 1e-6).mismatch).toBe(0);
    expect(new Set(band(t.data, 3, 1))).toEqual(new Set([1]));
    expect(new Set(band(t.data, 3, 2))).toEqual(new Set([0]));
  });

  it("mosaicking per input: SIMPLE a and ORBIT b give 1 and 4 samples, scenes.b.scenes lists b's orbits", async () => {
    const [r14, r19] = [await reference("wf_2018-04-14_b04"), await reference("wf_2018-04-19_b04")];
    const script = fusionScript(
      `[{datasource: "a", bands: ["B04"]}, {datasource: "b", bands: ["B04"], mosaicking: "ORBIT"}]`,
      6,
      `const b = samples.b;
  return [samples.a.length, b.length, samples.a[0].B04, b[b.length - 1].B04, scenes.b.scenes.length, scenes.b.scenes[0].dateFrom.startsWith("2018-04-21") ? 1 : 0];`,
    );
    const april = { timeRange: { from: "2018-04-14T00:00:00Z", to: "2018-04-21T23:59:59Z" } };
    const t = await tiff(
      wf(
        [
          { type: "S2L2A", id: "a", dataFilter: { timeRange: day("2018-04-19") } },
          { type: "S2L2A", id: "b", dataFilter: april },
        ],
        script,
      ),
    );
    for (const [b, v] of [
      [0, 1],
      [1, 4],
      [4, 4],
      [5, 1],
    ])
      expect(new Set(band(t.data, 6, b!)), `band ${b}`).toEqual(new Set([v]));
    expect(compare(band(t.data, 6, 2), r19.data, 1e-6).mismatch).toBe(0);
    expect(compare(band(t.data, 6, 3), r14.data, 1e-6).mismatch).toBe(0); // least recent orbit last
    // PU per source: a 1 sample, b 4 samples (1 band each, FLOAT32)
    expect(t.pu).toBeCloseTo((1 + 4) * (4096 / 262144 / 3) * 2, 5);
  });

  it("TILE per input: scenes.<id>.scenes[i] are that source's tiles (tileOriginalId, date), most recent first", async () => {
    const script = fusionScript(
      `[{datasource: "a", bands: ["B04"]}, {datasource: "t", bands: ["B04"], mosaicking: "TILE"}]`,
      3,
      `const s = scenes.t.scenes;
  return [s.length, s[0].tileOriginalId.includes("20180421") ? 1 : 0, s[s.length - 1].date.startsWith("2018-04-14") ? 1 : 0];`,
    );
    const april = { timeRange: { from: "2018-04-14T00:00:00Z", to: "2018-04-21T23:59:59Z" } };
    const t = await tiff(
      wf(
        [
          { type: "S2L2A", id: "a", dataFilter: { timeRange: day("2018-04-19") } },
          { type: "S2L2A", id: "t", dataFilter: april },
        ],
        script,
      ),
    );
    expect([0, 1, 2].map((b) => [...new Set(band(t.data, 3, b))])).toEqual([[4], [1], [1]]);
  });

  it("processing options are per source: NEAREST and BILINEAR upsampling equal their single-source requests", async () => {
    const data = (upsampling: string, id?: string): Data & { processing: unknown } => ({
      type: "S2L2A",
      ...(id ? { id } : {}),
      dataFilter: { timeRange: day("2018-04-19") },
      processing: { upsampling },
    });
    const at128 = (b: ReturnType<typeof wf>) => ({ ...b, output: { ...b.output, width: 128, height: 128 } });
    const script = fusionScript(
      `[{datasource: "n", bands: ["B04"]}, {datasource: "b", bands: ["B04"]}]`,
      2,
      "return [samples.n[0].B04, samples.b[0].B04];",
    );
    const fused = await tiff(at128(wf([data("NEAREST", "n"), data("BILINEAR", "b")], script)));
    const nearest = await tiff(at128(wf([data("NEAREST")], bandsScript(["B04"]))));
    const bilinear = await tiff(at128(wf([data("BILINEAR")], bandsScript(["B04"]))));
    expect(compare(nearest.data, bilinear.data, 1e-6).mismatch).toBeGreaterThan(0.5);
    expect(compare(band(fused.data, 2, 0), nearest.data, 0).mismatch).toBe(0);
    expect(compare(band(fused.data, 2, 1), bilinear.data, 0).mismatch).toBe(0);
  });

  it("ORBIT: preProcessScenes gets collections.<id> with each source's own time range; samples.<id> per kept orbit", async () => {
    const [r14, r19] = [await reference("wf_2018-04-14_b04"), await reference("wf_2018-04-19_b04")];
    // a: 04-14..04-16 (two acquisitions), b: 04-19..04-21 (two); each keeps only the orbit of its own 'from' day
    const pre = `function preProcessScenes(collections) {
  for (const id of ["a", "b"]) {
    const first = collections[id].from.toISOString().slice(0, 10);
    collections[id].scenes.orbits = collections[id].scenes.orbits.filter((o) => o.dateFrom.startsWith(first));
  }
  return collections;
}`;
    const script =
      fusionScript(
        `[{datasource: "a", bands: ["B04"]}, {datasource: "b", bands: ["B04"]}]`,
        5,
        "return [samples.a.length, samples.b.length, samples.a[0].B04, samples.b[0].B04, scenes.a.orbits.length + 10 * scenes.b.orbits.length];",
        ', mosaicking: "ORBIT"',
      ) + `\n${pre}`;
    const range = (from: string, to: string) => ({ timeRange: { from: `${from}T00:00:00Z`, to: `${to}T23:59:59Z` } });
    const t = await tiff(
      wf(
        [
          { type: "S2L2A", id: "a", dataFilter: range("2018-04-14", "2018-04-16") },
          { type: "S2L2A", id: "b", dataFilter: range("2018-04-19", "2018-04-21") },
        ],
        script,
      ),
    );
    expect(new Set(band(t.data, 5, 0))).toEqual(new Set([1]));
    expect(new Set(band(t.data, 5, 1))).toEqual(new Set([1]));
    expect(compare(band(t.data, 5, 2), r14.data, 1e-6).mismatch).toBe(0);
    expect(compare(band(t.data, 5, 3), r19.data, 1e-6).mismatch).toBe(0);
    expect(new Set(band(t.data, 5, 4))).toEqual(new Set([11]));
  });
});

describe("S2 L2A + S1 GRD + S2 L1C in one request", () => {
  // 29RKH (Western Sahara), the S1 scene (southern India) and 19UDP (Quebec) in one EPSG:4326 grid at 0.15 deg
  const GRID = { bbox: [-72, 8, 80, 52], width: 1013, height: 293 };
  const SOURCES: Record<string, Data & { bands: string[] }> = {
    l2a: { type: "sentinel-2-l2a", dataFilter: { timeRange: day("2020-02-19") }, bands: ["B04", "B08"] },
    s1: {
      type: "sentinel-1-grd",
      dataFilter: { timeRange: day("2018-07-16"), orbitDirection: "DESCENDING" },
      bands: ["VV", "VH"],
    },
    l1c: { type: "sentinel-2-l1c", dataFilter: { timeRange: day("2017-07-29") }, bands: ["B04"] },
  };
  const body = (data: Data[], evalscript: string) => ({
    input: { bounds: { bbox: GRID.bbox, properties: { crs: CRS(4326) } }, data },
    output: {
      width: GRID.width,
      height: GRID.height,
      responses: [{ identifier: "default", format: { type: "image/tiff" } }],
    },
    evalscript,
  });

  it("every source's bands and dataMask equal its single-source request; processing units are their sum", async () => {
    const ids = Object.keys(SOURCES);
    const names = ids.flatMap((id) => [...SOURCES[id]!.bands.map((b) => `${id}.${b}`), `${id}.dataMask`]);
    const inputs = `[${ids.map((id) => `{datasource: "${id}", bands: ${JSON.stringify([...SOURCES[id]!.bands, "dataMask"])}}`).join(", ")}]`;
    const values = ids.map((id) => `const ${id} = samples.${id}[0];`).join(" ");
    const fused = await tiff(
      body(
        ids.map((id) => ({ type: SOURCES[id]!.type, id, dataFilter: SOURCES[id]!.dataFilter })),
        fusionScript(inputs, names.length, `${values} return [${names.join(", ")}];`),
      ),
    );
    let pu = 0;
    let offset = 0;
    const masks: Float32Array[] = [];
    for (const id of ids) {
      const s = SOURCES[id]!;
      const single = await tiff(
        body([{ type: s.type, dataFilter: s.dataFilter }], bandsScript([...s.bands, "dataMask"])),
      );
      pu += single.pu;
      const n = s.bands.length + 1;
      for (let b = 0; b < n; b++) {
        const got = band(fused.data, names.length, offset + b);
        expect(compare(got, band(single.data, n, b), 0).mismatch, `${names[offset + b]}`).toBe(0);
      }
      masks.push(band(single.data, n, n - 1));
      offset += n;
    }
    // each source has pixels of its own, in disjoint places (the scenes are continents apart)
    for (const m of masks) expect(m.reduce((a, v) => a + v, 0)).toBeGreaterThan(20);
    for (let i = 0; i < masks[0]!.length; i++)
      expect(masks[0]![i]! + masks[1]![i]! + masks[2]![i]!).toBeLessThanOrEqual(1);
    expect(fused.pu).toBeCloseTo(pu, 5);
  });
});

describe("strips (> 1 Mpx) with data fusion", () => {
  it("two dates at 0.625 m (1088 x 1088 px, 17 x upsampled, NEAREST) equal the references pixel by pixel", async () => {
    const [r14, r19] = [await reference("wf_2018-04-14_b04"), await reference("wf_2018-04-19_b04")];
    const size = 64 * 17;
    expect(size * size).toBeGreaterThan(STRIP_PIXELS);
    const script = fusionScript(
      `[{datasource: "a", bands: ["B04"]}, {datasource: "b", bands: ["B04"]}]`,
      2,
      "return [samples.a[0].B04, samples.b[0].B04];",
    );
    const body = wf(
      [
        { type: "S2L2A", id: "a", dataFilter: { timeRange: day("2018-04-14") } },
        { type: "S2L2A", id: "b", dataFilter: { timeRange: day("2018-04-19") } },
      ],
      script,
    );
    const t = await tiff({ ...body, output: { ...body.output, width: size, height: size } });
    // output pixel (row, col) lies in reference pixel (row / 17, col / 17), rounded down
    const up = (ref: Float32Array) =>
      Float32Array.from(
        { length: size * size },
        (_, i) => ref[Math.floor(i / size / 17) * 64 + Math.floor((i % size) / 17)]!,
      );
    expect(compare(band(t.data, 2, 0), up(r14.data), 1e-6).mismatch).toBe(0);
    expect(compare(band(t.data, 2, 1), up(r19.data), 1e-6).mismatch).toBe(0);
  });
});

describe("bad fusion input -> 400", () => {
  const two = (a: Partial<Data> = {}, b: Partial<Data> = {}): Data[] => [
    { type: "S2L2A", id: "a", dataFilter: { timeRange: day("2018-04-14") }, ...a },
    { type: "sentinel-1-grd", id: "b", ...b },
  ];
  const script = fusionScript(
    `[{datasource: "a", bands: ["B04"]}, {datasource: "b", bands: ["VV"]}]`,
    1,
    "return [0];",
  );

  async function expect400(body: unknown, pattern: RegExp): Promise<void> {
    const r = await process(body, bearer);
    const json = (await r.json()) as { error: { status: number; message: string } };
    expect(r.status, json.error?.message).toBe(400);
    expect(json.error.status).toBe(400);
    expect(json.error.message).toMatch(pattern);
  }

  it("a datasource that matches no input.data id names the ids", () =>
    expect400(
      wf(two(), script.replace('datasource: "b"', 'datasource: "s1"')),
      /datasource "s1", which matches no input.data id; the input.data ids are "a", "b"/,
    ));
  it("duplicate ids", () => expect400(wf(two({}, { id: "a" }), script), /ids must be unique; "a"/));
  it("several sources without ids", () =>
    expect400(wf(two({ id: undefined }), script), /each needs an "id".*input.data\[0\] has none/));
  it("an input without datasource next to several sources", () =>
    expect400(
      wf(two(), fusionScript(`[{datasource: "a", bands: ["B04"]}, {bands: ["VV"]}]`, 1, "return [0];")),
      /input\[1\] has no "datasource"/,
    ));
  it("bands are checked against each source's own collection", () =>
    expect400(
      wf(
        two(),
        fusionScript(`[{datasource: "a", bands: ["VV"]}, {datasource: "b", bands: ["B04"]}]`, 1, "return [0];"),
      ),
      /Unknown band 'VV' for collection sentinel-2-l2a/,
    ));
  it("all sources' samples count together against the memory bound (MAX_SAMPLE_VALUES)", async () => {
    // 1024 x 1024 px x 16 orbits (the 2018 acquisitions) x 8 bands = 134 M values per source (allowed alone), 268 M for two
    const bands = JSON.stringify(["B02", "B03", "B04", "B08", "SCL", "CLM", "sunZenithAngles", "sunAzimuthAngles"]);
    const orbit = fusionScript(
      `[{datasource: "a", bands: ${bands}}, {datasource: "b", bands: ${bands}}]`,
      1,
      "return [0];",
      ', mosaicking: "ORBIT"',
    );
    const series = { timeRange: { from: "2017-08-01T00:00:00Z", to: "2018-11-30T23:59:59Z" } };
    const body = wf(
      [
        { type: "S2L2A", id: "a", dataFilter: series },
        { type: "S2L2A", id: "b", dataFilter: series },
      ],
      orbit,
    );
    await expect400(
      { ...body, output: { ...body.output, width: 1024, height: 1024 } },
      /16 samples x 8 bands \+ 16 samples x 8 bands of 1048576 px = 268435456 values; at most 250000000/,
    );
  });
  it("units are checked against each source's own collection", () =>
    expect400(
      wf(
        two(),
        fusionScript(
          `[{datasource: "a", bands: ["B04"]}, {datasource: "b", bands: ["VV"], units: "REFLECTANCE"}]`,
          1,
          "return [0];",
        ),
      ),
      /VV of sentinel-1-grd does not support units 'REFLECTANCE'/,
    ));
});
