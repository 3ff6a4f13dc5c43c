/**
 * Several responses (tar, multipart/mixed), Accept overrides, multipart/form-data requests, userdata, the
 * /process/v1 alias. Packed bodies are read by parsers independent of the writers (test/helpers/tar.ts checks
 * header checksums, test/helpers/multipart.ts) and, through PY_DECODE, by Python's tarfile and email packages.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { CRS, process, readTiff } from "../helpers/process";
import { decodePng } from "../helpers/png";
import { parseMultipart } from "../helpers/multipart";
import { pyDecode, samplesOf, type PyMultipart, type PyTar } from "../helpers/pydecode";
import { readTar, type TarMember } from "../helpers/tar";

let bearer: string;
let single: { tif: Uint8Array; mask: Uint8Array };
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
  bearer = await token();
  const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());
  single = {
    tif: await bytes(await process(body([THREE[0]!]), bearer)),
    mask: await bytes(await process(body([THREE[1]!]), bearer)),
  };
});

const SCRIPT = `//VERSION=3
function setup(){ return { input:["B04","B08","dataMask"], output:[{id:"default", bands:1, sampleType:"FLOAT32"}, {id:"mask", bands:1, sampleType:"UINT8"}] }; }
function evaluatePixel(s){ return { default:[(s.B08-s.B04)/(s.B08+s.B04)], mask:[s.dataMask] }; }
function updateOutputMetadata(scenes, inputMetadata, outputMetadata){ outputMetadata.userData = { scenes: scenes.length !== undefined ? scenes.length : 1, note: "ndvi" }; }`;

function body(responses: { identifier: string; format: { type: string } }[]) {
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
    output: { width: 64, height: 64, responses },
    evalscript: SCRIPT,
  };
}
const THREE = [
  { identifier: "default", format: { type: "image/tiff" } },
  { identifier: "mask", format: { type: "image/png" } },
  { identifier: "userdata", format: { type: "application/json" } },
];

/** Checks the three files of a packed answer: each equals the single-response output, decodes, and userdata. */
async function expectThree(files: Record<string, Uint8Array>): Promise<void> {
  expect(Object.keys(files).sort()).toEqual(["default.tif", "mask.png", "userdata.json"]);
  expect(files["default.tif"]).toEqual(single.tif);
  expect(files["mask.png"]).toEqual(single.mask);
  const tif = await readTiff(files["default.tif"]!.slice().buffer);
  expect([tif.width, tif.height, tif.bands]).toEqual([64, 64, 1]);
  const png = await decodePng(files["mask.png"]!);
  expect([png.width, png.height, png.channels, new Set(png.samples)]).toEqual([64, 64, 1, new Set([1])]);
  expect(JSON.parse(new TextDecoder().decode(files["userdata.json"]))).toEqual({ scenes: 1, note: "ndvi" });
}

const byName = (members: TarMember[]) => Object.fromEntries(members.map((m) => [m.name, m.data]));

describe("several responses", () => {
  it("tar by default, entries named <identifier>.<ext>, header checksums valid, files as single responses", async () => {
    const r = await process(body(THREE), bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/x-tar");
    await expectThree(byName(readTar(new Uint8Array(await r.arrayBuffer()))));
  });

  it("as sentinelhub-py's decode_tar reads them: Python's tarfile, tifffile, Pillow, json", async (ctx) => {
    const tar = new Uint8Array(await (await process(body(THREE), bearer)).arrayBuffer());
    const [result] = (await pyDecode(ctx, [{ kind: "tar", data: tar }])) as PyTar[];
    expect(result!.members.map((m) => [m.name, m.type])).toEqual([
      ["default.tif", "file"],
      ["mask.png", "file"],
      ["userdata.json", "file"],
    ]);
    const [tif, png, json] = result!.members;
    const ours = await readTiff(single.tif.slice().buffer);
    expect(tif!.tifffile).toMatchObject({ shape: [64, 64], dtype: "float32" });
    expect(Array.from(samplesOf(tif!.tifffile))).toEqual(Array.from(ours.data));
    expect(png!.pillow).toMatchObject({ mode: "L", size: [64, 64] });
    expect(Array.from(samplesOf(png!.pillow))).toEqual(Array.from((await decodePng(single.mask)).samples));
    expect(json!.json).toEqual({ scenes: 1, note: "ndvi" });
  });

  it("Accept: application/tar", async () => {
    const r = await process(body(THREE), bearer, { accept: "application/tar" });
    expect(r.headers.get("content-type")).toBe("application/tar");
    await expectThree(byName(readTar(new Uint8Array(await r.arrayBuffer()))));
  });

  it("Accept: multipart/mixed gives one part per response, each decoding, also in Python's email package", async (ctx) => {
    const r = await process(body(THREE), bearer, { accept: "multipart/mixed" });
    expect(r.status).toBe(200);
    const contentType = r.headers.get("content-type")!;
    expect(contentType).toMatch(/^multipart\/mixed; boundary=/);
    const bytes = new Uint8Array(await r.arrayBuffer());
    const parts = parseMultipart(bytes, contentType);
    expect(parts.map((p) => p.headers["content-type"])).toEqual(["image/tiff", "image/png", "application/json"]);
    const names = parts.map((p) => /filename="([^"]+)"/.exec(p.headers["content-disposition"]!)![1]!);
    await expectThree(Object.fromEntries(parts.map((p, i) => [names[i]!, p.data])));
    const [mail] = (await pyDecode(ctx, [{ kind: "multipart", data: bytes, contentType }])) as PyMultipart[];
    expect(mail).toMatchObject({ multipart: true, defects: [] });
    expect(mail!.parts.map((p) => [p.contentType, p.filename, p.size])).toEqual(
      parts.map((p, i) => [p.headers["content-type"], names[i], p.data.length]),
    );
    expect(mail!.parts[2]!.json).toEqual({ scenes: 1, note: "ndvi" });
  });

  it("a single image response with Accept image/png is a PNG", async () => {
    const r = await process(body([{ identifier: "mask", format: { type: "image/tiff" } }]), bearer, {
      accept: "image/png",
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(single.mask);
  });

  it("Accept: application/octet-stream answers that Content-Type (the spec: Accept sets the response type)", async () => {
    const one = await process(body([{ identifier: "mask", format: { type: "image/png" } }]), bearer, {
      accept: "application/octet-stream",
    });
    expect(one.status).toBe(200);
    expect(one.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await one.arrayBuffer())).toEqual(single.mask);
    const three = await process(body(THREE), bearer, { accept: "application/octet-stream" });
    expect(three.headers.get("content-type")).toBe("application/octet-stream");
    await expectThree(byName(readTar(new Uint8Array(await three.arrayBuffer()))));
  });

  it("several responses with an image Accept is a 400 naming the packed types", async () => {
    const r = await process(body(THREE), bearer, { accept: "image/png" });
    expect(r.status).toBe(400);
    const { error } = (await r.json()) as { error: { status: number; message: string } };
    expect(error.status).toBe(400);
    expect(error.message).toContain("application/x-tar, application/tar, multipart/mixed");
  });
});

describe("multipart/form-data request and the /process/v1 alias", () => {
  it("accepts 'request' and 'evalscript' parts", async () => {
    const { evalscript, ...rest } = body([THREE[1]!]);
    const form = new FormData();
    form.set("request", JSON.stringify(rest));
    form.set("evalscript", evalscript);
    const r = await authed("/api/v1/process", { method: "POST", body: form }, bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(single.mask);
  });

  it("the /process/v1 alias serves the same bytes", async () => {
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body([THREE[1]!])),
    };
    const r = await authed("/process/v1", init, bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(single.mask);
  });
});
