/** Asset download from R2 through the catalog: whole files, HTTP Range (206/416), ETag, and the folder listing. */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { sampleFile, seedSamples } from "../helpers/seed";
import { ROOT } from "./helpers";

const ITEM = `${ROOT}/collections/sentinel-2-l2a/items/S2_L2A_31UDS_20170824T105240_wc00002806639B424A`;
const KEY = "sentinel-2-l2a/westflanders/2017-08-24/B04.tif";
let bearer: string;
let file: Uint8Array;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20170824T105240_wc00002806639B424A");
  bearer = await token();
  file = new Uint8Array(await sampleFile(KEY));
});

const get = (path: string, headers: Record<string, string> = {}) => authed(path, { headers }, bearer);

describe("asset download", () => {
  it("serves the whole file with its length, type and ETag", async () => {
    const r = await get(`${ITEM}/assets/B04`);
    expect(r.status).toBe(200);
    expect(r.headers.get("accept-ranges")).toBe("bytes");
    expect(r.headers.get("content-type")).toBe("image/tiff; application=geotiff; profile=cloud-optimized");
    expect(Number(r.headers.get("content-length"))).toBe(file.length);
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(file);
    const again = await get(`${ITEM}/assets/B04`, { "if-none-match": r.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  it("answers Range requests with 206 and the exact bytes (start-end, start-, suffix)", async () => {
    const cases: [string, number, number][] = [
      ["bytes=0-7", 0, 7],
      [`bytes=100-`, 100, file.length - 1],
      ["bytes=-16", file.length - 16, file.length - 1],
      [`bytes=10-${file.length + 50}`, 10, file.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const r = await get(`${ITEM}/assets/B04`, { range });
      expect(r.status, range).toBe(206);
      expect(r.headers.get("content-range")).toBe(`bytes ${start}-${end}/${file.length}`);
      expect(new Uint8Array(await r.arrayBuffer())).toEqual(file.slice(start, end + 1));
    }
    const tiff = new Uint8Array(await (await get(`${ITEM}/assets/B04`, { range: "bytes=0-3" })).arrayBuffer());
    expect([...tiff.slice(0, 2)]).toEqual([0x49, 0x49]); // little-endian TIFF header
  });

  it("416 for a range past the end; whole file for a malformed range", async () => {
    const r = await get(`${ITEM}/assets/B04`, { range: `bytes=${file.length}-` });
    expect(r.status).toBe(416);
    expect(r.headers.get("content-range")).toBe(`bytes */${file.length}`);
    const whole = await get(`${ITEM}/assets/B04`, { range: "bytes=5-2" });
    expect(whole.status).toBe(200);
    await whole.arrayBuffer();
  });

  it("the data asset lists the scene folder with each asset's URL", async () => {
    const r = await get(`${ITEM}/assets/data`);
    expect(r.status).toBe(200);
    const listing = (await r.json()) as any;
    expect(listing.folder).toBe("sentinel-2-l2a/westflanders/2017-08-24/");
    const b04 = listing.files.find((f: any) => f.name === "B04.tif");
    expect(b04).toMatchObject({ asset: "B04", size: file.length, href: `http://localhost${ITEM}/assets/B04` });
  });

  it("names of Object.prototype members are unknown assets: 404 in the envelope, not a property lookup", async () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]) {
      const r = await get(`${ITEM}/assets/${encodeURIComponent(name)}`);
      expect(r.status, name).toBe(404);
      const body = (await r.json()) as any;
      expect(body.error.message, name).toContain(`has no asset '${name}'; its assets: `);
      expect(body.error.message).toContain("B04");
    }
  });

  it("needs a token", async () => {
    const { call } = await import("../helpers/auth");
    expect((await call(`${ITEM}/assets/B04`)).status).toBe(401);
  });
});
