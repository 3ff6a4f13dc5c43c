/**
 * BYOC records (interface spec "BYOC collection" / "BYOC tile"; OpenAPI BYOCCollection, BYOCFormat, BYOCTile) and
 * the mapping between a BYOC band format (bitDepth + sampleFormat) and the registry's sample types.
 */
import type { SampleType } from "../registry";

export const TILE_STATUSES = ["WAITING", "QUEUED", "INGESTING", "INGESTED", "FAILED"] as const;
export type TileStatus = (typeof TILE_STATUSES)[number];

/** OpenAPI BYOCFormat: where a band is in each tile and how it is stored. */
export interface BandFormat {
  /** The file name's (BAND) value; defaults to the band name. */
  source: string;
  /** 1-based band of that file. */
  bandIndex: number;
  bitDepth: 8 | 16 | 32;
  sampleFormat: "UINT" | "INT" | "FLOAT";
  noData?: number;
}

/** A BYOC collection as stored: registry row fields plus its band formats (in band order). */
export interface ByocCollection {
  id: string;
  accountId: string;
  name: string;
  s3Bucket: string;
  noData?: number;
  created: string;
  bands: [string, BandFormat][];
}

/** A BYOC tile as stored (table byoc_tiles). */
export interface ByocTile {
  id: string;
  collection: string;
  account: string;
  path: string;
  status: TileStatus;
  sensingTime: string | null;
  coverGeometry: unknown;
  /** GeoJSON Polygon or MultiPolygon in CRS84: given at creation (`tileGeometryGiven`), else set at ingestion. */
  tileGeometry:
    | { type: "Polygon"; coordinates: number[][][] }
    | { type: "MultiPolygon"; coordinates: number[][][][] }
    | null;
  /** True when the user gave tileGeometry at creation: ingestion keeps it (the spec's BYOC tile). */
  tileGeometryGiven?: boolean;
  tileEpsg: number | null;
  /** [minX, minY, maxX, maxY] of the tile geometry in the tile CRS. */
  nativeBbox: number[] | null;
  metersPerPixel: number | null;
  failedCause: string | null;
  warnings: string | null;
  created: string;
  /** The extension of the band files (`.tiff` / `.tif`) found at ingestion; null before (storage/byoc/paths.ts). */
  fileExt?: string | null;
}

/** The registry sample type of a band format, e.g. 16 + UINT -> UINT16; FLOAT needs 32 bits. */
export function sampleTypeOf(f: Pick<BandFormat, "bitDepth" | "sampleFormat">): SampleType | null {
  if (f.sampleFormat === "FLOAT") return f.bitDepth === 32 ? "FLOAT32" : null;
  return `${f.sampleFormat}${f.bitDepth}` as SampleType;
}

/** The band format (bitDepth + sampleFormat) of a file's sample type, or null for one BYOC cannot hold (FLOAT64). */
export function formatOf(t: SampleType): Pick<BandFormat, "bitDepth" | "sampleFormat"> | null {
  const m = /^(U?INT|FLOAT)(8|16|32)$/.exec(t);
  return m
    ? { sampleFormat: m[1] as BandFormat["sampleFormat"], bitDepth: Number(m[2]) as BandFormat["bitDepth"] }
    : null;
}

/** The processing type id (input.data[].type and catalog collection id) of a BYOC collection uuid. */
export const byocType = (id: string): string => `byoc-${id}`;

/**
 * OpenAPI BYOCCollection JSON (additionalData filled by the caller with the ingested tiles' summary). Each band
 * carries BYOCFormat's read-only `aliases` (alias names usable in evalscripts; "only used in certain specific
 * collections and not settable by the user": always empty here, and ignored in request bodies).
 */
export function collectionJson(c: ByocCollection, summary: Record<string, unknown>): Record<string, unknown> {
  const bands = Object.fromEntries(c.bands.map(([name, f]) => [name, { ...f, aliases: [] }]));
  return {
    id: c.id,
    accountId: c.accountId,
    name: c.name,
    s3Bucket: c.s3Bucket,
    isConfigured: c.bands.length > 0,
    created: c.created,
    ...(c.noData === undefined ? {} : { noData: c.noData }),
    requiresMetadataUpdate: false,
    additionalData: { bands, ...summary },
  };
}
