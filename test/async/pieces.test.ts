/**
 * An async 4000 x 4000 request over the whole 29RKH tile equals the same area made synchronously in four
 * 2000 x 2000 Processing requests, pixel for pixel, for two outputs:
 * - `dn` (UINT8: the B04 DN modulo 251, sensitive to every source pixel) decoded by tifffile without imagecodecs,
 *   GDAL and Pillow (PY_DECODE), with GDAL's geotransform and EPSG;
 * - `refl` (FLOAT32 B04 reflectance, 64 MB raw) decoded by geotiff.js; it is larger than one 5 MiB part, so it
 *   went out as a multipart upload (R2's `-<parts>` etag), strip by strip.
 * The async request runs as two strip units (rows 0-2095 and 2096-3999, ./render.ts stripUnits) whose parts the
 * assembly joins, so the comparison covers the join. The sync pieces come as tar (one member per output) and are
 * decoded with geotiff.js.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { authed, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { CRS, process, readTiff } from "../helpers/process";
import { readTar } from "../helpers/tar";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";
import { stripUnits } from "../../src/async/render";

const [X0, Y0, X1, Y1] = [199980, 2690220, 309780, 2800020];
const XM = (X0 + X1) / 2;
const YM = (Y0 + Y1) / 2;
const N = 4000;
const H = N / 2;
const SCRIPT = `//VERSION=3
function setup() {
  return { input: ["B04"], output: [{ id: "dn", bands: 1, sampleType: "UINT8" }, { id: "refl", bands: 1, sampleType: "FLOAT32" }] };
}
function evaluatePixel(s) { return { dn: [Math.round(s.B04 * 10000) % 251], refl: [s.B04] }; }`;
const RESPONSES = [
  { identifier: "dn", format: { type: "image/tiff" } },
  { identifier: "refl", format: { type: "image/tiff" } },
];
const input = (bbox: number[]) => ({
  bounds: { bbox, properties: { crs: CRS(32629) } },
  data: [
    { type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } } },
  ],
});

/** Quadrants: [bbox, row offset, col offset] in the 4000 x 4000 grid. */
const QUADRANTS: [number[], number, number][] = [
  [[X0, YM, XM, Y1], 0, 0],
  [[XM, YM, X1, Y1], 0, H],
  [[X0, Y0, XM, YM], H, 0],
  [[XM, Y0, X1, YM], H, H],
];

let bearer: string;
let id: string;
/** The sync result assembled: dn and refl, N x N row-major. */
const sync = { dn: new Uint8Array(N * N), refl: new Float32Array(N * N) };

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
  const r = await authed(
    "/api/v1/async/process",
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        input: input([X0, Y0, X1, Y1]),
        output: { width: N, height: N, responses: RESPONSES, delivery: { s3: { url: "s3://pieces/out" } } },
        evalscript: SCRIPT,
      }),
    },
    bearer,
  );
  expect(r.status).toBe(200);
  id = ((await r.json()) as { id: string }).id;
  // the sync pieces after the async request ended: beside its render, on a loaded machine, the isolate's memory
  // admission may answer a 2000 x 2000 request 503 (overloaded), as it should
  await vi.waitFor(async () => expect((await authed(`/api/v1/async/process/${id}`, {}, bearer)).status).toBe(404), {
    timeout: 900_000,
    interval: 1000,
  });
  for (const [bbox, row0, col0] of QUADRANTS) {
    const p = await process(
      { input: input(bbox), output: { width: H, height: H, responses: RESPONSES }, evalscript: SCRIPT },
      bearer,
    );
    expect(p.status).toBe(200);
    for (const m of readTar(new Uint8Array(await p.arrayBuffer()))) {
      const t = await readTiff(m.data.slice().buffer);
      const into = m.name === "dn.tif" ? sync.dn : sync.refl;
      for (let row = 0; row < H; row++)
        into.set(Array.prototype.slice.call(t.data, row * H, (row + 1) * H) as number[], (row0 + row) * N + col0);
    }
  }
}, 1_200_000);

/** Pixels where `a` and `b` differ. */
function differing(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let bad = 0;
  for (let i = 0; i < N * N; i++) if (a[i] !== b[i]) bad++;
  return bad;
}

describe("async 4000 x 4000 over 29RKH = four sync 2000 x 2000 pieces", () => {
  it("dn.tif: tifffile (no imagecodecs), GDAL and Pillow read the sync pixels exactly; GDAL georeferencing", async (ctx) => {
    expect(stripUnits({ width: N, height: N })).toEqual([
      { row: 0, rows: 2096 },
      { row: 2096, rows: 1904 },
    ]);
    expect((await env.DATA.list({ prefix: `_tasks/${id}/` })).objects.filter((o) => o.key.includes("/parts/"))).toEqual(
      [],
    ); // deleted once DONE
    const file = new Uint8Array(await (await env.BUCKETS.get(`pieces/out/${id}/dn.tif`))!.arrayBuffer());
    const [decoded] = (await pyDecode(ctx, [{ kind: "tiff", data: file }])) as PyImage[];
    const { tifffile, gdal, pillow } = decoded!;
    expect(tifffile).toMatchObject({ shape: [N, N], dtype: "uint8", compression: 8, predictor: 2 });
    expect(gdal).toMatchObject({
      shape: [N, N],
      dtype: "uint8",
      epsg: 32629,
      geotransform: [X0, (X1 - X0) / N, 0, Y1, 0, -(Y1 - Y0) / N],
    });
    expect(pillow).toMatchObject({ mode: "L", size: [N, N] });
    expect([
      differing(samplesOf(tifffile), sync.dn),
      differing(samplesOf(gdal), sync.dn),
      differing(samplesOf(pillow), sync.dn),
    ]).toEqual([0, 0, 0]);
    expect(new Set(sync.dn).size).toBeGreaterThan(200); // the comparison is not of a constant image
  });

  it("refl.tif (FLOAT32, multipart upload) equals the sync reflectances exactly", async () => {
    const object = (await env.BUCKETS.get(`pieces/out/${id}/refl.tif`))!;
    expect(object.etag).toMatch(/-\d+$/);
    const t = await readTiff(await object.arrayBuffer());
    expect([t.width, t.height, t.bands]).toEqual([N, N, 1]);
    expect(differing(t.data, sync.refl)).toBe(0);
  });
});
