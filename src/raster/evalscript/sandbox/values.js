// @ts-check
/**
 * Sandbox module with the value arrays of an evaluation (evaluation.js): band values of a block as the host
 * sent them, the Float32 values evaluatePixel's outputs are written to,
 * and their conversion to the stored sample type (../sampletype.ts).
 *
 * Memory: an output converted to an integer sample type is written to a Float32 scratch array that this
 * isolate keeps and reuses across blocks and requests (only the converted array goes back over RPC). Every
 * sandbox call runs to its end synchronously, so no two calls ever use the scratch at the same time.
 */
import { native } from "./harden.js";

/** Zeros shared by every band a block lacks (only ever read; grown, never shrunk). */
let zeros = new native.Float32Array(0);

/**
 * A band's values as sent, or, for a band the script asked for that the block lacks (or sent shorter than the
 * block), n zeros.
 * @param {Float32Array | Uint8Array | undefined} band
 * @param {number} n pixels of the block
 * @returns {ArrayLike<number>}
 */
export function bandValues(band, n) {
  if (band !== undefined && band.length >= n) return band;
  if (zeros.length < n) zeros = new native.Float32Array(n);
  return zeros.subarray(0, n);
}

/** Scratch Float32 arrays of converted outputs, by output index (grown, never shrunk). @type {Float32Array[]} */
const scratch = [];

/**
 * The Float32 array output number k writes `length` values to: a fresh one when it goes back as is (FLOAT32, or
 * `convert` off), else this isolate's scratch (a view of `length` values; its content is stale: every value is
 * written before it is read).
 * @param {number} k index of the output
 * @param {number} length
 * @param {boolean} converted whether the values are converted (toStored) before they leave the sandbox
 */
export function outputValues(k, length, converted) {
  if (!converted) return new native.Float32Array(length);
  if (!scratch[k] || scratch[k].length < length) scratch[k] = new native.Float32Array(length);
  return scratch[k].subarray(0, length);
}

/**
 * Stored sampleType conversion; must equal ../sampletype.ts toSampleType (test/raster/evalscript/convert.test.ts).
 * @type {Record<string, [number, number, typeof Int8Array | typeof Uint8Array | typeof Int16Array | typeof Uint16Array]>}
 */
const RANGES = {
  INT8: [-128, 127, native.Int8Array],
  UINT8: [0, 255, native.Uint8Array],
  INT16: [-32768, 32767, native.Int16Array],
  UINT16: [0, 65535, native.Uint16Array],
};
/**
 * Output values converted to the stored sampleType: rounded (AUTO: scaled by 255 first, {@link autoStored}),
 * clamped, NaN as 0.
 *
 * The integer types are computed without branches as min(max(floor(x + 0.5), min), max), NaN left to the typed array store (which
 * writes 0), equal to ../sampletype.ts (Math.round, then the clamp): floor(x + 0.5) is Math.round(x) for every
 * x = a Float32 value times 1 or 255 (x + 0.5 is then exact in a double; checked on 62 million values around
 * every half-integer up to 70000 and random Float32 bit patterns), and a -0 is stored as 0 by every integer type.
 * Why: Math.round and the clamp branches mispredict on pixel data; 1 Mpx of true colour (3 M values of 29RKH)
 * took 29 ms of CPU to convert that way and 4 ms this way (node 22, measured side by side).
 * @param {Float32Array} values
 * @param {string} sampleType INT8, UINT8, INT16, UINT16, AUTO (as UINT8) or FLOAT32 (returned as is)
 */
export function toStored(values, sampleType) {
  if (sampleType === "FLOAT32") return values;
  if (sampleType === "AUTO") return autoStored(values);
  const [min, max, T] = RANGES[sampleType];
  const out = new T(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Math.min(Math.max(Math.floor(values[i] + 0.5), min), max);
  return out;
}

/**
 * AUTO values as UINT8: the Uint8ClampedArray store of x * 255 (ToUint8Clamp: NaN 0, clamped, ties to even),
 * which equals min(max(floor(x * 255 + 0.5), 0), 255) for every Float32 x: x * 255 is exact in a double and is
 * a tie k + 0.5 only for x = 0.5 (127.5, where both give 128) or x >= 1.5 (clamped); checked on every Float32
 * bit pattern in [-1, 2] and NaN. 20 % faster than the clamp in node 22 (4 M values: 14.0 -> 11.0 ms).
 * @param {Float32Array} values
 */
function autoStored(values) {
  const out = new native.Uint8ClampedArray(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] * 255;
  return new native.Uint8Array(out.buffer);
}
