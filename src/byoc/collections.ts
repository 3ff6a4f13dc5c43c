/**
 * BYOC collection rules (interface spec "BYOC collection", 4.6): building a collection from a create body and
 * applying an update. Update: `name` and `s3Bucket` required; s3Bucket may change only while the collection has
 * no tiles; `noData` omitted deletes it; `additionalData` omitted keeps the bands, given it replaces them; once a
 * tile exists bands may be renamed, removed or get another noData, but not added nor changed (source, bandIndex,
 * bitDepth, sampleFormat), and not all removed (the spec: "To remove all bands, first empty the collection");
 * once set, the sample format cannot change.
 */
import { ApiError, badRequest } from "../http/errors";
import type { BandFormat, ByocCollection } from "../storage/byoc/model";
import type { CollectionBody } from "./schema";

/** The band list of a body's additionalData.bands (source defaults to the band name), or null when not given. */
export function bandsOf(body: CollectionBody): [string, BandFormat][] | null {
  if (!body.additionalData) return null;
  return Object.entries(body.additionalData.bands ?? {}).map(([name, b]) => [
    name,
    {
      source: b.source ?? name,
      bandIndex: b.bandIndex,
      bitDepth: b.bitDepth,
      sampleFormat: b.sampleFormat,
      ...(b.noData === undefined ? {} : { noData: b.noData }),
    },
  ]);
}

/** @throws ApiError 400 for a FLOAT band that is not 32-bit. */
function checkFormats(bands: [string, BandFormat][]): void {
  const bad = bands.find(([, f]) => f.sampleFormat === "FLOAT" && f.bitDepth !== 32);
  if (bad) throw badRequest(`Band ${bad[0]}: FLOAT samples must be 32-bit (bitDepth 32).`);
}

/** A new collection of `account` from a create body. */
export function newCollection(account: string, body: CollectionBody): ByocCollection {
  const bands = bandsOf(body) ?? [];
  checkFormats(bands);
  return {
    id: crypto.randomUUID(),
    accountId: account,
    name: body.name,
    s3Bucket: body.s3Bucket,
    noData: body.noData,
    created: new Date().toISOString(),
    bands,
  };
}

const identity = (f: BandFormat): string => `${f.source}#${f.bandIndex}#${f.bitDepth}#${f.sampleFormat}`;

/**
 * @throws ApiError 400 when `next` adds or changes bands of a collection with tiles, removes all its bands, or
 *   changes the sample format.
 */
function checkBandChange(prev: [string, BandFormat][], next: [string, BandFormat][], tiles: number): void {
  const format = prev[0]?.[1].sampleFormat;
  const other = next.find(([, f]) => format !== undefined && f.sampleFormat !== format);
  if (other)
    throw badRequest(
      `Band ${other[0]}: the collection's sample format is ${format} and cannot change (it is set once the collection has bands).`,
    );
  if (tiles === 0) return;
  if (next.length === 0 && prev.length > 0)
    throw badRequest(
      `additionalData has no bands, which would remove all ${prev.length} band(s); the collection has ${tiles} tile(s): delete them first, then remove the bands.`,
    );
  const known = new Set(prev.map(([, f]) => identity(f)));
  const changed = next.find(([, f]) => !known.has(identity(f)));
  if (changed)
    throw badRequest(
      `Band ${changed[0]}: the collection has ${tiles} tile(s), so bands cannot be added and their source, bandIndex, bitDepth and sampleFormat cannot change (only renames, removals and noData).`,
    );
}

/**
 * The collection after an update body. @throws ApiError 400 for a bucket change of a non-empty collection and
 * the band rules above; 409 never (the caller owns the collection).
 */
export function updatedCollection(c: ByocCollection, body: CollectionBody, tiles: number): ByocCollection {
  if (body.s3Bucket !== c.s3Bucket && tiles > 0)
    throw badRequest(`s3Bucket can change only while the collection is empty; it has ${tiles} tile(s).`);
  const next = bandsOf(body);
  if (next) {
    checkFormats(next);
    checkBandChange(c.bands, next, tiles);
  }
  return { ...c, name: body.name, s3Bucket: body.s3Bucket, noData: body.noData, bands: next ?? c.bands };
}

/** 409 for a tile path the collection already has. */
export const duplicatePath = (path: string): ApiError =>
  new ApiError(409, `The collection already has a tile with path '${path.slice(0, 200)}'.`);
