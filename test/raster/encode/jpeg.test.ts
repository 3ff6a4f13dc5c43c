/**
 * JPEG outputs (written by MozJPEG) decoded by independent decoders: jpeg-js (pure JS, strict: tolerantDecoding
 * off) and, through PY_DECODE, Pillow (sentinelhub-py's JPEG decoder) and libjpeg through GDAL.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { decode as decodeJpeg } from "jpeg-js";
import { rejection } from "../../helpers/engine";
import { DEFAULT_JPEG_QUALITY, encodeJpeg, OPTIMIZE_MAX_PIXELS } from "../../../src/raster/encode/jpeg";
import type { EncodeInput } from "../../../src/raster/encode/types";
import { pyDecode, samplesOf, type PyImage } from "../../helpers/pydecode";
import { s2Window, toFloat32, toUint16, toUint8, type S2Window } from "./samples";

/** The marker segments before the scan data (up to SOS): marker byte and the segment's payload. */
function segments(jpeg: Uint8Array): { marker: number; payload: Uint8Array }[] {
  const out = [];
  for (let i = 2; i < jpeg.length - 4; ) {
    if (jpeg[i] !== 0xff) throw new Error(`not a marker at ${i}`);
    const marker = jpeg[i + 1]!,
      length = (jpeg[i + 2]! << 8) | jpeg[i + 3]!;
    out.push({ marker, payload: jpeg.subarray(i + 4, i + 2 + length) });
    if (marker === 0xda) return out;
    i += 2 + length;
  }
  throw new Error("no SOS marker");
}

/** The frame header (SOFn, ITU T.81 B.2.2): n and number of components. */
function frame(jpeg: Uint8Array): { sof: number; components: number } {
  const sof = segments(jpeg).find((s) => s.marker >= 0xc0 && s.marker <= 0xc3);
  if (!sof) throw new Error("no SOF marker");
  return { sof: sof.marker - 0xc0, components: sof.payload[5]! };
}

/** Precision Pq of every quantisation table (DQT, T.81 B.2.4.1): 0 = 8-bit, 1 = 16-bit. */
function quantPrecisions(jpeg: Uint8Array): number[] {
  const out: number[] = [];
  for (const { payload } of segments(jpeg).filter((s) => s.marker === 0xdb)) {
    for (let at = 0; at < payload.length; at += 1 + 64 * ((payload[at]! >> 4) + 1)) out.push(payload[at]! >> 4);
  }
  return out;
}

/** Mean absolute difference of decoded samples (`channels` per pixel) against the input's first channels. */
function meanDiff(input: EncodeInput, decoded: ArrayLike<number>, channels: number): number {
  const pixels = input.width * input.height;
  expect(decoded.length).toBe(pixels * channels);
  let sum = 0;
  for (let p = 0; p < pixels; p++) {
    for (let c = 0; c < channels; c++) sum += Math.abs(decoded[p * channels + c]! - input.data[p * input.bands + c]!);
  }
  return sum / (pixels * channels);
}

/** Mean absolute difference of the jpeg-js decoding (RGBA; grey inputs compare with each channel). */
function meanError(input: EncodeInput, jpeg: Uint8Array): number {
  const img = decodeJpeg(jpeg, { useTArray: true, formatAsRGBA: true, tolerantDecoding: false });
  expect([img.width, img.height]).toEqual([input.width, input.height]);
  const grey = input.bands < 3;
  let sum = 0;
  for (let p = 0; p < input.width * input.height; p++) {
    for (let c = 0; c < 3; c++) sum += Math.abs(img.data[p * 4 + c]! - input.data[p * input.bands + (grey ? 0 : c)]!);
  }
  return sum / (input.width * input.height * 3);
}

async function status(p: Promise<unknown>): Promise<number> {
  return (await rejection(p)).status;
}

describe("encodeJpeg on real 29RKH pixels", () => {
  let w: S2Window;
  beforeAll(async () => {
    w = await s2Window(["B04", "B03", "B02"], 300, 500, 200, 150);
  });

  it("writes 3-band UINT8 as a sequential YCbCr JPEG close to the input at the default quality 90", async () => {
    const input = toUint8(w);
    const jpeg = await encodeJpeg(input);
    expect(Array.from(jpeg.subarray(0, 2))).toEqual([0xff, 0xd8]);
    expect(frame(jpeg)).toEqual({ sof: 0, components: 3 }); // SOF0: baseline sequential, not progressive (SOF2)
    expect(meanError(input, jpeg)).toBeLessThan(3);
    expect(DEFAULT_JPEG_QUALITY).toBe(90);
    expect(await encodeJpeg(input, 90)).toEqual(jpeg);
    expect((await encodeJpeg(input, 50)).length).toBeLessThan(jpeg.length);
  });

  it("writes only 8-bit quantisation tables at every quality, as a baseline (SOF0) frame requires", async () => {
    const input = toUint8({ ...w, bands: [w.bands[0]!], width: 16, height: 16 });
    input.data = (input.data as Uint8Array).subarray(0, 256);
    for (const quality of [0, 10, 25, 50, 75, 90, 100]) {
      const jpeg = await encodeJpeg(input, quality);
      expect([quality, frame(jpeg).sof]).toEqual([quality, 0]);
      expect([quality, quantPrecisions(jpeg)]).toEqual([quality, [0]]);
    }
  });

  it("writes 1 band as a 1-component greyscale JPEG", async () => {
    const grey = toUint8({ ...w, bands: [w.bands[0]!] });
    const jpeg = await encodeJpeg(grey);
    expect(frame(jpeg).components).toBe(1);
    expect(meanError(grey, jpeg)).toBeLessThan(3);
  });

  it("drops the alpha band of 2- and 4-band outputs (JPEG has none)", async () => {
    expect(await encodeJpeg(toUint8(w, true))).toEqual(await encodeJpeg(toUint8(w)));
    const one = { ...w, bands: [w.bands[0]!] };
    expect(await encodeJpeg(toUint8(one, true))).toEqual(await encodeJpeg(toUint8(one)));
  });

  it("Pillow and libjpeg (GDAL) decode RGB and grey JPEGs at quality 90 and 50 close to the input", async (ctx) => {
    const rgb = toUint8(w);
    const grey = toUint8({ ...w, bands: [w.bands[0]!] });
    const cases = [
      { input: rgb, quality: 90, mode: "RGB", channels: 3, limit: 3 },
      { input: rgb, quality: 50, mode: "RGB", channels: 3, limit: 6 },
      { input: grey, quality: 90, mode: "L", channels: 1, limit: 3 },
    ];
    const files = await Promise.all(cases.map((c) => encodeJpeg(c.input, c.quality)));
    const results = (await pyDecode(
      ctx,
      files.map((data) => ({ kind: "jpeg", data })),
    )) as PyImage[];
    cases.forEach((c, i) => {
      const { pillow, gdal } = results[i]!;
      expect(pillow).toMatchObject({ format: "JPEG", mode: c.mode, size: [200, 150] });
      expect(gdal).toMatchObject({ driver: "JPEG", dtype: "uint8" });
      for (const decoded of [pillow, gdal])
        expect(meanDiff(c.input, samplesOf(decoded), c.channels)).toBeLessThan(c.limit);
    });
  });

  it("rejects UINT16, FLOAT32, 5 bands and quality outside 0-100 with 400", async () => {
    expect(await status(encodeJpeg(toUint16(w)))).toBe(400);
    expect(await status(encodeJpeg(toFloat32(w)))).toBe(400);
    const five = toUint8({ ...w, bands: [...w.bands, w.bands[0]!, w.bands[1]!] });
    expect(await status(encodeJpeg(five))).toBe(400);
    expect(await status(encodeJpeg(toUint8(w), 101))).toBe(400);
    const e = await rejection(encodeJpeg(toUint16(w)));
    expect(e.kind).toBe("unsupported");
    expect(e.message).toContain("supports sampleType UINT8");
    expect((await rejection(encodeJpeg(toUint8(w), 101))).kind).toBe("invalid-argument");
  });
});

describe("a large JPEG (above OPTIMIZE_MAX_PIXELS: strips joined into one scan)", () => {
  it("1100 x 1000 RGB at quality 90 and 50, grey at 90: baseline files of one scan with the standard tables that jpeg-js, Pillow and libjpeg (GDAL) decode close to the input, again and again", async (ctx) => {
    const w = await s2Window(["B04", "B03", "B02"], 0, 0, 1100, 1000);
    expect(w.width * w.height).toBeGreaterThan(OPTIMIZE_MAX_PIXELS);
    const rgb = toUint8(w);
    const grey = toUint8({ ...w, bands: [w.bands[0]!] });
    const cases = [
      { input: rgb, quality: 90, channels: 3, limit: 3 },
      { input: rgb, quality: 50, channels: 3, limit: 6 }, // one call without optimize_coding wrote "bad Huffman code" data here
      { input: grey, quality: 90, channels: 1, limit: 3 },
    ];
    const files = await Promise.all(cases.map((c) => encodeJpeg(c.input, c.quality)));
    cases.forEach((c, i) => {
      const jpeg = files[i]!;
      expect(frame(jpeg)).toEqual({ sof: 0, components: c.channels });
      expect(
        segments(jpeg)
          .map((s) => s.marker)
          .filter((m) => m === 0xc4 || m === 0xdd),
      ).toEqual(c.channels === 3 ? [0xc4, 0xc4, 0xc4, 0xc4] : [0xc4, 0xc4]);
      expect(Array.from(jpeg.subarray(-2))).toEqual([0xff, 0xd9]);
      expect(meanError(c.input, jpeg)).toBeLessThan(c.limit);
    });
    expect(await encodeJpeg(rgb)).toEqual(files[0]); // a fresh encoder instance each time, the same file
    const results = (await pyDecode(
      ctx,
      files.map((data) => ({ kind: "jpeg", data })),
    )) as PyImage[];
    cases.forEach((c, i) => {
      const { pillow, gdal } = results[i]!;
      expect(pillow).toMatchObject({ format: "JPEG", mode: c.channels === 3 ? "RGB" : "L", size: [1100, 1000] });
      for (const decoded of [pillow, gdal])
        expect(meanDiff(c.input, samplesOf(decoded), c.channels)).toBeLessThan(c.limit);
    });
  });
});
