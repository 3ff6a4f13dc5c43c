/**
 * Output formats through the Processing API: JPEG `format.quality`, the default response when `responses` is
 * omitted, the userdata / JSON 400s and Accept negotiation (axios's default header, an unsupported Accept).
 * PNGs are decoded strictly (test/helpers/png.ts), JPEGs by jpeg-js and Pillow (PY_DECODE).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { decode as decodeJpeg } from "jpeg-js";
import { authed, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { CRS, process } from "../helpers/process";
import { decodePng } from "../helpers/png";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";

const TRUE_COLOUR = `//VERSION=3
function setup(){ return { input:["B04","B03","B02"], output:{ bands:3, sampleType:"AUTO" } }; }
function evaluatePixel(s){ return [2.5*s.B04, 2.5*s.B03, 2.5*s.B02]; }`;

type Responses = { identifier: string; format: { type: string; quality?: number } }[];

function body(responses?: Responses, evalscript = TRUE_COLOUR) {
  return {
    input: {
      bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
      data: [
        {
          type: "sentinel-2-l2a",
          dataFilter: { timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
        },
      ],
    },
    output: responses ? { width: 64, height: 64, responses } : { width: 64, height: 64 },
    evalscript,
  };
}

const PNG: Responses = [{ identifier: "default", format: { type: "image/png" } }];
const jpeg = (quality?: number): Responses => [
  { identifier: "default", format: { type: "image/jpeg", ...(quality === undefined ? {} : { quality }) } },
];

let bearer: string;
let rgb: Uint8Array; // the lossless true colour samples (strictly decoded PNG)
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
  bearer = await token();
  const png = await decodePng(await (await process(body(PNG), bearer)).arrayBuffer());
  expect([png.width, png.height, png.channels, png.depth]).toEqual([64, 64, 3, 8]);
  rgb = png.samples as Uint8Array;
});

async function ok(r: Response, contentType: string): Promise<Uint8Array> {
  expect([r.status, r.headers.get("content-type")]).toEqual([200, contentType]);
  return new Uint8Array(await r.arrayBuffer());
}

async function rejected(r: Response, pattern: RegExp): Promise<void> {
  expect(r.status).toBe(400);
  const { error } = (await r.json()) as { error: { status: number; message: string } };
  expect(error.status).toBe(400);
  expect(error.message).toMatch(pattern);
}

/** Mean absolute difference of RGB samples (`stride` per pixel) against the lossless output. */
function meanDiff(samples: ArrayLike<number>, stride: number): number {
  let sum = 0;
  for (let p = 0; p < 64 * 64; p++)
    for (let c = 0; c < 3; c++) sum += Math.abs(samples[p * stride + c]! - rgb[p * 3 + c]!);
  return sum / (64 * 64 * 3);
}

describe("output formats through the API", () => {
  it("JPEG format.quality: higher quality is a larger file closer to the lossless output; jpeg-js and Pillow decode both", async (ctx) => {
    const low = await ok(await process(body(jpeg(20)), bearer), "image/jpeg");
    const high = await ok(await process(body(jpeg(95)), bearer), "image/jpeg");
    const byDefault = await ok(await process(body(jpeg()), bearer), "image/jpeg");
    expect(high.length).toBeGreaterThan(byDefault.length); // default 90
    expect(byDefault.length).toBeGreaterThan(low.length);
    const js = [low, high].map((f) => decodeJpeg(f, { useTArray: true, formatAsRGBA: true, tolerantDecoding: false }));
    js.forEach((img) => expect([img.width, img.height]).toEqual([64, 64]));
    const [lowErr, highErr] = js.map((img) => meanDiff(img.data, 4));
    expect(highErr).toBeLessThan(2);
    expect(lowErr).toBeGreaterThan(highErr!);
    const py = (await pyDecode(
      ctx,
      [low, high].map((data) => ({ kind: "jpeg" as const, data })),
    )) as PyImage[];
    py.forEach((r) => expect(r.pillow).toMatchObject({ format: "JPEG", mode: "RGB", size: [64, 64] }));
    expect(meanDiff(samplesOf(py[1]!.pillow), 3)).toBeLessThan(2);
  });

  it("without output.responses the answer is one 'default' PNG, as Sentinel Hub does", async () => {
    const png = await ok(await process(body(undefined), bearer), "image/png");
    expect((await decodePng(png)).samples).toEqual(rgb);
  });

  it("userdata must be application/json, and application/json is only for userdata: 400s", async () => {
    await rejected(
      await process(body([{ identifier: "userdata", format: { type: "image/png" } }]), bearer),
      /userdata.*application\/json/,
    );
    await rejected(
      await process(body([{ identifier: "default", format: { type: "application/json" } }]), bearer),
      /only available for the 'userdata'/,
    );
    await rejected(
      await process(body([{ identifier: "nope", format: { type: "image/png" } }]), bearer),
      /'nope' matches no evalscript output/,
    );
  });

  it("a body that is not JSON is a 400 in the error envelope", async () => {
    const r = await authed(
      "/api/v1/process",
      { method: "POST", headers: { "content-type": "application/json" }, body: '{"input": ' },
      bearer,
    );
    expect(r.status).toBe(400);
    const { error } = (await r.json()) as { error: { status: number; reason: string; message: string } };
    expect(error).toMatchObject({ status: 400, reason: expect.any(String), message: expect.stringMatching(/JSON/i) });
  });
});

describe("Accept negotiation through the API", () => {
  it("axios's default Accept (application/json, text/plain, */*) gets the requested PNG", async () => {
    const png = await ok(
      await process(body(PNG), bearer, { accept: "application/json, text/plain, */*" }),
      "image/png",
    );
    expect((await decodePng(png)).samples).toEqual(rgb);
  });

  it("q-values choose among image types; image/* keeps the requested one", async () => {
    await ok(await process(body(PNG), bearer, { accept: "image/png;q=0.2, image/tiff;q=0.9" }), "image/tiff");
    await ok(await process(body(jpeg()), bearer, { accept: "image/*" }), "image/jpeg");
  });

  it("an Accept list with nothing the request can produce is a 400 listing the producible types", async () => {
    await rejected(
      await process(body(PNG), bearer, { accept: "text/html, application/xml;q=0.9" }),
      /image\/png, image\/jpeg, image\/tiff/,
    );
    await rejected(await process(body(PNG), bearer, { accept: "image/png;q=0, image/*;q=0" }), /allows none/);
  });
});
