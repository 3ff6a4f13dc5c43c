/**
 * Strip-wise GeoTIFF writer, for images too large to hold whole (Async Processing: up to 10000 x 10000 px).
 * The file is the same TIFF 6.0 image as ./tiff.ts writes (same tags, DEFLATE with the same predictors, see
 * there), but laid out for writing front to back without knowing the compressed sizes in advance:
 *
 *   bytes 0-7   header ("II", 42, offset of the first IFD: patched in at the end, see `finish`)
 *   bytes 8...  the strips, in order, as they are encoded
 *   then        the IFD with its data area (StripOffsets / StripByteCounts), on a word boundary
 *
 * TIFF 6.0 section 2 allows the IFD anywhere in the file ("may be at any location after the header"); GDAL,
 * libtiff (Pillow), tifffile and geotiff.js follow the header's offset. The caller writes `start()` first, each
 * `strip()` after it, then `finish().trailer`, and finally overwrites bytes 0-7 with `finish().header`.
 * Memory: one strip at a time plus two numbers per strip. No I/O here.
 */
import { geoEntries } from "./geokeys";
import { ifdSize, writeIfd } from "./ifd";
import { encodeStrip, imageEntries } from "./tiff";
import { bytesPerSample, checkInput, SAMPLE_ARRAYS, type EncodeInput, type GeoRef, type SampleArray } from "./types";

/** The image a {@link GeoTiffStripWriter} writes: EncodeInput without the samples. */
export type StripImage = Omit<EncodeInput, "data">;

/** Header bytes: "II", 42, first-IFD offset. */
const HEADER_BYTES = 8;

/** Writes one GeoTIFF strip by strip (see the module docs for the layout). */
export class GeoTiffStripWriter {
  private readonly offsets: number[] = [];
  private readonly counts: number[] = [];
  private at = HEADER_BYTES;
  private row = 0;

  /**
   * @param image size, bands, sample type, nodata of the whole image.
   * @param georef CRS and bbox of the whole image (./geokeys.ts).
   * @param rowsPerStrip rows of every strip but the last (TIFF RowsPerStrip).
   * @throws EngineError invalid-argument for bad dimensions, bbox or EPSG code.
   */
  constructor(
    private readonly image: StripImage,
    private readonly georef: GeoRef,
    private readonly rowsPerStrip: number,
  ) {
    checkInput({
      ...image,
      width: image.width,
      height: 1,
      data: new SAMPLE_ARRAYS[image.sampleType](image.width * image.bands),
    });
    if (!Number.isInteger(rowsPerStrip) || rowsPerStrip < 1)
      throw new Error(`tiffstrips: rowsPerStrip must be a positive integer, got ${rowsPerStrip}`);
    geoEntries(georef, image.width, image.height, image.nodataValue); // validates bbox and EPSG up front
  }

  /** The first bytes of the file: a placeholder header (replaced by `finish().header`). */
  start(): Uint8Array {
    return new Uint8Array(HEADER_BYTES);
  }

  /**
   * Encodes the next strip: `data` holds rowsPerStrip rows (fewer for the last strip) of `width * bands`
   * samples of the image's sample type, band-interleaved by pixel. Returns the bytes to append.
   * @throws Error when the strip has the wrong length or the image is already complete.
   */
  strip(data: SampleArray): Uint8Array {
    const rows = Math.min(this.rowsPerStrip, this.image.height - this.row);
    const samples = rows * this.image.width * this.image.bands;
    if (rows <= 0) throw new Error("tiffstrips: all strips were written already");
    if (data.length !== samples)
      throw new Error(`tiffstrips: strip at row ${this.row} has ${data.length} samples, expected ${samples}`);
    checkInput({ ...this.image, height: rows, data });
    const bytes = encodeStrip(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), this.image, rows, true);
    this.encoded(bytes.length);
    return bytes;
  }

  /**
   * Takes the next strip as `bytes` bytes encoded elsewhere (by `strip` of a writer of the same image and
   * rowsPerStrip: an async request's strips are encoded by its units, then joined). The caller appends them.
   * @throws Error when the image is already complete.
   */
  encoded(bytes: number): void {
    const rows = Math.min(this.rowsPerStrip, this.image.height - this.row);
    if (rows <= 0) throw new Error("tiffstrips: all strips were written already");
    this.offsets.push(this.at);
    this.counts.push(bytes);
    this.at += bytes;
    this.row += rows;
  }

  /**
   * After the last strip: `trailer` (padding + IFD) to append, and `header` for bytes 0-7.
   * @throws Error when strips are missing or the file would exceed 4 GiB (classic TIFF offsets).
   */
  finish(): { header: Uint8Array; trailer: Uint8Array } {
    if (this.row !== this.image.height)
      throw new Error(`tiffstrips: ${this.row} of ${this.image.height} rows were written`);
    const pad = this.at & 1;
    const ifdAt = this.at + pad;
    const entries = [
      ...imageEntries(this.image, this.rowsPerStrip, true),
      ...geoEntries(this.georef, this.image.width, this.image.height, this.image.nodataValue),
      { tag: 273, type: "LONG" as const, values: this.offsets },
      { tag: 279, type: "LONG" as const, values: this.counts },
    ];
    const size = ifdSize(entries);
    if (ifdAt + size > 0xffffffff)
      throw new Error("GeoTIFF larger than 4 GiB needs BigTIFF, which this writer does not produce");
    const trailer = new Uint8Array(pad + size);
    writeIfd(trailer, pad, entries, this.at); // trailer[0] is file byte `this.at`
    const header = new Uint8Array(HEADER_BYTES);
    header.set([0x49, 0x49, 42, 0]);
    new DataView(header.buffer).setUint32(4, ifdAt, true);
    return { header, trailer };
  }

  /** Bytes per raw strip of rowsPerStrip rows (for sizing buffers). */
  stripBytes(): number {
    return this.rowsPerStrip * this.image.width * this.image.bands * bytesPerSample(this.image.sampleType);
  }
}
