/**
 * What the Zarr reader accepts of an array's metadata (`.zarray`, Zarr v2: zarr-specs.readthedocs.io/en/latest/v2/
 * v2.0.html), checked before zarrita allocates or loops over its sizes: a 200-byte `.zarray` declaring
 * `chunks: [1000000000]` must not make the isolate allocate gigabytes, and a store whose chunks the reader cannot
 * decode (blosc, filters, an object fill value) must be refused, not read as zeros. Zarr collection ingestion
 * (src/zarr/inspect.ts) reports the same problems as ingestionErrors; a store read by a request answers
 * EngineError invalid-file (a 400).
 */

/** The limits, each named in the message of the error that reports its breach. */
export const ZARR_LIMITS = {
  /** Bytes of one metadata object (.zgroup, .zattrs, .zarray), read whole. */
  metadataBytes: 1024 * 1024,
  /** Dimensions of an array (data arrays are [y, x] or [time, y, x], coordinate arrays 1-D). */
  dimensions: 3,
  /** Overview sub-groups a group's `overviews` attribute lists (each is opened with the group). */
  overviews: 32,
  /** Values of a coordinate array (x / y / lon / lat / time), read whole. */
  coordinates: 1_048_576,
  /** Decoded bytes of one chunk (read whole): 3072 x 3072 float64, the largest chunk Sentinel Hub's constraints allow. */
  chunkBytes: 3072 * 3072 * 8,
  /**
   * Chunks of one array one window read spans: one storage read each, and a Worker makes at most 10 000
   * subrequests per request (a 2500 x 2500 px window in chunks of 25 x 25 px).
   */
  chunksPerRead: 10_000,
} as const;

/** Compressors (`compressor.id`) the reader decodes, besides none (`null`). */
export const ZARR_COMPRESSORS: readonly string[] = ["zlib", "gzip"];

/** Numeric dtypes zarrita reads into typed arrays: byte order, kind and size. */
const DTYPE = /^[<>|]([iu][1248]|f[48])$/;

const isIntList = (v: unknown, min: number): v is number[] =>
  Array.isArray(v) && v.every((n) => Number.isSafeInteger(n) && n >= min);

/** Bytes per value of a Zarr v2 dtype (`<f8` -> 8). */
export const dtypeBytes = (dtype: string): number => Number(dtype.slice(2));

/** Problems with shape and chunks (sizes of at most ZARR_LIMITS.dimensions dimensions, chunks of at most chunkBytes). */
function sizeProblems(name: string, z: Record<string, unknown>): string[] {
  const { shape, chunks, dtype } = z;
  if (!isIntList(shape, 0) || shape.length < 1 || shape.length > ZARR_LIMITS.dimensions)
    return [
      `array ${name} has shape ${JSON.stringify(shape)}; 1 to ${ZARR_LIMITS.dimensions} sizes (non-negative integers) are supported`,
    ];
  if (!isIntList(chunks, 1) || chunks.length !== shape.length)
    return [
      `array ${name} has chunks ${JSON.stringify(chunks)}; one positive integer per dimension of its shape is needed`,
    ];
  if (typeof dtype !== "string" || !DTYPE.test(dtype)) return [];
  const bytes = chunks.reduce((a, b) => a * b, dtypeBytes(dtype));
  if (bytes > ZARR_LIMITS.chunkBytes)
    return [
      `array ${name} has chunks of ${chunks.join(" x ")} values of ${dtype} (${bytes} bytes); at most zarr.chunkBytes = ${ZARR_LIMITS.chunkBytes} bytes per chunk are supported`,
    ];
  return [];
}

/** Problems with how chunks are encoded: dtype, compressor, filters, fill_value, order. */
function encodingProblems(name: string, z: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const dtype = z.dtype;
  if (typeof dtype !== "string" || !DTYPE.test(dtype))
    problems.push(
      `array ${name} has dtype ${JSON.stringify(dtype)}; numeric dtypes are supported (i1-i8, u1-u8, f4, f8)`,
    );
  const compressor = z.compressor as { id?: unknown } | null | undefined;
  if (compressor !== null && !(typeof compressor?.id === "string" && ZARR_COMPRESSORS.includes(compressor.id)))
    problems.push(
      `array ${name} uses compressor ${JSON.stringify(compressor?.id ?? compressor)}; supported: none (null), ${ZARR_COMPRESSORS.join(", ")}`,
    );
  if (z.filters !== null && z.filters !== undefined && !(Array.isArray(z.filters) && z.filters.length === 0))
    problems.push(
      `array ${name} uses filters ${JSON.stringify(Array.isArray(z.filters) ? z.filters.map((f: { id?: unknown }) => f?.id) : z.filters)}; filters are not supported (null)`,
    );
  const fill = z.fill_value;
  const float = typeof dtype === "string" && dtype[1] === "f";
  if (
    !(
      fill === null ||
      (typeof fill === "number" && Number.isFinite(fill)) ||
      (float && ["NaN", "Infinity", "-Infinity"].includes(fill as string))
    )
  )
    problems.push(
      `array ${name} has fill_value ${JSON.stringify(fill)}; supported: null, a number, or "NaN" / "Infinity" / "-Infinity" for floats`,
    );
  if (z.order !== "C" && z.order !== "F")
    problems.push(`array ${name} has order ${JSON.stringify(z.order)}; "C" or "F" are supported`);
  if (z.dimension_separator !== undefined && z.dimension_separator !== "." && z.dimension_separator !== "/")
    problems.push(
      `array ${name} has dimension_separator ${JSON.stringify(z.dimension_separator)}; "." or "/" are supported`,
    );
  return problems;
}

/**
 * The problems of the `.zarray` metadata `z` of array `name`, one message each ([] when the reader can read it):
 * Zarr v2; shape and chunks lists of the same 1 to ZARR_LIMITS.dimensions sizes (chunks >= 1); a numeric dtype;
 * chunks of at most ZARR_LIMITS.chunkBytes; compressor null or one of ZARR_COMPRESSORS; no filters; a numeric
 * (or null, or NaN / ±Infinity for floats) fill_value; order C or F.
 */
export function zarrayProblems(name: string, z: unknown): string[] {
  if (typeof z !== "object" || z === null || Array.isArray(z))
    return [`array ${name}: its .zarray is not a JSON object`];
  const meta = z as Record<string, unknown>;
  if (meta.zarr_format !== 2)
    return [`array ${name} has zarr_format ${JSON.stringify(meta.zarr_format)}; Zarr v2 is supported`];
  return [...sizeProblems(name, meta), ...encodingProblems(name, meta)];
}

/**
 * Largest stored (compressed) size of a chunk of `decoded` bytes: the bytes themselves without a compressor, else
 * DEFLATE's worst case (5 bytes per stored block of at most 65 535 bytes, RFC 1951 3.2.4) and a zlib or gzip
 * wrapper (at most 18 bytes, RFC 1950 / 1952) with room for a gzip file name.
 */
export function storedChunkBytes(decoded: number, compressed: boolean): number {
  return compressed ? decoded + 5 * Math.ceil(decoded / 65_535) + 1024 : decoded;
}
