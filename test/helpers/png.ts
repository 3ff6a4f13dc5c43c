/**
 * Strict PNG decoding for tests: fast-png with `checkCrc: true`, which verifies the CRC-32 of every chunk with
 * its own implementation (independent of the encoder's) and throws "CRC mismatch for chunk ..." otherwise.
 */
import { decode } from "fast-png";

/** A decoded PNG: raw samples (`channels` per pixel, 8 or 16 bit) and the RGBA8 view a browser would show. */
export interface DecodedPng {
  width: number;
  height: number;
  /** 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA. */
  channels: number;
  depth: number;
  /** Pixel-interleaved samples as stored. */
  samples: Uint8Array | Uint16Array;
  /** RGBA, 8 bit (grey expanded to R=G=B, missing alpha opaque, 16-bit samples reduced to their high byte). */
  data: Uint8ClampedArray;
}

/** RGBA8 of raw samples. */
function rgba8(samples: ArrayLike<number>, channels: number, depth: number, pixels: number): Uint8ClampedArray {
  const shift = depth === 16 ? 8 : 0;
  const out = new Uint8ClampedArray(pixels * 4);
  for (let p = 0; p < pixels; p++) {
    const s = (c: number) => samples[p * channels + c]! >>> shift;
    const grey = channels < 3;
    out[p * 4] = s(0);
    out[p * 4 + 1] = grey ? s(0) : s(1);
    out[p * 4 + 2] = grey ? s(0) : s(2);
    out[p * 4 + 3] = channels === 2 ? s(1) : channels === 4 ? s(3) : 255;
  }
  return out;
}

/** Decodes a PNG, checking every chunk's CRC. @throws Error for a CRC mismatch or any malformed chunk. */
export async function decodePng(buf: ArrayBuffer | Uint8Array): Promise<DecodedPng> {
  const png = decode(buf instanceof Uint8Array ? buf : new Uint8Array(buf), { checkCrc: true });
  if (png.palette) throw new Error("palette PNGs are not expected from EO Edge");
  const samples = png.data as Uint8Array | Uint16Array;
  const { width, height, channels, depth } = png;
  return { width, height, channels, depth, samples, data: rgba8(samples, channels, depth, width * height) };
}
