/**
 * multipart/form-data requests (Sentinel Hub's form: a `request` part with the JSON request and an `evalscript`
 * part, as a string or as a file): the bad forms answer 400 in the envelope, and a script sent as a file part gives
 * the same pixels as the same script inline in JSON.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
  bearer = await token();
});

const SCRIPT = bandsScript(["B04", "B08"]);
const request = () => ({
  input: {
    bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
});

type Envelope = { error: { status: number; reason: string; message: string; code: string } };

/** Sends a form to `path` and expects a 400 envelope whose message matches `pattern`. */
async function expect400(form: FormData, pattern: RegExp, path = "/api/v1/process"): Promise<void> {
  const r = await authed(path, { method: "POST", body: form }, bearer);
  const body = (await r.json()) as Envelope;
  expect(r.status, body.error?.message).toBe(400);
  expect(body.error.status).toBe(400);
  expect(body.error.reason).toBe("Bad Request");
  expect(body.error.message).toMatch(pattern);
}

describe("multipart/form-data requests", () => {
  for (const path of ["/api/v1/process", "/api/v1/statistics"]) {
    it(`${path}: a form without a 'request' part is a 400`, async () => {
      const form = new FormData();
      form.set("evalscript", SCRIPT);
      await expect400(form, /'request' part/, path);
    });

    it(`${path}: a 'request' part that is not JSON is a 400`, async () => {
      const form = new FormData();
      form.set("request", "{ not json");
      form.set("evalscript", SCRIPT);
      await expect400(form, /'request' part is not valid JSON/, path);
    });
  }

  it("a body that is not multipart despite its Content-Type is a 400", async () => {
    const r = await authed(
      "/api/v1/process",
      { method: "POST", headers: { "content-type": "multipart/form-data; boundary=xyz" }, body: "no parts here" },
      bearer,
    );
    expect(r.status).toBe(400);
    expect(((await r.json()) as Envelope).error.message).toMatch(/multipart/);
  });

  it("the evalscript as a file part gives the same pixels as the script inline in JSON", async () => {
    const inline = await process({ ...request(), evalscript: SCRIPT }, bearer);
    expect(inline.status).toBe(200);
    const form = new FormData();
    form.set("request", new Blob([JSON.stringify(request())], { type: "application/json" }), "request.json");
    form.set("evalscript", new Blob([SCRIPT], { type: "application/javascript" }), "script.js");
    const viaFile = await authed("/api/v1/process", { method: "POST", body: form }, bearer);
    expect(viaFile.status).toBe(200);
    const a = await readTiff(await inline.arrayBuffer());
    const b = await readTiff(await viaFile.arrayBuffer());
    expect([b.width, b.height, b.bands]).toEqual([64, 64, 2]);
    expect(Array.from(b.data)).toEqual(Array.from(a.data));
    // Real reflectances, not an empty image: B08 (NIR) over this field exceeds B04 (red) on most pixels.
    let nirAbove = 0;
    for (let i = 0; i < b.data.length; i += 2) if (b.data[i + 1]! > b.data[i]!) nirAbove++;
    expect(nirAbove).toBeGreaterThan(64 * 64 * 0.5);
  });

  it("a form without an 'evalscript' part and no evalscript in the request is a 400", async () => {
    const form = new FormData();
    form.set("request", JSON.stringify(request()));
    await expect400(form, /evalscript/);
  });
});
