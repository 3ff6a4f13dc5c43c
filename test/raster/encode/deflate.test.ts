import { beforeAll, describe, expect, it } from "vitest";
import { unzlibSync } from "fflate";
import { compressSamples, zlibCompress, zlibParts } from "../../../src/raster/encode/deflate";
import { s2Window, type S2Window } from "./samples";

/** Inflates with workerd's native DecompressionStream (a second, independent inflater next to fflate). */
async function inflateNative(z: Uint8Array): Promise<Uint8Array> {
  const s = new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** Both inflaters give back `raw` exactly, and the zlib header says deflate with a 32 KiB window (RFC 1950). */
async function expectRoundTrip(z: Uint8Array, raw: Uint8Array): Promise<void> {
  expect(z[0]).toBe(0x78);
  expect(((z[0]! << 8) | z[1]!) % 31).toBe(0);
  expect(Buffer.compare(unzlibSync(z), raw)).toBe(0);
  expect(Buffer.compare(await inflateNative(z), raw)).toBe(0);
}

describe("zlib compression of the encoders on real 29RKH pixels", () => {
  let w: S2Window;
  let ndvi: Uint8Array;
  beforeAll(async () => {
    w = await s2Window(["B04", "B08"], 200, 300, 256, 256);
    const f = new Float32Array(256 * 256);
    for (let i = 0; i < f.length; i++) f[i] = (w.bands[1]![i]! - w.bands[0]![i]!) / (w.bands[1]![i]! + w.bands[0]![i]!);
    ndvi = new Uint8Array(f.buffer);
  });

  for (const level of [0, 1, 6, 9, "huffman"] as const) {
    it(`zlibCompress level ${level} round-trips FLOAT32 NDVI through fflate and DecompressionStream`, async () => {
      const z = zlibCompress(ndvi, level);
      await expectRoundTrip(z, ndvi);
      if (level === 0) expect(z.length).toBeGreaterThan(ndvi.length);
      else expect(z.length).toBeLessThan(ndvi.length * 0.95);
    });
  }

  it("compressSamples: FLOAT32 NDVI with Huffman coding only, within 2 % of level 6", async () => {
    const z = compressSamples(ndvi, 4);
    await expectRoundTrip(z, ndvi);
    expect(z.length).toBeLessThan(zlibCompress(ndvi, 6).length * 1.02);
  });

  it("compressSamples: a nodata strip of a wide type is redone with string matching (far below Huffman's 1/8)", async () => {
    const nodata = new Uint8Array(new Float32Array(65536).fill(Number.NaN).buffer);
    const z = compressSamples(nodata, 4);
    await expectRoundTrip(z, nodata);
    expect(zlibCompress(nodata, "huffman").length).toBeGreaterThan(nodata.length / 8);
    expect(z.length).toBeLessThan(nodata.length / 100);
  });

  it("compressSamples: 8-bit samples at level 1, smaller than Huffman coding alone", async () => {
    const rgb = Uint8Array.from(w.bands[0]!, (dn) => Math.min(255, Math.round((2.5 * dn * 255) / 10000)));
    const z = compressSamples(rgb, 1);
    await expectRoundTrip(z, rgb);
    expect(z.length).toBe(zlibCompress(rgb, 1).length);
    expect(z.length).toBeLessThan(zlibCompress(rgb, "huffman").length);
  });
});

describe("zlibParts: one zlib stream compressed piece by piece", () => {
  const join = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
  let raw: Uint8Array;
  beforeAll(async () => {
    const w = await s2Window(["B04"], 0, 0, 600, 500);
    raw = new Uint8Array(new Float32Array(w.bands[0]!).buffer);
  });

  it("pieces of any size (one byte, uneven, empty ones among them) inflate to the whole, checksum included", async () => {
    const cuts = [0, 1, 1, 70_000, 70_000, 500_001, raw.length];
    const pieces = cuts.slice(1).map((to, i) => raw.subarray(cuts[i], to));
    for (const level of [1, "huffman"] as const) {
      const parts = [...zlibParts(pieces, level)];
      expect(parts).toHaveLength(pieces.length);
      await expectRoundTrip(join(parts), raw);
      const bad = join(parts);
      bad[bad.length - 1] ^= 1; // the Adler-32 of all pieces is checked (by zlib's inflate; fflate skips it)
      await expect(inflateNative(bad)).rejects.toThrow();
    }
  });

  it("one piece gives zlibCompress's bytes; no piece, the stream of no bytes", async () => {
    expect(join([...zlibParts([raw], 1)])).toEqual(zlibCompress(raw, 1));
    await expectRoundTrip(join([...zlibParts([], 1)]), new Uint8Array(0));
  });
});
