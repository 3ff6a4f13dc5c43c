/**
 * Who may use a local or bound bucket (table bucket_owners, migration 0010): its owner, and the accounts its
 * bucket policy grants (./policy.ts). A bucket belongs to the account that first creates it (S3 CreateBucket on
 * the S3 endpoint) or first uses it (a descriptor, a BYOC/Zarr collection, an evalscriptReference, a GeoPackage
 * input, a delivery, any S3 endpoint operation): the claim is an INSERT ... ON CONFLICT DO NOTHING read back in the
 * same D1 batch, so of two first users exactly one wins and the other is refused. Owners never change; the owner
 * may delete an empty bucket (S3 DeleteBucket: the row goes, the name is free again); grants change with the policy.
 *
 * Import buckets are the exception: `tpdi-<account id without hyphens>` ({@link importBucket}) is reserved for the
 * third-party import system and belongs to that account from the moment it exists, whoever named it first (a row
 * another account claimed earlier is given back to it: {@link claimBucket}); no other account may use, create or be
 * granted one.
 *
 * Every other account gets {@link BucketAccessDenied} (403), decided from the bucket name alone before any object
 * is touched, so the answer is the same whether or not the key (or any object) exists.
 * Decisions are cached per isolate for ACCESS_RECHECK_MS (a policy change is seen at once by the isolate that made
 * it, within that time by the others).
 */
import type { Env } from "../env";
import { approxBytes, Lru } from "../raster/lru";
import { PolicyError, policyGrantees } from "./policy";
import { REQUEST_CACHE_BYTES } from "../raster/memory";

/** How long an isolate trusts a bucket's owner and grants before reading them again, ms. */
export const ACCESS_RECHECK_MS = 30_000;

/**
 * The caller may not use the bucket. A kinded error (`kind` "forbidden"): the HTTP layer renders it as the 403
 * envelope (src/http/errors.ts), the S3 endpoint as AccessDenied.
 */
export class BucketAccessDenied extends Error {
  readonly kind = "forbidden";
  /**
   * @param bucket the bucket the caller named.
   * @param account the caller's account (null: a built-in collection, which has none).
   * @param reason why, when not "the bucket belongs to another account".
   */
  constructor(
    readonly bucket: string,
    account: string | null,
    reason = "it belongs to another account. Its owner can grant it to your account with a bucket policy (S3 PutBucketPolicy naming your account id)",
  ) {
    super(`Access to bucket '${bucket}' is denied${account === null ? "" : ` to account ${account}`}: ${reason}.`);
  }
}

/** Prefix of the bucket names reserved for third-party import deliveries. */
export const IMPORT_BUCKET_PREFIX = "tpdi-";

/** The import bucket of `account`: where deliveries of an order or subscription confirmed without collectionId land. */
export const importBucket = (account: string): string =>
  `${IMPORT_BUCKET_PREFIX}${account.replace(/-/g, "").toLowerCase()}`;

/** True when `bucket` is a name reserved for third-party import (see the module comment). */
export const isImportBucket = (bucket: string): boolean => bucket.startsWith(IMPORT_BUCKET_PREFIX);

/** A bucket's owner and the accounts its policy grants. */
interface Access {
  owner: string;
  grantees: string[];
  at: number;
}

const cache = new Lru<Access>(2048, REQUEST_CACHE_BYTES / 5, approxBytes, true);

type Row = { account_id: string; policy: string | null };

/** The cached decision data of a bucket's row. */
function remember(bucket: string, owner: string, policy: string | null): Access {
  const access = {
    owner,
    grantees: policy && !isImportBucket(bucket) ? policyGrantees(policy, bucket) : [],
    at: Date.now(),
  };
  cache.set(bucket, access);
  return access;
}

/**
 * The owner row of `bucket`, claimed for `account` when the bucket has none (atomically: insert-if-absent and
 * read back in one batch). Answers whether this call made the claim. An import bucket is claimed only by its own
 * account, and a row of another owner (a squat from before the prefix was reserved) is given back to it, its
 * policy dropped; for any other account the import bucket is refused.
 * @throws BucketAccessDenied for another account's import bucket.
 */
export async function claimBucket(
  env: Pick<Env, "DB">,
  account: string,
  bucket: string,
): Promise<{ owner: string; policy: string | null; claimed: boolean }> {
  const reserved = isImportBucket(bucket);
  if (reserved && importBucket(account) !== bucket) {
    throw new BucketAccessDenied(
      bucket,
      account,
      `names starting with ${IMPORT_BUCKET_PREFIX} are reserved for the import deliveries of the account they name`,
    );
  }
  const onConflict = reserved
    ? "DO UPDATE SET account_id = excluded.account_id, policy = NULL WHERE account_id <> excluded.account_id"
    : "DO NOTHING";
  const [inserted, read] = await env.DB.batch<Row>([
    env.DB.prepare(
      `INSERT INTO bucket_owners (bucket, account_id, policy, created) VALUES (?, ?, NULL, ?) ON CONFLICT (bucket) ${onConflict}`,
    ).bind(bucket, account, new Date().toISOString()),
    env.DB.prepare("SELECT account_id, policy FROM bucket_owners WHERE bucket = ?").bind(bucket),
  ]);
  const row = read!.results[0]!;
  remember(bucket, row.account_id, row.policy);
  return { owner: row.account_id, policy: row.policy, claimed: (inserted?.meta.changes ?? 0) > 0 };
}

/**
 * Checks that `account` may use `bucket` (read and write), claiming it when it has no owner yet.
 * @throws BucketAccessDenied when it belongs to another account that does not grant it to `account`.
 */
export async function authorizeBucket(env: Pick<Env, "DB">, account: string, bucket: string): Promise<void> {
  let access = cache.get(bucket);
  if (!access || Date.now() - access.at > ACCESS_RECHECK_MS) {
    const row = await env.DB.prepare("SELECT account_id, policy FROM bucket_owners WHERE bucket = ?")
      .bind(bucket)
      .first<Row>();
    const { owner, policy } =
      row && !isImportBucket(bucket)
        ? { owner: row.account_id, policy: row.policy }
        : await claimBucket(env, account, bucket);
    access = remember(bucket, owner, policy);
  }
  if (access.owner !== account && !access.grantees.includes(account.toLowerCase()))
    throw new BucketAccessDenied(bucket, account);
}

/** The owner of `bucket`, or null when nobody owns it (nothing is claimed). */
export async function bucketOwner(env: Pick<Env, "DB">, bucket: string): Promise<string | null> {
  return (
    (await env.DB.prepare("SELECT account_id FROM bucket_owners WHERE bucket = ?")
      .bind(bucket)
      .first<string>("account_id")) ?? null
  );
}

/** Removes the owner row of `bucket` if `account` owns it (S3 DeleteBucket); this isolate sees it at once. */
export async function releaseBucket(env: Pick<Env, "DB">, account: string, bucket: string): Promise<void> {
  await env.DB.prepare("DELETE FROM bucket_owners WHERE bucket = ? AND account_id = ?").bind(bucket, account).run();
  cache.delete(bucket);
}

/** The buckets `account` owns, by name, with their creation time (ISO 8601). */
export async function ownedBuckets(
  env: Pick<Env, "DB">,
  account: string,
): Promise<{ bucket: string; created: string }[]> {
  const { results } = await env.DB.prepare(
    "SELECT bucket, created FROM bucket_owners WHERE account_id = ? ORDER BY bucket",
  )
    .bind(account)
    .all<{ bucket: string; created: string }>();
  return results;
}

/**
 * The policy of a bucket `account` owns (claimed when unowned), or null when it has none.
 * @throws BucketAccessDenied when another account owns it (grantees do not see nor change the policy).
 */
export async function bucketPolicy(env: Pick<Env, "DB">, account: string, bucket: string): Promise<string | null> {
  const row = await claimBucket(env, account, bucket);
  if (row.owner !== account) throw new BucketAccessDenied(bucket, account);
  return row.policy;
}

/**
 * Checks that a policy of `bucket` may grant `grantees`: an import bucket is granted to nobody, and every grantee
 * must be an existing account (a grant to a mistyped id would otherwise wait for whoever gets that id).
 * @throws PolicyError naming the import bucket or the accounts that do not exist.
 */
async function checkGrantees(env: Pick<Env, "DB">, bucket: string, grantees: string[]): Promise<void> {
  if (isImportBucket(bucket)) {
    throw new PolicyError(
      `Bucket ${bucket} is an import bucket (names starting with ${IMPORT_BUCKET_PREFIX} are reserved for third-party import deliveries): it cannot be granted to other accounts.`,
    );
  }
  if (!grantees.length) return;
  const { results } = await env.DB.prepare(
    "SELECT lower(id) AS id FROM accounts WHERE lower(id) IN (SELECT value FROM json_each(?))",
  )
    .bind(JSON.stringify(grantees))
    .all<{ id: string }>();
  const known = new Set(results.map((r) => r.id));
  const missing = grantees.filter((g) => !known.has(g));
  if (missing.length)
    throw new PolicyError(
      `The bucket policy grants account(s) that do not exist: ${missing.join(", ")}. Grant existing account ids only.`,
    );
}

/**
 * Sets (`policy` text) or removes (null) the policy of a bucket `account` owns; this isolate sees it at once.
 * @throws BucketAccessDenied (not the owner), PolicyError (./policy.ts) for a policy EO Edge cannot read, one of
 *   an import bucket or granting an account that does not exist.
 */
export async function setBucketPolicy(
  env: Pick<Env, "DB">,
  account: string,
  bucket: string,
  policy: string | null,
): Promise<void> {
  await bucketPolicy(env, account, bucket);
  if (policy !== null) await checkGrantees(env, bucket, policyGrantees(policy, bucket));
  await env.DB.prepare("UPDATE bucket_owners SET policy = ? WHERE bucket = ? AND account_id = ?")
    .bind(policy, bucket, account)
    .run();
  cache.delete(bucket);
}
