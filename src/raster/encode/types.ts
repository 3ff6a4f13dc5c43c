/**
 * Input shapes of the encode stage (PNG, JPEG, GeoTIFF) and the checks every encoder shares.
 * No HTTP here: bad input throws an EngineError (src/raster/errors.ts) with a message that says what to fix.
 */
import { invalidArgument } from "../errors";

/** Output sample types of an evalscript (`setup().output.sampleType`, AUTO already resolved to UINT8). */
export type SampleType = "INT8" | "UINT8" | "INT16" | "UINT16" | "FLOAT32";

/** The typed array that holds each sample type. */
export type SampleArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Float32Array;

/**
 * One output raster, band-interleaved by pixel: `data[(row * width + col) * bands + b]`, row 0 is north.
 * `data.length` must be `width * height * bands` and its array type must match `sampleType`.
 * `nodataValue` is written to GeoTIFF as GDAL_NODATA; PNG and JPEG ignore it.
 */
export interface EncodeInput {
  width: number;
  height: number;
  bands: number;
  sampleType: SampleType;
  data: SampleArray;
  nodataValue?: number;
}

/** Georeference of a GeoTIFF: the output grid's CRS (EPSG code; 4326 = lon/lat order) and its bbox in CRS units. */
export interface GeoRef {
  epsg: number;
  /** [minX, minY, maxX, maxY]; the outer edges of the outer pixels (PixelIsArea). */
  bbox: [number, number, number, number];
  /** Geographic (degrees) or projected; default: true for the common geographic EPSG codes (4326, 4258, ...). */
  geographic?: boolean;
}

const ARRAY_OF: Record<SampleType, { name: string; bytes: number }> = {
  INT8: { name: "Int8Array", bytes: 1 },
  UINT8: { name: "Uint8Array", bytes: 1 },
  INT16: { name: "Int16Array", bytes: 2 },
  UINT16: { name: "Uint16Array", bytes: 2 },
  FLOAT32: { name: "Float32Array", bytes: 4 },
};

/** The typed-array constructor of each sample type. */
export const SAMPLE_ARRAYS: Record<SampleType, new (n: number) => SampleArray> = {
  INT8: Int8Array,
  UINT8: Uint8Array,
  INT16: Int16Array,
  UINT16: Uint16Array,
  FLOAT32: Float32Array,
};

/** Bytes per sample of a sample type (1, 2 or 4). */
export function bytesPerSample(sampleType: SampleType): number {
  return ARRAY_OF[sampleType].bytes;
}

/**
 * Checks dimensions, band count and that `data` has the array type and length the header promises.
 * Throws EngineError invalid-argument for bad dimensions; throws a plain Error for an internal mismatch of array and header
 * (that is a bug in the caller, not user input).
 */
export function checkInput(input: EncodeInput): void {
  const { width, height, bands, sampleType, data } = input;
  for (const [k, v] of [
    ["width", width],
    ["height", height],
    ["bands", bands],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw invalidArgument(`Output ${k} must be a positive integer, got ${v}.`);
  }
  const spec = ARRAY_OF[sampleType];
  if (!spec)
    throw invalidArgument(`Unknown sampleType ${String(sampleType)}; use INT8, UINT8, INT16, UINT16 or FLOAT32.`);
  if (data.constructor.name !== spec.name) {
    throw new Error(`encode: sampleType ${sampleType} needs a ${spec.name}, got ${data.constructor.name}`);
  }
  if (data.length !== width * height * bands) {
    throw new Error(`encode: data has ${data.length} samples, expected ${width}x${height}x${bands}`);
  }
}
