/** Bad Processing API input: each a 400 envelope whose message says what to fix; runaway scripts end. */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, call, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { CRS, bandsScript, process } from "../helpers/process";

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
  bearer = await token();
});

const BBOX = [501360, 5629040, 502000, 5629680];
const good = () => ({
  input: {
    bounds: { bbox: [...BBOX], properties: { crs: CRS(32631) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["B04"]),
});
type Body = ReturnType<typeof good>;

async function expect400(mutate: (b: Body) => unknown, pattern: RegExp): Promise<void> {
  const b = good();
  const replaced = mutate(b);
  const r = await process(replaced ?? b, bearer);
  const body = (await r.json()) as { error: { status: number; reason: string; message: string; code: string } };
  expect(r.status, body.error?.message).toBe(400);
  expect(body.error.status).toBe(400);
  expect(body.error.reason).toBe("Bad Request");
  expect(body.error.code).toBe("COMMON_BAD_PAYLOAD");
  expect(body.error.message).toMatch(pattern);
}

describe("bad input -> 400", () => {
  it("the valid request works", async () => {
    expect((await process(good(), bearer)).status).toBe(200);
  });
  it("no evalscript", () => expect400((b) => ({ ...b, evalscript: undefined }), /evalscript/));
  it("no //VERSION=3", () =>
    expect400((b) => void (b.evalscript = b.evalscript.replace("//VERSION=3", "// no version")), /VERSION=3/));
  it("no evaluatePixel", () =>
    expect400(
      (b) => void (b.evalscript = "//VERSION=3\nfunction setup(){return {input:['B04'],output:{bands:1}}}"),
      /evaluatePixel/,
    ));
  it("unknown band", () => expect400((b) => void (b.evalscript = bandsScript(["B99"])), /Unknown band 'B99'/));
  it("unknown collection type", () =>
    expect400((b) => void (b.input.data[0]!.type = "landsat-99"), /Unknown data collection type 'landsat-99'/));
  it("an unknown BYOC, batch or Zarr collection is a 404 naming it (Sentinel Hub: 'BYOC collection <id> not found.')", async () => {
    const id = crypto.randomUUID();
    for (const [type, kind] of [
      [`byoc-${id}`, "BYOC"],
      [`batch-${id}`, "Batch"],
      [`zarr-${id}`, "Zarr"],
      [`BYOC-${id}`, "BYOC"],
    ]) {
      const b = good();
      b.input.data[0]!.type = type!;
      const r = await process(b, bearer);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: unknown }).error).toEqual({
        status: 404,
        reason: "Not Found",
        message: `${kind} collection ${id} not found.`,
        code: "COMMON_NOT_FOUND",
        errors: { collection: type },
      });
    }
  });
  it("bbox with min > max", () =>
    expect400((b) => void (b.input.bounds.bbox = [502000, 5629040, 501360, 5629680]), /minX must be < maxX/));
  it("bbox outside the CRS", () =>
    expect400(
      (b) => void (b.input.bounds = { bbox: [170, 80, 200, 95], properties: { crs: CRS(4326) } }),
      /outside the valid area/,
    ));
  it("unknown CRS", () =>
    expect400((b) => void (b.input.bounds.properties.crs = "http://www.opengis.net/def/crs/EPSG/0/999999"), /999999/));
  it("width over 2500", () => expect400((b) => void (b.output.width = 2501), /2500/));
  it("resx <= 0", () =>
    expect400((b) => void (b.output = { resx: 0, resy: 10, responses: b.output.responses } as never), /resx/));
  it("timeRange from > to", () =>
    expect400(
      (b) =>
        void (b.input.data[0]!.dataFilter.timeRange = { from: "2018-05-01T00:00:00Z", to: "2018-04-01T00:00:00Z" }),
      /from must not be after/,
    ));
  it("malformed JSON", async () => {
    const r = await authed(
      "/api/v1/process",
      { method: "POST", headers: { "content-type": "application/json" }, body: "{ not json" },
      bearer,
    );
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/not valid JSON/);
  });
  it("wrong content type", async () => {
    const r = await authed(
      "/api/v1/process",
      { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify(good()) },
      bearer,
    );
    expect(r.status).toBe(415);
    expect(((await r.json()) as { error: { message: string; code: string } }).error).toMatchObject({
      message: expect.stringMatching(/Content-Type/),
      code: "COMMON_UNSUPPORTED_MEDIA_TYPE",
    });
  });
  it("syntax error names line and column", () =>
    expect400(
      (b) =>
        void (b.evalscript =
          "//VERSION=3\nfunction setup(){return {input:['B04'],output:{bands:1}}}\nfunction evaluatePixel(s){ return [s.B04 +; }"),
      /line 3/i,
    ));
  it("unknown response identifier", () => expect400((b) => void (b.output.responses[0]!.identifier = "nope"), /nope/));
  it("GET is 405", async () => {
    const r = await authed("/api/v1/process", {}, bearer);
    expect(r.status).toBe(405);
  });
  it("401 without a token (no Authorization header sent)", async () => {
    const r = await call("/api/v1/process", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(good()),
    });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "COMMON_UNAUTHORIZED",
      message: expect.stringMatching(/Missing Authorization header/),
    });
  });
});

describe("runaway evalscripts", () => {
  for (const [name, body] of [
    ["while(true)", "while(true){}"],
    ["for(;;)", "for(;;){}"],
    ["recursion", "function f(){return f()+1} return [f()];"],
  ] as const) {
    it(`${name} ends with a 400 naming the cause, and the server keeps answering`, async () => {
      const b = good();
      b.evalscript = `//VERSION=3\nfunction setup(){return {input:['B04'],output:{bands:1}}}\nfunction evaluatePixel(s){ ${body} return [1]; }`;
      const r = await process(b, bearer);
      expect(r.status).toBe(400);
      const msg = ((await r.json()) as { error: { message: string } }).error.message;
      expect(msg).toMatch(/loop|iteration|recursion|stack/i);
      expect((await process(good(), bearer)).status).toBe(200);
    });
  }
});
