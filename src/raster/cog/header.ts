/**
 * Parses the header of a (Cloud Optimized) GeoTIFF with geotiff.js into plain data: image levels, block
 * layout and byte ranges, georeferencing, CRS code and nodata. Plain data so it can be cached per isolate
 * independently of the request that read it. The IFD chain is checked first (./ifds.ts) and every level's layout
 * after (./limits.ts), so a hostile file fails with invalid-file before geotiff.js loops or allocates on its sizes.
 */
import { GeoTIFF } from "geotiff";
import type { ImageFileDirectory } from "geotiff";
import type { ByteSource, GeoTransform } from "../types";
import type { SampleType } from "../reader";
import { gcpGeoTransform, type Gcp } from "../gcp";
import { EngineError, invalidFile } from "../errors";
import { checkIfdChain, readOrFault, StorageFault } from "./ifds";
import { checkLevel, fileName, type LevelLayout } from "./limits";

export type { GeoTransform, SampleType };

/** Everything the engine needs from a GeoTIFF header. */
export interface CogHeader {
  littleEndian: boolean;
  /** EPSG code from the GeoKeys (ProjectedCSTypeGeoKey, else GeographicTypeGeoKey). */
  epsg: number;
  /**
   * GDAL-order geotransform; for a file georeferenced by GCPs only (`gcps` set) the least-squares affine fit of
   * its GCPs (an approximation for sizes and resolutions: warps use the GCP transformer).
   */
  geoTransform: GeoTransform;
  /** Ground control points (several ModelTiepoint tie points, no ModelPixelScale), in the CRS of `epsg`. */
  gcps?: Gcp[];
  samplesPerPixel: number;
  bitsPerSample: number;
  sampleType: SampleType;
  nodata: number | null;
  /** levels[0] = full resolution, then the reduced-resolution images, finest first (masks excluded). */
  levels: LevelLayout[];
}

/** Bytes read with the first request: a GDAL COG keeps all its IFDs and block index at the front. */
export const HEADER_PREFETCH = 16 * 1024;

/**
 * A geotiff.js source over a ByteSource that answers header reads from one prefetched buffer, so that
 * parsing a COG header usually costs a single range read. Failed reads reach the caller as StorageFault.
 */
function prefetchingSource(source: ByteSource, prefetch: ArrayBuffer) {
  return {
    fileSize: source.size,
    async fetch(slices: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
      const clamped = slices.map((s) => ({
        offset: s.offset,
        length: Math.max(0, Math.min(s.length, source.size - s.offset)),
      }));
      if (clamped.every((s) => s.offset + s.length <= prefetch.byteLength))
        return clamped.map((s) => prefetch.slice(s.offset, s.offset + s.length));
      return readOrFault(source, clamped);
    },
    close() {},
  };
}

const GEOKEY_MODEL_TYPE = 1024;
const GEOKEY_RASTER_TYPE = 1025;
const GEOKEY_GEOGRAPHIC_TYPE = 2048;
const GEOKEY_PROJECTED_TYPE = 3072;

/** Reads the inline (SHORT) values of a GeoKeyDirectory: key id -> value. */
function geoKeys(directory: ArrayLike<number> | undefined): Map<number, number> {
  const keys = new Map<number, number>();
  if (!directory) return keys;
  const count = directory[3] ?? 0;
  for (let i = 0; i < count; i++) {
    const [id, location, , value] = [
      directory[4 + 4 * i],
      directory[5 + 4 * i],
      directory[6 + 4 * i],
      directory[7 + 4 * i],
    ];
    if (location === 0 && id !== undefined && value !== undefined) keys.set(id, value);
  }
  return keys;
}

/** EPSG code of the file's CRS from its GeoKeys; throws when the file declares none (or a user-defined one). */
function epsgOf(keys: Map<number, number>): number {
  const projected = keys.get(GEOKEY_PROJECTED_TYPE);
  if (projected !== undefined && projected !== 32767) return projected;
  const geographic = keys.get(GEOKEY_GEOGRAPHIC_TYPE);
  if (keys.get(GEOKEY_MODEL_TYPE) === 2 && geographic !== undefined && geographic !== 32767) return geographic;
  throw new Error("GeoTIFF declares no EPSG code in its GeoKeys (ProjectedCSTypeGeoKey / GeographicTypeGeoKey)");
}

/**
 * GDAL-order geotransform from ModelTransformation, or ModelTiepoint + ModelPixelScale; or, for a file with several
 * tie points and no scale or transformation, its ground control points (as GDAL's GTiff driver reads them: one GCP
 * per tie point (I, J, K, X, Y, Z)). PixelIsPoint shifts the geotransform, or the GCPs' pixel/line, by half a pixel
 * as GDAL does.
 */
async function georeferencingOf(
  fd: ImageFileDirectory,
  keys: Map<number, number>,
): Promise<{ geoTransform: GeoTransform; gcps?: Gcp[] }> {
  const point = keys.get(GEOKEY_RASTER_TYPE) === 2;
  const matrix = (await fd.loadValue("ModelTransformation")) as ArrayLike<number> | undefined;
  let gt: GeoTransform;
  if (matrix && matrix.length >= 16) gt = [matrix[3]!, matrix[0]!, matrix[1]!, matrix[7]!, matrix[4]!, matrix[5]!];
  else {
    const tie = (await fd.loadValue("ModelTiepoint")) as ArrayLike<number> | undefined;
    const scale = (await fd.loadValue("ModelPixelScale")) as ArrayLike<number> | undefined;
    if (tie && tie.length >= 12 && !scale) {
      const gcps = gcpsOf(tie, point ? 0.5 : 0);
      return { geoTransform: gcpGeoTransform(gcps), gcps };
    }
    if (!tie || tie.length < 6 || !scale || scale.length < 2)
      throw new Error("GeoTIFF has no georeferencing (ModelTiepoint/ModelPixelScale)");
    const [i, j, , x, y] = [tie[0]!, tie[1]!, tie[2]!, tie[3]!, tie[4]!];
    gt = [x - i * scale[0]!, scale[0]!, 0, y + j * scale[1]!, 0, -scale[1]!];
  }
  if (point) {
    gt[0] -= 0.5 * (gt[1] + gt[2]);
    gt[3] -= 0.5 * (gt[4] + gt[5]);
  }
  return { geoTransform: gt };
}

/** The GCPs of a ModelTiepoint tag (6 values per tie point), pixel/line shifted by `shift`. */
function gcpsOf(tie: ArrayLike<number>, shift: number): Gcp[] {
  const gcps: Gcp[] = [];
  for (let k = 0; k + 6 <= tie.length; k += 6)
    gcps.push({ pixel: tie[k]! + shift, line: tie[k + 1]! + shift, x: tie[k + 3]!, y: tie[k + 4]! });
  return gcps;
}

function sampleTypeOf(format: number, bits: number): SampleType {
  const name = ({ 1: "UINT", 2: "INT", 3: "FLOAT" } as Record<number, string>)[format];
  const type = `${name}${bits}`;
  if (!["UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "FLOAT64"].includes(type))
    throw new Error(`unsupported GeoTIFF sample type (SampleFormat ${format}, ${bits} bits)`);
  return type as SampleType;
}

const first = (v: unknown, fallback: number): number => {
  if (typeof v === "number") return v;
  if (v && typeof v === "object" && "length" in v && (v as ArrayLike<number>).length > 0)
    return Number((v as ArrayLike<number>)[0]);
  return fallback;
};

async function levelLayout(fd: ImageFileDirectory): Promise<LevelLayout> {
  const width = first(await fd.loadValue("ImageWidth"), 0);
  const height = first(await fd.loadValue("ImageLength"), 0);
  const tiled = fd.hasTag("TileOffsets");
  const offsets = (await fd.loadValue(tiled ? "TileOffsets" : "StripOffsets")) as ArrayLike<number | bigint>;
  const counts = (await fd.loadValue(tiled ? "TileByteCounts" : "StripByteCounts")) as ArrayLike<number | bigint>;
  return {
    width,
    height,
    tiled,
    blockWidth: tiled ? first(await fd.loadValue("TileWidth"), width) : width,
    blockHeight: tiled
      ? first(await fd.loadValue("TileLength"), height)
      : Math.min(height, first(await fd.loadValue("RowsPerStrip"), height)),
    compression: first(await fd.loadValue("Compression"), 1),
    predictor: first(await fd.loadValue("Predictor"), 1),
    planarConfiguration: first(await fd.loadValue("PlanarConfiguration"), 1),
    offsets: Array.from(offsets, Number),
    byteCounts: Array.from(counts, Number),
  };
}

/** The levels of the file: full resolution and reduced-resolution images (transparency masks skipped), finest first. */
async function levelsOf(tiff: GeoTIFF, count: number): Promise<LevelLayout[]> {
  const levels: LevelLayout[] = [await levelLayout((await tiff.getImage(0)).fileDirectory)];
  for (let i = 1; i < count; i++) {
    const img = await tiff.getImage(i);
    const subfile = first(await img.fileDirectory.loadValue("NewSubfileType"), 0);
    if ((subfile & 1) === 1 && (subfile & 4) === 0) levels.push(await levelLayout(img.fileDirectory));
  }
  return levels.sort((a, b) => b.width - a.width);
}

/** Parses a file whose IFD chain passed checkIfdChain (`count` IFDs). */
async function parseChecked(source: ByteSource, prefetch: ArrayBuffer, count: number): Promise<CogHeader> {
  const tiff = await GeoTIFF.fromSource(prefetchingSource(source, prefetch) as never);
  const fd = (await tiff.getImage(0)).fileDirectory;
  const keys = geoKeys((await fd.loadValue("GeoKeyDirectory")) as ArrayLike<number> | undefined);
  const bits = first(await fd.loadValue("BitsPerSample"), 1);
  const sampleType = sampleTypeOf(first(await fd.loadValue("SampleFormat"), 1), bits);
  const samplesPerPixel = first(await fd.loadValue("SamplesPerPixel"), 1);
  const levels = await levelsOf(tiff, count);
  levels.forEach((l, i) =>
    checkLevel(l, samplesPerPixel, bits / 8, source.size, i === 0 ? "the full-resolution image" : `overview ${i}`),
  );
  const nodataText = ((await fd.loadValue("GDAL_NODATA")) as string | undefined)?.replace(/\0/g, "").trim();
  const nodata = !nodataText
    ? null
    : /^[-+]?nan$/i.test(nodataText)
      ? NaN
      : Number.isFinite(Number(nodataText))
        ? Number(nodataText)
        : null;
  return {
    littleEndian: tiff.littleEndian,
    epsg: epsgOf(keys),
    ...(await georeferencingOf(fd, keys)),
    samplesPerPixel,
    bitsPerSample: bits,
    sampleType,
    nodata,
    levels,
  };
}

/**
 * Parses the header of the GeoTIFF in `source`: all IFDs (full resolution and reduced-resolution images;
 * transparency masks are skipped), block offsets, GeoKeys, GDAL_NODATA; the IFD chain and every level's layout
 * are checked against TIFF_LIMITS (./limits.ts) first.
 * @throws EngineError invalid-file for files that are not GeoTIFFs, lack georeferencing / an EPSG code, or break
 *   a limit; the storage's Error when a read fails.
 */
export async function parseHeader(source: ByteSource): Promise<CogHeader> {
  const [prefetch] = await source.read([{ offset: 0, length: Math.min(HEADER_PREFETCH, source.size) }]);
  try {
    return await parseChecked(source, prefetch!, await checkIfdChain(source, prefetch!));
  } catch (e) {
    if (e instanceof StorageFault) throw e.error;
    if (e instanceof EngineError && e.kind !== "invalid-file") throw e;
    const reason =
      e instanceof EngineError ? e.message : `not a readable GeoTIFF: ${e instanceof Error ? e.message : String(e)}`;
    throw invalidFile(`GeoTIFF ${fileName(source)}: ${reason}`, e instanceof EngineError ? e.limit : undefined);
  }
}
