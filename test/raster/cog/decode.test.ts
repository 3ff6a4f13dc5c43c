/**
 * Block decoding (src/raster/cog/decode.ts) with the WebAssembly decode core and with the JavaScript path, against
 * GDAL: every block of the real sample COGs and of GDAL-written fixtures (DEFLATE / LZW / ZSTD x predictors 1 / 2 / 3,
 * UINT8 ... FLOAT64, tiles and strips, 1 and 3 samples per pixel) is decoded and the assembled image's SHA-256
 * compared with that of GDAL's ReadRaster (test/reference/make_codec_fixtures.py -> test/fixtures/codec/refs.json).
 */
import { describe, expect, it } from "vitest";
import { deflateSync, zlibSync } from "fflate";
import { decodeBlock, type DecodePath } from "../../../src/raster/cog/decode";
import { parseHeader, type CogHeader } from "../../../src/raster/cog/header";
import { decodeCore } from "../../../src/raster/codec";
import type { ByteSource } from "../../../src/raster/types";
import { sampleFile } from "../../helpers/seed";

interface Ref {
  width: number;
  height: number;
  bands: number;
  type: string;
  sha256: string;
  first: number[];
}
const refs = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/codec/refs.json"))) as {
  fixtures: Record<string, Ref>;
  real: Record<string, Ref>;
};
const BYTES: Record<string, number> = {
  UINT8: 1,
  INT8: 1,
  UINT16: 2,
  INT16: 2,
  UINT32: 4,
  INT32: 4,
  FLOAT32: 4,
  FLOAT64: 8,
};
const built = decodeCore() !== null;

function memorySource(buf: ArrayBuffer, id: string): ByteSource {
  return {
    id,
    size: buf.byteLength,
    read: async (ranges) => ranges.map((r) => buf.slice(r.offset, r.offset + r.length)),
  };
}

/** Compressed bytes of every level-0 block with its decoded sample count. */
function blocks(header: CogHeader, buf: ArrayBuffer) {
  const level = header.levels[0]!;
  const perPixel = level.planarConfiguration === 1 ? header.samplesPerPixel : 1;
  const across = Math.ceil(level.width / level.blockWidth);
  return level.offsets.map((offset, index) => {
    const [bx, by] = [index % across, Math.floor(index / across)];
    const rows = level.tiled ? level.blockHeight : Math.min(level.blockHeight, level.height - by * level.blockHeight);
    return {
      bx,
      by,
      rows,
      bytes: buf.slice(offset, offset + level.byteCounts[index]!),
      samples: level.blockWidth * rows * perPixel,
    };
  });
}

/** Decodes every block and assembles the image: native type, little-endian, pixel-interleaved (as GDAL's ReadRaster). */
async function decodeImage(buf: ArrayBuffer, path: DecodePath, name: string) {
  const header = await parseHeader(memorySource(buf, name));
  const level = header.levels[0]!;
  expect(level.planarConfiguration === 1 || header.samplesPerPixel === 1).toBe(true);
  const px = header.samplesPerPixel * BYTES[header.sampleType]!;
  const out = new Uint8Array(level.width * level.height * px);
  for (const b of blocks(header, buf)) {
    const data = await decodeBlock(header, level, b.bytes, b.samples, path);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const x0 = b.bx * level.blockWidth,
      y0 = b.by * level.blockHeight;
    const len = Math.min(level.blockWidth, level.width - x0) * px;
    for (let y = 0; y < b.rows && y0 + y < level.height; y++)
      out.set(
        bytes.subarray(y * level.blockWidth * px, y * level.blockWidth * px + len),
        ((y0 + y) * level.width + x0) * px,
      );
  }
  return { header, out };
}

async function sha256(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

async function expectLikeGdal(file: string, ref: Ref, path: DecodePath) {
  const { header, out } = await decodeImage(await sampleFile(file), path, file);
  expect([header.levels[0]!.width, header.levels[0]!.height, header.samplesPerPixel, header.sampleType]).toEqual([
    ref.width,
    ref.height,
    ref.bands,
    ref.type,
  ]);
  expect(await sha256(out)).toBe(ref.sha256);
}

const PATHS: DecodePath[] = built ? ["wasm", "js"] : ["js"];

describe.each(PATHS)("decodeBlock, %s path, against GDAL", (path) => {
  it.each(Object.keys(refs.real))("every block of the real sample %s", async (rel) => {
    await expectLikeGdal(rel, refs.real[rel]!, path);
  });

  it.each(Object.keys(refs.fixtures))("every block of the GDAL-written fixture %s", async (name) => {
    const file = `fixtures/codec/${name}`;
    // the JavaScript path cannot: geotiff.js's ZSTD decoder compiles WebAssembly at run time (workerd refuses), and
    // geotiff.js refuses predictor 2 on 64-bit samples
    if (path === "js" && (name.includes("zstd") || /^float64_\w+_p2/.test(name)))
      await expect(decodeImage(await sampleFile(file), path, name)).rejects.toThrow();
    else await expectLikeGdal(file, refs.fixtures[name]!, path);
  });
});

describe.skipIf(!built)("the WebAssembly decode core", () => {
  const fixture = async (name: string) => {
    const buf = await sampleFile(`fixtures/codec/${name}`);
    const header = await parseHeader(memorySource(buf, name));
    return { header, level: header.levels[0]!, first: blocks(header, buf)[0]! };
  };

  // DEFLATE and ZSTD report the bad stream; LZW has no checksum: a bad code, or too few samples
  const BAD: Record<string, RegExp> = {
    deflate: /corrupt or truncated DEFLATE/,
    zstd: /corrupt or truncated ZSTD/,
    lzw: /corrupt or truncated LZW|decoded to \d+ bytes, expected/,
  };
  const bad = (name: string) => BAD[name.split("_")[1]!]!;

  it.each(["uint16_deflate_p2.tif", "float32_zstd_p3.tif", "uint16_lzw_p2.tif"])(
    "rejects a truncated %s block with an Error",
    async (name) => {
      const { header, level, first } = await fixture(name);
      const cut = first.bytes.slice(0, first.bytes.byteLength >> 1);
      await expect(decodeBlock(header, level, cut, first.samples, "wasm")).rejects.toThrow(bad(name));
    },
  );

  it.each(["uint16_deflate_p1.tif", "float32_zstd_p1.tif", "uint16_lzw_p1.tif"])(
    "rejects a corrupt %s block (bytes overwritten) with an Error",
    async (name) => {
      const { header, level, first } = await fixture(name);
      const noisy = new Uint8Array(first.bytes.slice(0));
      let seed = 7;
      for (let i = 4; i < noisy.length; i++) noisy[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24; // all but the stream header: noise
      await expect(decodeBlock(header, level, noisy.buffer, first.samples, "wasm")).rejects.toThrow(bad(name));
    },
  );

  it("refuses a pre-TIFF 6.0 (LSB-first) LZW stream rather than decoding it wrongly", async () => {
    const { header, level, first } = await fixture("uint16_lzw_p1.tif");
    const old = new Uint8Array(first.bytes.slice(0));
    old.set([0x00, 0x01]);
    await expect(decodeBlock(header, level, old.buffer, first.samples, "wasm")).rejects.toThrow(
      /unsupported parameters for LZW/,
    );
  });

  it("decodes many blocks in a row without its memory growing (buffers reused)", async () => {
    const buf = await sampleFile(Object.keys(refs.real)[0]!);
    const header = await parseHeader(memorySource(buf, "b04"));
    const all = blocks(header, buf);
    const decodeAll = () =>
      Promise.all(all.map((b) => decodeBlock(header, header.levels[0]!, b.bytes, b.samples, "wasm")));
    await decodeAll();
    const after = decodeCore()!.memoryBytes();
    for (let i = 0; i < 10; i++) await decodeAll();
    expect(decodeCore()!.memoryBytes()).toBe(after);
    expect(after).toBeLessThan(16 * 1024 * 1024);
  });

  it("inflates raw and zlib DEFLATE made by another implementation (fflate), and rejects too small a size", async () => {
    const data = new Uint8Array(await sampleFile("fixtures/codec/uint16_lzw_p1_128.tif"));
    const core = decodeCore()!;
    expect(core.inflate(deflateSync(data, { level: 9 }), data.byteLength, "raw")).toEqual(data);
    expect(core.inflate(zlibSync(data, { level: 1 }), data.byteLength + 100)).toEqual(data);
    expect(() => core.inflate(zlibSync(data), data.byteLength - 1)).toThrow(/larger than expected/);
  });

  it("applies the floating-point predictor exactly as GDAL writes it, and zlib output inflates natively", async () => {
    const { header, level, first } = await fixture("float32_deflate_p3.tif");
    const core = decodeCore()!;
    const layout = { width: level.blockWidth, rows: level.blockHeight, samplesPerPixel: 1, bytesPerSample: 4 };
    const gdalPredicted = new Uint8Array(core.decode(8, new Uint8Array(first.bytes), { ...layout, predictor: 1 }));
    const samples = await decodeBlock(header, level, first.bytes, first.samples, "wasm");
    const ours = core.floatPredictorEncode(
      new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength),
      layout,
    );
    expect(ours).toEqual(gdalPredicted);
    for (const lvl of [1, 6]) {
      const z = core.deflateZlib(ours, lvl);
      const back = new Uint8Array(
        await new Response(new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate"))).arrayBuffer(),
      );
      expect(back).toEqual(ours);
    }
  });
});

describe.skipIf(built)("without the decode core (stub build)", () => {
  it("decodes with the JavaScript path and refuses path 'wasm'", async () => {
    const name = "uint16_deflate_p2.tif";
    await expectLikeGdal(`fixtures/codec/${name}`, refs.fixtures[name]!, "auto");
    await expect(decodeImage(await sampleFile(`fixtures/codec/${name}`), "wasm", name)).rejects.toThrow(/stub/);
  });
});
