/**
 * Reads and checks the band files of a BYOC tile (what Sentinel Hub's ingestion checks): each file exists in the
 * collection's bucket, is a tiled GeoTIFF (a COG: tiles, and overviews when the image is larger than one block),
 * uses a compression the reader decodes, a sample format BYOC holds (8/16/32-bit UINT/INT, 32-bit FLOAT), the
 * same CRS as the other files, and the bit depth / sample format and band count the collection's bands expect;
 * its header stays within the COG reader's file limits (src/raster/cog/limits.ts: the IFD chain, tag sizes, block
 * sizes and counts, every block inside the file). Only headers are read (openFile + openCog: one ranged read per
 * file for a GDAL COG), so a corrupt or oversized (bomb) block is found by the request that reads it (a 400).
 * Sources: Sentinel Hub BYOC documentation ("Cloud Optimized GeoTIFF", "Constraints and settings").
 */
import type { Env } from "../env";
import { BucketAccessDenied, type ObjectStore } from "../buckets";
import { openCog, type Cog } from "../raster/cog";
import { EngineError } from "../raster/errors";
import { storeSource } from "../storage/sources";
import { collectionStore } from "./access";
import { filesOf } from "../storage/byoc/tiles";
import { expectedKeys, extensionsOf, fileKey, pathTemplate } from "../storage/byoc/paths";
import { formatOf, type BandFormat, type ByocCollection, type ByocTile } from "../storage/byoc/model";

/** A tile that cannot be ingested; `message` becomes additionalData.failedIngestionCause. */
export class IngestError extends Error {}

/** Compressions the COG reader decodes: none, LZW, DEFLATE (8, 32946), PackBits (TIFF Compression tag values). */
const COMPRESSIONS = new Set([1, 5, 8, 32773, 32946]);

/** What ingestion learned about a tile. */
export interface Inspection {
  /** The collection's bands (configured from this tile when the collection had none). */
  bands: [string, BandFormat][];
  epsg: number;
  /** Intersection of the files' boxes, [minX, minY, maxX, maxY] in `epsg`. */
  bbox: [number, number, number, number];
  /** Finest pixel size of the files, metres (degrees x 111320 for geographic CRSs). */
  metersPerPixel: number;
  warnings: string[];
  /** Bytes of headers read (the files' first ranged reads). */
  headerBytes: number;
  /** The extension of the band files (`.tiff` / `.tif`). */
  fileExt: string;
}

const fail = (message: string): never => {
  throw new IngestError(message);
};

/** The file's checks that do not depend on other files. */
function checkCog(cog: Cog, key: string): void {
  const full = cog.header.levels[0]!;
  if (!full.tiled)
    fail(
      `File ${key} is not a Cloud Optimized GeoTIFF: it is stored in strips, not tiles (convert it with gdal_translate -of COG).`,
    );
  if (cog.levels.length === 1 && (full.width > full.blockWidth || full.height > full.blockHeight))
    fail(
      `File ${key} is not a Cloud Optimized GeoTIFF: ${full.width} x ${full.height} px without overviews (add them with gdal_translate -of COG).`,
    );
  if (!COMPRESSIONS.has(full.compression))
    fail(`File ${key} uses TIFF compression ${full.compression}; supported: none, LZW, DEFLATE, PackBits.`);
  if (!formatOf(cog.sampleType))
    fail(`File ${key} holds ${cog.sampleType} samples; BYOC supports 8/16/32-bit integers and 32-bit floats.`);
}

/**
 * The sources (file (BAND) values) of a tile whose collection has no bands yet and their extension: the files the
 * path matches, with the first of its extensions (storage/byoc/paths.ts) any file has.
 */
async function discoverSources(store: ObjectStore, path: string): Promise<{ sources: string[]; ext: string }> {
  const bucket = store.bucket;
  const { stem } = pathTemplate(path);
  const before = stem.slice(0, stem.indexOf("(BAND)")),
    rest = stem.slice(stem.indexOf("(BAND)") + 6);
  const dir = before.slice(0, before.lastIndexOf("/") + 1);
  const keys = (await store.list({ prefix: dir, limit: 1000 })).objects.map((o) => o.key);
  for (const ext of extensionsOf(path)) {
    const after = rest + ext;
    const sources = keys
      .filter((k) => k.startsWith(before) && k.endsWith(after) && k.length > before.length + after.length)
      .map((k) => k.slice(before.length, k.length - after.length))
      .filter((s) => !s.includes("/"));
    if (sources.length) return { sources, ext };
  }
  const any = await store.list({ limit: 1 });
  return any.objects.length
    ? fail(`No band files match path '${path}' in bucket '${bucket}' (looked for ${expectedKeys(path, ["<band>"])}).`)
    : fail(`Bucket '${bucket}' does not exist or is empty.`);
}

/** Bands for a collection without bands: one per file band, named by the source (`<source>_<i>` for multi-band files). */
function bandsFrom(files: Map<string, Cog>): [string, BandFormat][] {
  return [...files].flatMap(([source, cog]) =>
    Array.from({ length: cog.bandCount }, (_, i): [string, BandFormat] => [
      cog.bandCount === 1 ? source : `${source}_${i + 1}`,
      {
        source,
        bandIndex: i + 1,
        ...formatOf(cog.sampleType)!,
        ...(cog.nodata === null ? {} : { noData: cog.nodata }),
      },
    ]),
  );
}

/** Checks the files against configured bands: band index within the file, same bit depth and sample format. */
function checkBands(bands: [string, BandFormat][], files: Map<string, Cog>, key: (source: string) => string): void {
  for (const [name, f] of bands) {
    const cog = files.get(f.source)!;
    const got = formatOf(cog.sampleType)!;
    if (got.bitDepth !== f.bitDepth || got.sampleFormat !== f.sampleFormat)
      fail(
        `Band ${name}: file ${key(f.source)} holds ${got.bitDepth}-bit ${got.sampleFormat} samples, the collection's band is ${f.bitDepth}-bit ${f.sampleFormat}.`,
      );
    if (f.bandIndex > cog.bandCount)
      fail(`Band ${name}: bandIndex ${f.bandIndex} but file ${key(f.source)} has ${cog.bandCount} band(s).`);
  }
}

/** The failure cause of a file openCog refused: its invalid-file message (naming the file and the limit) as it is. */
const openFailure = (key: string, e: unknown): string =>
  e instanceof EngineError && e.kind === "invalid-file"
    ? e.message
    : `File ${key} is not a readable GeoTIFF: ${e instanceof Error ? e.message : String(e)}.`;

/**
 * Opens one band file's header (checked against the COG reader's file limits, src/raster/cog/limits.ts); null when
 * the file is missing.
 * @throws IngestError when it is not a readable GeoTIFF or breaks a limit.
 */
async function openBandFile(store: ObjectStore, key: string): Promise<{ cog: Cog; bytes: number } | null> {
  const source = await storeSource(store, key);
  if (!source) return null;
  const cog = await openCog(source).catch((e: unknown) => fail(openFailure(key, e)));
  checkCog(cog, key);
  return { cog, bytes: Math.min(source.size, 16 * 1024) };
}

/**
 * Opens the band files of `sources`: the first with each extension the path allows until one exists, the others
 * with that one. @throws IngestError naming the missing file and every key expected.
 */
async function openBandFiles(
  store: ObjectStore,
  path: string,
  sources: string[],
  ext?: string,
): Promise<{ files: Map<string, Cog>; ext: string; headerBytes: number }> {
  const missing = (key: string, found?: string): never =>
    fail(
      `Band file ${key} is missing in bucket '${store.bucket}'; the files expected for path '${path}': ${found ? sources.map((s) => fileKey(path, s, found)).join(", ") : expectedKeys(path, sources)}.`,
    );
  const exts = ext ? [ext] : extensionsOf(path);
  let first: { cog: Cog; bytes: number } | null = null,
    found = exts[0]!;
  for (const e of exts) {
    first = await openBandFile(store, fileKey(path, sources[0]!, e));
    if (first) {
      found = e;
      break;
    }
  }
  if (!first)
    missing(
      exts.length > 1
        ? `${fileKey(path, sources[0]!, exts[0])} (or ${exts.slice(1).join(", ")})`
        : fileKey(path, sources[0]!, found),
    );
  const files = new Map<string, Cog>([[sources[0]!, first!.cog]]);
  let headerBytes = first!.bytes;
  for (const source of sources.slice(1)) {
    const key = fileKey(path, source, found);
    const opened = (await openBandFile(store, key)) ?? missing(key, found);
    files.set(source, opened.cog);
    headerBytes += opened.bytes;
  }
  return { files, ext: found, headerBytes };
}

/**
 * Inspects a tile's files.
 * @throws IngestError with the failure cause (missing file or bucket, not a COG, a file beyond the COG reader's
 *   limits, CRS mismatch, band mismatch, no common area, a leading `/`, a bucket the collection's account may not
 *   use); other errors are storage faults (the message is retried).
 */
export async function inspectTile(
  env: Pick<Env, "BUCKETS" | "DB">,
  c: ByocCollection,
  t: ByocTile,
): Promise<Inspection> {
  if (t.path.startsWith("/")) fail(`Tile path '${t.path}' must not start with '/'.`);
  const store = await collectionStore(env, c).catch((e: unknown) =>
    e instanceof BucketAccessDenied ? fail(e.message) : Promise.reject(e),
  );
  const found = c.bands.length
    ? { sources: [...filesOf(c.bands).keys()], ext: undefined }
    : await discoverSources(store, t.path);
  const { files, ext, headerBytes } = await openBandFiles(store, t.path, found.sources, found.ext);
  const sources = found.sources;
  const key = (source: string) => fileKey(t.path, source, ext);
  const cogs = [...files.values()];
  const epsg = cogs[0]!.crs.epsg;
  const other = [...files].find(([, f]) => f.crs.epsg !== epsg);
  if (other)
    fail(
      `Files of one tile must share a CRS: ${key(sources[0]!)} is EPSG:${epsg}, ${key(other[0])} is EPSG:${other[1].crs.epsg}.`,
    );
  const bands = c.bands.length ? c.bands : bandsFrom(files);
  checkBands(bands, files, key);
  const bbox: [number, number, number, number] = [
    Math.max(...cogs.map((f) => f.bbox[0])),
    Math.max(...cogs.map((f) => f.bbox[1])),
    Math.min(...cogs.map((f) => f.bbox[2])),
    Math.min(...cogs.map((f) => f.bbox[3])),
  ];
  if (bbox[0] >= bbox[2] || bbox[1] >= bbox[3])
    fail("The tile's files do not overlap: their bounding boxes have no common area.");
  const pixel = Math.min(...cogs.map((f) => Math.abs(f.geoTransform[1])));
  return {
    bands,
    epsg,
    bbox,
    metersPerPixel: cogs[0]!.crs.geographic ? pixel * 111_320 : pixel,
    warnings: [],
    headerBytes,
    fileExt: ext,
  };
}
