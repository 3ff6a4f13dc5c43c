/**
 * PNG outputs decoded by independent strict decoders: fast-png with CRC checking (test/helpers/png.ts) for every
 * band count x bit depth, and libpng through GDAL plus Pillow (test/services/py_decode.py via PY_DECODE).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../../helpers/engine";
import { encodePng, encodePngParts } from "../../../src/raster/encode/png";
import type { EncodeInput } from "../../../src/raster/encode/types";
import { decodePng } from "../../helpers/png";
import { pyDecode, samplesOf, type PyImage } from "../../helpers/pydecode";
import {
  caseInputs,
  encodeCases,
  firstBands,
  s2Window,
  toFloat32,
  toSigned,
  toUint16,
  toUint8,
  type S2Window,
} from "./samples";

/** IHDR fields: width, height, bit depth, colour type. */
function ihdr(png: Uint8Array): { width: number; height: number; depth: number; colourType: number } {
  const v = new DataView(png.buffer, png.byteOffset);
  expect(Array.from(png.subarray(0, 8))).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  expect(new TextDecoder().decode(png.subarray(12, 16))).toBe("IHDR");
  return { width: v.getUint32(16), height: v.getUint32(20), depth: png[24]!, colourType: png[25]! };
}

/** Byte offsets of each chunk's CRC, by chunk type. */
function crcOffsets(png: Uint8Array): Record<string, number> {
  const v = new DataView(png.buffer, png.byteOffset);
  const out: Record<string, number> = {};
  for (let at = 8; at < png.length; ) {
    const length = v.getUint32(at);
    out[new TextDecoder().decode(png.subarray(at + 4, at + 8))] = at + 8 + length;
    at += 12 + length;
  }
  return out;
}

/** A copy of `png` with one CRC byte flipped. */
function flipped(png: Uint8Array, at: number): Uint8Array {
  const bad = png.slice();
  bad[at] ^= 0x01;
  return bad;
}

const COLOUR_TYPE = [0, 4, 2, 6];
const CASES = encodeCases(["UINT8", "UINT16"]);

describe("encodePng on real 29RKH pixels, decoded by fast-png with CRC checks", () => {
  let w: S2Window, inputs: EncodeInput[], pngs: Uint8Array[];
  beforeAll(async () => {
    ({ w, inputs } = await caseInputs(CASES, 300, 500, 120, 90));
    pngs = await Promise.all(inputs.map(encodePng));
  });

  CASES.forEach(({ bands, sampleType }, i) => {
    it(`${bands}-band ${sampleType}: IHDR, every sample exact, every chunk CRC valid`, async () => {
      const png = pngs[i]!;
      expect(ihdr(png)).toEqual({
        width: 120,
        height: 90,
        depth: sampleType === "UINT16" ? 16 : 8,
        colourType: COLOUR_TYPE[bands - 1],
      });
      const decoded = await decodePng(png);
      expect([decoded.width, decoded.height, decoded.channels, decoded.depth]).toEqual([
        120,
        90,
        bands,
        ihdr(png).depth,
      ]);
      expect(decoded.samples).toEqual(inputs[i]!.data);
    });

    it(`${bands}-band ${sampleType}: one flipped byte in the CRC of IHDR, IDAT or IEND is rejected`, async () => {
      const offsets = crcOffsets(pngs[i]!);
      expect(Object.keys(offsets)).toEqual(expect.arrayContaining(["IHDR", "IDAT", "IEND"]));
      for (const [chunk, at] of Object.entries(offsets)) {
        for (const k of [0, 3]) {
          await expect(decodePng(flipped(pngs[i]!, at + k)), `${chunk} CRC byte ${k}`).rejects.toThrow(
            `CRC mismatch for chunk ${chunk}`,
          );
        }
      }
    });
  });

  it("libpng (GDAL) reads every band count and bit depth exactly; Pillow opens them (sentinelhub-py's PNG decoder)", async (ctx) => {
    const results = (await pyDecode(
      ctx,
      pngs.map((data) => ({ kind: "png", data })),
    )) as PyImage[];
    CASES.forEach(({ bands, sampleType }, i) => {
      const { gdal, pillow } = results[i]!;
      expect([bands, sampleType, samplesOf(gdal)]).toEqual([bands, sampleType, inputs[i]!.data]);
      expect(gdal).toMatchObject({ driver: "PNG", shape: bands === 1 ? [90, 120] : [90, 120, bands] });
      expect(pillow).toMatchObject({ format: "PNG", size: [120, 90] });
      // Pillow keeps 8-bit samples (and 16-bit grey as mode I); it reduces 16-bit colour to 8 bit.
      if (sampleType === "UINT8" || bands === 1)
        expect(Array.from(samplesOf(pillow))).toEqual(Array.from(inputs[i]!.data));
    });
  });

  it("libpng (GDAL) and Pillow refuse a PNG whose IHDR CRC has one flipped byte", async (ctx) => {
    const bad = flipped(pngs[0]!, crcOffsets(pngs[0]!).IHDR!);
    const [result] = (await pyDecode(ctx, [{ kind: "png", data: bad }])) as PyImage[];
    expect(result!.gdal.error).toMatch(/CRC|not recognized/i);
    expect(result!.pillow.error).toBeDefined();
  });

  it("handles a view into a larger buffer (data.byteOffset > 0)", async () => {
    const input = toUint8(firstBands(w, 3), true);
    const big = new Uint8Array(input.data.length + 16);
    big.set(input.data as Uint8Array, 16);
    const decoded = await decodePng(await encodePng({ ...input, data: big.subarray(16) }));
    expect(decoded.samples).toEqual(input.data);
  });

  it("rejects FLOAT32, INT16 and INT8 with 400 naming the supported sample types", async () => {
    for (const input of [toFloat32(w), toSigned(w, "INT16"), toSigned(w, "INT8")]) {
      const err = await rejection(encodePng(input));
      expect([err.kind, err.status]).toEqual(["unsupported", 400]);
      expect(err.message).toContain("UINT8, UINT16");
    }
  });

  it("rejects 5 bands with 400", async () => {
    const five = toUint8({ ...w, bands: [...w.bands, w.bands[0]!] });
    const err = await rejection(encodePng(five));
    expect([err.kind, err.status]).toEqual(["unsupported", 400]);
    expect(err.message).toMatch(/1 to 4 bands.*has 5/);
  });
});

describe("a large PNG, written in IDAT chunks compressed one at a time", () => {
  let big: EncodeInput[], pngs: Uint8Array[];
  beforeAll(async () => {
    // 1100 x 1000 real pixels: 4.4 MB of 8-bit RGBA scanlines, more than 4 IDAT_BYTES
    const w = await s2Window(["B04", "B03", "B02", "B08"], 0, 0, 1100, 1000);
    big = [toUint8(w), toUint16(firstBands(w, 1))];
    pngs = await Promise.all(big.map(encodePng));
  });

  it("several IDAT chunks; fast-png (CRCs checked) and libpng (GDAL) decode every sample exactly", async (ctx) => {
    for (const [i, png] of pngs.entries()) {
      const idats = chunkTypes(png).filter((t) => t === "IDAT").length;
      expect(idats).toBeGreaterThan(1);
      expect((await decodePng(png)).samples).toEqual(big[i]!.data);
    }
    const results = (await pyDecode(
      ctx,
      pngs.map((data) => ({ kind: "png", data })),
    )) as PyImage[];
    results.forEach((r, i) => expect(samplesOf(r.gdal)).toEqual(big[i]!.data));
  });

  it("encodePngParts gives the file's chunks: the same bytes as encodePng", async () => {
    const parts = await encodePngParts(big[0]!);
    expect(parts.length).toBe(chunkTypes(pngs[0]!).length + 1); // the signature, then one part per chunk
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (joined.set(p, at), at + p.length), 0);
    expect(joined).toEqual(pngs[0]);
  });
});

/** The chunk types of a PNG, in order. */
function chunkTypes(png: Uint8Array): string[] {
  const v = new DataView(png.buffer, png.byteOffset);
  const out: string[] = [];
  for (let at = 8; at < png.length; at += 12 + v.getUint32(at))
    out.push(new TextDecoder().decode(png.subarray(at + 4, at + 8)));
  return out;
}
