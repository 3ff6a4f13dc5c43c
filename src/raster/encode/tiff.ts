/**
 * GeoTIFF writer: one little-endian classic TIFF 6.0 image, pixel-interleaved (PlanarConfiguration 1), in strips,
 * DEFLATE-compressed (Compression 8, zlib via ./deflate.ts `compressSamples`) or raw (Compression 1), see GeoTiffOptions.
 * Predictor: 2 (horizontal differencing) for integers, none (1) for FLOAT32. Floating-point predictor 3 is
 * deliberately not written: tifffile (sentinelhub-py's decoder) needs the optional `imagecodecs` package for it,
 * while zlib and predictor 2 are built in; GDAL, geotiff.js and libtiff read all of these (see ./predictor.ts).
 * Layout: header, IFD (with its data area), then the strips, so a reader has all metadata in the first bytes.
 *
 * Baseline tags written (TIFF 6.0): ImageWidth 256, ImageLength 257, BitsPerSample 258, Compression 259,
 * PhotometricInterpretation 262 (RGB for 3-4 band UINT8 as GDAL chooses, else BlackIsZero), StripOffsets 273,
 * SamplesPerPixel 277, RowsPerStrip 278, StripByteCounts 279, PlanarConfiguration 284, Software 305,
 * Predictor 317, ExtraSamples 338 (unassociated alpha for the 4th band of RGB, else unspecified),
 * SampleFormat 339 (1 uint, 2 int, 3 IEEE float); georeferencing in ./geokeys.ts.
 *
 * geotiff.js `writeArrayBuffer` was not used: it writes Int8/Int16 samples as zeros, allocates a DataView per
 * sample, has no compression and limits the IFD to 1000 bytes.
 */
import { geoEntries } from "./geokeys";
import { ifdSize, writeIfd, type TiffEntry } from "./ifd";
import { predict, predictorFor } from "./predictor";
import { bytesPerSample, checkInput, type EncodeInput, type GeoRef, type SampleType } from "./types";
import { concatBytes } from "./bytes";
import { compressSamples } from "./deflate";

/** Options of the GeoTIFF writer. */
export interface GeoTiffOptions {
  /**
   * "DEFLATE": zlib with predictor (./deflate.ts `compressSamples`: about 200 MB of FLOAT32 or 16-bit samples
   * per second here, 1024x1024 FLOAT32 in about 20 ms); "NONE": raw samples (2500x2500 FLOAT32 in about 20 ms);
   * "AUTO" (default): DEFLATE up to AUTO_DEFLATE_MAX_BYTES of integer samples or AUTO_DEFLATE_MAX_FLOAT_BYTES of
   * FLOAT32 samples, NONE above, which bounds the encode time.
   */
  compression?: "AUTO" | "DEFLATE" | "NONE";
}

/** Largest raw size of integer samples that AUTO compresses (4 MiB: e.g. 2048x1024 UINT16, 1024x1024 RGBA UINT8). */
export const AUTO_DEFLATE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Largest raw size of FLOAT32 samples that AUTO compresses (1 MiB: 512x512 x 1 band). Float mantissas barely
 * compress: 1024x1024 NDVI FLOAT32 over 29RKH is 4,194,304 bytes stored against ~3.46 MB with zlib's Huffman coding
 * (deflate.ts: +0.73 MB, +21 %), and that coding took 20-46 ms, the largest stage of the request once the host path
 * (../evalscript/hostpath) evaluates NDVI in under 10 ms. A Worker pays CPU, not bytes.
 */
export const AUTO_DEFLATE_MAX_FLOAT_BYTES = 1024 * 1024;

const SAMPLE_FORMAT: Record<SampleType, number> = { INT8: 2, UINT8: 1, INT16: 2, UINT16: 1, FLOAT32: 3 };

/** Target uncompressed strip size: large enough for deflate to work well, small enough for partial reads. */
const STRIP_BYTES = 256 * 1024;

function bytesOf(input: EncodeInput): Uint8Array {
  return new Uint8Array(input.data.buffer, input.data.byteOffset, input.data.byteLength);
}

/**
 * One strip's bytes as stored: `strip` holds `rows` rows of `input.width * input.bands` samples (raw bytes);
 * zlib (./deflate.ts `compressSamples`) after the predictor when `deflate`, else `strip` itself.
 */
export function encodeStrip(
  strip: Uint8Array,
  input: Pick<EncodeInput, "width" | "bands" | "sampleType">,
  rows: number,
  deflate: boolean,
): Uint8Array {
  if (!deflate) return strip;
  return compressSamples(
    predict(strip, input.sampleType, rows, input.width * input.bands, input.bands),
    bytesPerSample(input.sampleType),
  );
}

/** The strips of the image: compressed (with predictor) or views of the raw samples. */
function strips(input: EncodeInput, rowsPerStrip: number, deflate: boolean): Uint8Array[] {
  const raw = bytesOf(input);
  const rowBytes = input.width * input.bands * bytesPerSample(input.sampleType);
  const out: Uint8Array[] = [];
  for (let row = 0; row < input.height; row += rowsPerStrip) {
    const rows = Math.min(rowsPerStrip, input.height - row);
    out.push(encodeStrip(raw.subarray(row * rowBytes, (row + rows) * rowBytes), input, rows, deflate));
  }
  return out;
}

/** The image-structure entries (everything but georeferencing and strip positions), shared with ./tiffstrips.ts. */
export function imageEntries(input: Omit<EncodeInput, "data">, rowsPerStrip: number, deflate: boolean): TiffEntry[] {
  const { width, height, bands, sampleType } = input;
  const rgb = sampleType === "UINT8" && (bands === 3 || bands === 4);
  const extra = bands - (rgb ? 3 : 1);
  const entries: TiffEntry[] = [
    { tag: 256, type: "LONG", values: [width] },
    { tag: 257, type: "LONG", values: [height] },
    { tag: 258, type: "SHORT", values: Array(bands).fill(8 * bytesPerSample(sampleType)) },
    { tag: 259, type: "SHORT", values: [deflate ? 8 : 1] },
    { tag: 262, type: "SHORT", values: [rgb ? 2 : 1] },
    { tag: 277, type: "SHORT", values: [bands] },
    { tag: 278, type: "LONG", values: [rowsPerStrip] },
    { tag: 284, type: "SHORT", values: [1] },
    { tag: 305, type: "ASCII", values: "EO Edge" },
    { tag: 339, type: "SHORT", values: Array(bands).fill(SAMPLE_FORMAT[sampleType]) },
  ];
  if (deflate) entries.push({ tag: 317, type: "SHORT", values: [predictorFor(sampleType)] });
  if (extra > 0)
    entries.push({
      tag: 338,
      type: "SHORT",
      values: Array(extra)
        .fill(0)
        .map((_, i) => (rgb && i === 0 ? 2 : 0)),
    });
  return entries;
}

/**
 * The GeoTIFF of `input` (see encodeGeoTiff) as its parts in file order: the header with the IFD, then the strips.
 * Without compression the strips are views of `input.data` (no copy), so a response can stream them as they are.
 * @throws as encodeGeoTiff.
 */
export function geoTiffParts(input: EncodeInput, georef: GeoRef, options: GeoTiffOptions = {}): Uint8Array[] {
  checkInput(input);
  const compression = options.compression ?? "AUTO";
  const max = input.sampleType === "FLOAT32" ? AUTO_DEFLATE_MAX_FLOAT_BYTES : AUTO_DEFLATE_MAX_BYTES;
  const deflate = compression === "DEFLATE" || (compression === "AUTO" && input.data.byteLength <= max);
  const rowBytes = input.width * input.bands * bytesPerSample(input.sampleType);
  const rowsPerStrip = Math.max(1, Math.min(input.height, Math.floor(STRIP_BYTES / rowBytes)));
  const parts = strips(input, rowsPerStrip, deflate);
  const entries = [
    ...imageEntries(input, rowsPerStrip, deflate),
    ...geoEntries(georef, input.width, input.height, input.nodataValue),
  ];
  const placeholder = Array(parts.length).fill(0);
  const header =
    8 +
    ifdSize([
      ...entries,
      { tag: 273, type: "LONG", values: placeholder },
      { tag: 279, type: "LONG", values: placeholder },
    ]);
  const offsets: number[] = [];
  let at = header;
  for (const p of parts) {
    offsets.push(at);
    at += p.length;
  }
  if (at > 0xffffffff) throw new Error("GeoTIFF larger than 4 GiB needs BigTIFF, which this writer does not produce");
  entries.push(
    { tag: 273, type: "LONG", values: offsets },
    { tag: 279, type: "LONG", values: parts.map((p) => p.length) },
  );
  const head = new Uint8Array(header);
  head.set([0x49, 0x49, 42, 0, 8, 0, 0, 0]); // "II", 42, IFD at byte 8
  writeIfd(head, 8, entries);
  return [head, ...parts];
}

/**
 * Encodes a raster of any sampleType and band count as a GeoTIFF georeferenced in `georef` (see ./geokeys.ts),
 * with GDAL_NODATA when `input.nodataValue` is set.
 * @returns the file bytes (one new array; geoTiffParts gives the same bytes without joining them).
 * @throws EngineError invalid-argument for a bad bbox or EPSG code; Error when the file would exceed 4 GiB (classic TIFF).
 */
export function encodeGeoTiff(input: EncodeInput, georef: GeoRef, options: GeoTiffOptions = {}): Uint8Array {
  return concatBytes(geoTiffParts(input, georef, options));
}
