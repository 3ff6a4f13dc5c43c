/**
 * Conversion of raw evaluatePixel values to an output sampleType, as Sentinel Hub documents it
 * (docs.sentinel-hub.com/api/latest/evalscript/v3/#sampletype):
 * - AUTO: values expected in [0, 1], stretched to UINT8: round(v * 255), clamped to [0, 255];
 * - INT8 / UINT8 / INT16 / UINT16: round(v) clamped to the type's range (values outside are not wrapped);
 * - FLOAT32: as is (NaN stays NaN).
 * NaN (and undefined, which evaluatePixel values become as NaN) is written as 0 for the integer types and
 * AUTO; +-Infinity clamp to the range ends. Rounding is half away from zero for positive values
 * (Math.round). Statistics use the raw FLOAT values, not these.
 */
import type { SampleType as StoredSampleType } from "../encode/types";
import type { SampleArray, SampleType } from "./types";

export type { SampleArray };

const RANGES: Record<Exclude<StoredSampleType, "FLOAT32">, [number, number, new (n: number) => SampleArray]> = {
  INT8: [-128, 127, Int8Array],
  UINT8: [0, 255, Uint8Array],
  INT16: [-32768, 32767, Int16Array],
  UINT16: [0, 65535, Uint16Array],
};

/** The sample type written to files: AUTO is stored as UINT8. */
export function storedSampleType(sampleType: SampleType): StoredSampleType {
  return sampleType === "AUTO" ? "UINT8" : sampleType;
}

/**
 * Converts raw values (any layout; order kept) to the typed array of `sampleType`.
 * @returns Float32Array (FLOAT32, the same array), Uint8Array (AUTO, UINT8), Int8Array, Int16Array, Uint16Array.
 */
export function toSampleType(values: Float32Array, sampleType: SampleType): SampleArray {
  if (sampleType === "FLOAT32") return values;
  const [min, max, ArrayType] = RANGES[storedSampleType(sampleType) as keyof typeof RANGES];
  const scale = sampleType === "AUTO" ? 255 : 1;
  const out = new ArrayType(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = Math.round(values[i]! * scale);
    out[i] = Number.isNaN(v) ? 0 : v < min ? min : v > max ? max : v;
  }
  return out;
}
