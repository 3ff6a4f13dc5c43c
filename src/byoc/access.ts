/**
 * Access to a caller's BYOC collection from a route's `:collectionId` (another account's is a 404), and to a
 * collection's bucket, which the collection's account must own or be granted (src/buckets/owners.ts, 403).
 */
import type { Env } from "../env";
import { accountBucket, type ObjectStore } from "../buckets";
import { notFound } from "../http/errors";
import { isUuid } from "../http/ids";
import { accountOf, type AuthedRequest } from "../http/router";
import type { ByocCollection } from "../storage/byoc/model";
import { getCollection } from "../storage/byoc/store";

/** Most collections or tiles per page (Sentinel Hub's BYOC lists). */
export const MAX_PAGE = 100;

/** A collection or tile id (case-insensitive). */

/** The caller's collection `:collectionId`. @throws ApiError 404 when there is none (or it is another account's). */
export async function ownCollection(request: AuthedRequest, env: Env): Promise<ByocCollection> {
  const id = String(request.params.collectionId ?? "");
  const c = isUuid(id) ? await getCollection(env, accountOf(request), id.toLowerCase()) : null;
  if (!c) throw notFound(`BYOC collection ${id.slice(0, 64)} not found.`);
  return c;
}

/**
 * The store of a collection's bucket, used as the collection's account (checked at creation, at every tile, file
 * and ingestion: a collection made before buckets had owners may name another account's bucket).
 * @throws BucketAccessDenied (403) when the account may not use the bucket.
 */
export const collectionStore = (
  env: Pick<Env, "BUCKETS" | "DB">,
  c: Pick<ByocCollection, "accountId" | "s3Bucket">,
): Promise<ObjectStore> => accountBucket(env, c.accountId, c.s3Bucket);
