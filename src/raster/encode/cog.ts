/**
 * Cloud Optimized GeoTIFF writer (the layout GDAL's COG driver writes and `validate_cloud_optimized_geotiff.py`
 * checks; https://gdal.org/drivers/raster/cog.html, https://www.cogeo.org): one little-endian classic TIFF with
 * - the full-resolution image and its overviews (./cogoverviews.ts) in TIFF tiles (TileWidth 322, TileLength 323,
 *   TileOffsets 324, TileByteCounts 325), DEFLATE (zlib) compressed, pixel-interleaved;
 * - every IFD at the start of the file: the main image's at byte 8, then the overviews' by decreasing size
 *   (NewSubfileType 254 = 1, "reduced-resolution image"), chained by their next-IFD offsets;
 * - then the tile data, smallest overview first and the full-resolution image last, tiles row by row,
 *   so a reader gets all metadata in the first bytes and the overview it needs in one range.
 * Tiles are compressed as the GeoTIFF writer's strips (./deflate.ts `compressSamples`).
 * Edge tiles are padded to the full tile size with the nodata value (0 without one), as TIFF requires.
 * Predictor (cogParameters.usePredictor, default true): 2 for integer types; FLOAT32 gets none, since predictor 3
 * needs the optional `imagecodecs` package in tifffile (see ./predictor.ts). Georeferencing: main IFD only.
 */
import { concatBytes } from "./bytes";
import { compressSamples } from "./deflate";
import { overview, overviewFactors } from "./cogoverviews";
import { geoEntries } from "./geokeys";
import { ifdSize, writeIfd, type TiffEntry } from "./ifd";
import { predict, predictorFor } from "./predictor";
import { imageEntries } from "./tiff";
import { bytesPerSample, checkInput, type EncodeInput, type GeoRef, type SampleArray } from "./types";
import { invalidArgument } from "../errors";

/** Batch v2 `cogParameters` (gdaladdo / GDAL GTiff creation options; defaults as Sentinel Hub documents them). */
export interface CogParameters {
  overviewLevels?: number[];
  /** Default: min(blockxsize, blockysize). */
  overviewMinSize?: number;
  /** Default "average". */
  resamplingAlgorithm?: string;
  /** Default 256; a multiple of 16 (TIFF 6.0 tiles). */
  blockxsize?: number;
  blockysize?: number;
  /** Default true. */
  usePredictor?: boolean;
}

/** One image of the file: its raster, tile size and compressed tiles. */
interface Level {
  image: EncodeInput;
  entries: TiffEntry[];
  tiles: Uint8Array[];
}

/** Block size check: positive multiples of 16 (TIFF 6.0, section 15). @throws EngineError invalid-argument */
function blockSize(name: string, v: number | undefined): number {
  const size = v ?? 256;
  if (!Number.isInteger(size) || size < 16 || size % 16 !== 0)
    throw invalidArgument(`cogParameters.${name} must be a positive multiple of 16, got ${size}.`);
  return size;
}

/** The tiles of an image, row by row, each padded to tw x th, predicted and compressed. */
function tilesOf(image: EncodeInput, tw: number, th: number, predictor: 1 | 2): Uint8Array[] {
  const { width, height, bands, sampleType, data } = image;
  const bps = bytesPerSample(sampleType);
  const out: Uint8Array[] = [];
  const Array_ = data.constructor as new (n: number) => SampleArray;
  for (let y0 = 0; y0 < height; y0 += th) {
    for (let x0 = 0; x0 < width; x0 += tw) {
      const tile = new Array_(tw * th * bands);
      if (image.nodataValue !== undefined) tile.fill(image.nodataValue);
      const cols = Math.min(tw, width - x0);
      for (let r = 0; r < Math.min(th, height - y0); r++) {
        const from = ((y0 + r) * width + x0) * bands;
        tile.set(data.subarray(from, from + cols * bands), r * tw * bands);
      }
      const bytes = new Uint8Array(tile.buffer, 0, tile.length * bps);
      out.push(compressSamples(predictor === 2 ? predict(bytes, sampleType, th, tw * bands, bands) : bytes, bps));
    }
  }
  return out;
}

/** The structure entries of one level (without tile positions). */
function levelEntries(
  image: EncodeInput,
  tw: number,
  th: number,
  predictor: number,
  main: boolean,
  georef: GeoRef,
): TiffEntry[] {
  const base = imageEntries(image, 1, true).filter((e) => e.tag !== 278 && e.tag !== 317);
  const entries: TiffEntry[] = [
    ...base,
    { tag: 317, type: "SHORT", values: [predictor] },
    { tag: 322, type: "LONG", values: [tw] },
    { tag: 323, type: "LONG", values: [th] },
  ];
  if (main) entries.push(...geoEntries(georef, image.width, image.height, image.nodataValue));
  else entries.push({ tag: 254, type: "LONG", values: [1] });
  return entries;
}

/** The entries of a level with its tile positions (offsets from `at`). */
function withTiles(level: Level, at: number): TiffEntry[] {
  const offsets: number[] = [];
  for (const t of level.tiles) offsets.push(at, (at += t.length));
  return [
    ...level.entries,
    { tag: 324, type: "LONG", values: offsets.filter((_, i) => i % 2 === 0) },
    { tag: 325, type: "LONG", values: level.tiles.map((t) => t.length) },
  ];
}

/**
 * Encodes `input` (any sampleType, any band count) as a COG georeferenced in `georef` with overviews per `params`.
 * @returns the file bytes.
 * @throws EngineError invalid-argument for bad cogParameters (block size, levels, resampling), a bad bbox or EPSG;
 *   Error when the file would exceed 4 GiB (classic TIFF).
 */
export function encodeCog(input: EncodeInput, georef: GeoRef, params: CogParameters = {}): Uint8Array {
  checkInput(input);
  const tw = blockSize("blockxsize", params.blockxsize);
  const th = blockSize("blockysize", params.blockysize);
  const predictor = params.usePredictor === false ? 1 : predictorFor(input.sampleType);
  const factors = overviewFactors(
    input.width,
    input.height,
    params.overviewLevels,
    params.overviewMinSize ?? Math.min(tw, th),
  );
  const images = [input, ...factors.map((f) => overview(input, f, params.resamplingAlgorithm ?? "average"))];
  const levels: Level[] = images.map((image, i) => ({
    image,
    entries: levelEntries(image, tw, th, predictor, i === 0, georef),
    tiles: tilesOf(image, tw, th, predictor),
  }));
  const sized = (l: Level) =>
    ifdSize([
      ...l.entries,
      { tag: 324, type: "LONG", values: l.tiles.map(() => 0) },
      { tag: 325, type: "LONG", values: l.tiles.map(() => 0) },
    ]);
  const ifdOffsets: number[] = [];
  let at = 8;
  for (const l of levels) ifdOffsets.push(at, (at += sized(l) + (sized(l) & 1)));
  const ifdAt = ifdOffsets.filter((_, i) => i % 2 === 0);
  const dataAt = new Map<Level, number>();
  for (const l of [...levels].reverse()) dataAt.set(l, at), (at += l.tiles.reduce((a, t) => a + t.length, 0));
  if (at > 0xffffffff) throw new Error("COG larger than 4 GiB needs BigTIFF, which this writer does not produce");
  const head = new Uint8Array(dataAt.get(levels[levels.length - 1]!)!);
  head.set([0x49, 0x49, 42, 0, 8, 0, 0, 0]);
  const view = new DataView(head.buffer);
  levels.forEach((l, i) => {
    const entries = withTiles(l, dataAt.get(l)!);
    writeIfd(head, ifdAt[i]!, entries);
    if (i + 1 < levels.length) view.setUint32(ifdAt[i]! + 2 + entries.length * 12, ifdAt[i + 1]!, true);
  });
  return concatBytes([head, ...[...levels].reverse().flatMap((l) => l.tiles)]);
}
