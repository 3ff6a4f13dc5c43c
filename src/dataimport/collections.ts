/**
 * The BYOC collection an order or subscription imports into (spec: "A given collection must be empty or have the
 * same bands as the ordered data. When it is not given, a collection is created at confirmation"): the check of a
 * given one, and the idempotent creation of a new one in the account's import bucket (`tpdi-<account hex>`,
 * src/buckets/owners.ts importBucket: reserved for the account from the moment it exists), named after the record,
 * with the provider's bands.
 */
import type { Env } from "../env";
import { accountBucket, type ObjectStore } from "../buckets";
import { importBucket } from "../buckets/owners";
import { badRequest, notFound } from "../http/errors";
import type { BandFormat, ByocCollection } from "../storage/byoc/model";
import { getCollection, insertCollection } from "../storage/byoc/store";
import type { ImportRecord } from "./model";

const same = (a: [string, BandFormat][], b: [string, BandFormat][]): boolean =>
  a.length === b.length &&
  a.every(
    ([n, f], i) =>
      n === b[i]![0] &&
      f.bitDepth === b[i]![1].bitDepth &&
      f.sampleFormat === b[i]![1].sampleFormat &&
      f.source === b[i]![1].source,
  );

/**
 * Checks a given target collection. @throws ApiError 404 when `account` has no BYOC collection `id`, 400 when it
 * has other bands than `bands` (naming both).
 */
export async function checkTarget(
  env: Pick<Env, "DB">,
  account: string,
  id: string,
  bands: [string, BandFormat][],
): Promise<ByocCollection> {
  const c = await getCollection(env, account, id);
  if (!c) throw notFound(`BYOC collection ${id} not found.`);
  if (c.bands.length && !same(c.bands, bands))
    throw badRequest(
      `BYOC collection ${id} has bands ${c.bands.map(([n]) => n).join(", ")}; the ordered data has ${bands.map(([n]) => n).join(", ")}. Give an empty collection or one with the same bands.`,
      { collectionId: "incompatible bands" },
    );
  return c;
}

/**
 * The record's collection, created (id `r.collectionId`, set at confirmation) when it does not exist yet: safe to
 * call again after a crash or from a redelivered message.
 */
export async function ensureCollection(
  env: Pick<Env, "DB">,
  r: ImportRecord & { collectionId: string },
  bands: [string, BandFormat][],
): Promise<ByocCollection> {
  const found = await getCollection(env, r.account, r.collectionId);
  if (found) return found;
  const c: ByocCollection = {
    id: r.collectionId,
    accountId: r.account,
    name: r.name,
    s3Bucket: importBucket(r.account),
    created: new Date().toISOString(),
    bands,
  };
  try {
    await insertCollection(env, c);
    return c;
  } catch (e) {
    const raced = await getCollection(env, r.account, r.collectionId);
    if (raced) return raced;
    throw e;
  }
}

/** The store of a collection's bucket as its account. @throws BucketAccessDenied (403). */
export const collectionBucket = (
  env: Pick<Env, "DB" | "BUCKETS">,
  c: Pick<ByocCollection, "accountId" | "s3Bucket">,
): Promise<ObjectStore> => accountBucket(env, c.accountId, c.s3Bucket);
