/**
 * The S3 endpoint's access keys, per account (table s3_keys, migration 0010). A request signed with a key acts as
 * the key's account (src/s3/), and a descriptor carrying a key (with no S3_ENDPOINT configured) must carry one of
 * the caller's own keys (./index.ts). The secret is stored as such, not hashed: AWS Signature Version 4 is an HMAC
 * keyed with (a key derived from) the secret, so the verifier needs the secret itself, as AWS does. It is shown
 * once, when the key is made (the accounts API, src/accounts/routes.ts), and never listed.
 * Key format as AWS's: a 20-character access key id (`EOEDGE` + 14 upper-case hex digits) and a 40-character secret.
 */
import type { Env } from "../env";
import type { S3Keys } from "./config";

/** A stored key: its pair, the account it acts as and when it was made (ISO 8601). */
export interface AccountS3Key extends S3Keys {
  accountId: string;
  created: string;
}

/** Most S3 keys one account may hold. */
export const MAX_S3_KEYS = 10;

type Row = { access_key_id: string; secret: string; account_id: string; created: string };

const keyOf = (r: Row): AccountS3Key => ({
  accessKeyId: r.access_key_id,
  secretAccessKey: r.secret,
  accountId: r.account_id,
  created: r.created,
});

/** `n` random bytes. */
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

/** A new random key pair (not stored). */
export function newS3Keys(): S3Keys {
  const hex = Array.from(random(7), (b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
  const secret = btoa(String.fromCharCode(...random(30)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
  return { accessKeyId: `EOEDGE${hex}`, secretAccessKey: secret };
}

/** The key with access key id `id`, or null. */
export async function s3KeyById(env: Pick<Env, "DB">, id: string): Promise<AccountS3Key | null> {
  const row = await env.DB.prepare(
    "SELECT access_key_id, secret, account_id, created FROM s3_keys WHERE access_key_id = ?",
  )
    .bind(id)
    .first<Row>();
  return row ? keyOf(row) : null;
}

/** The keys of `account`, oldest first, without their secrets. */
export async function listS3Keys(
  env: Pick<Env, "DB">,
  account: string,
): Promise<{ accessKeyId: string; created: string }[]> {
  const { results } = await env.DB.prepare(
    "SELECT access_key_id, created FROM s3_keys WHERE account_id = ? ORDER BY created, access_key_id",
  )
    .bind(account)
    .all<Row>();
  return results.map((r) => ({ accessKeyId: r.access_key_id, created: r.created }));
}

/**
 * Stores `keys` for `account` (a new key, or the demo keys `npm start` keeps in its state folder: storing the same
 * pair again changes nothing). False when the access key id is taken by another account.
 */
export async function putS3Key(env: Pick<Env, "DB">, account: string, keys: S3Keys): Promise<boolean> {
  const r = await env.DB.prepare(
    "INSERT INTO s3_keys (access_key_id, secret, account_id, created) VALUES (?, ?, ?, ?) ON CONFLICT (access_key_id) DO UPDATE SET secret = excluded.secret WHERE account_id = excluded.account_id",
  )
    .bind(keys.accessKeyId, keys.secretAccessKey, account, new Date().toISOString())
    .run();
  return r.meta.changes > 0;
}

/** Makes a new key for `account`; null when it already has MAX_S3_KEYS (checked again after the insert). */
export async function createS3Key(env: Pick<Env, "DB">, account: string): Promise<AccountS3Key | null> {
  if ((await listS3Keys(env, account)).length >= MAX_S3_KEYS) return null;
  const keys = newS3Keys();
  await putS3Key(env, account, keys);
  if ((await listS3Keys(env, account)).length > MAX_S3_KEYS) {
    await deleteS3Key(env, account, keys.accessKeyId);
    return null;
  }
  return s3KeyById(env, keys.accessKeyId);
}

/** Deletes a key of `account` (requests signed with it fail from now on). False when it has no such key. */
export async function deleteS3Key(env: Pick<Env, "DB">, account: string, id: string): Promise<boolean> {
  const r = await env.DB.prepare("DELETE FROM s3_keys WHERE access_key_id = ? AND account_id = ?")
    .bind(id, account)
    .run();
  return r.meta.changes > 0;
}

/**
 * Whether `keys` are a key of `account` (secret compared in constant time). Unknown keys, another account's
 * keys and a wrong secret all answer false alike.
 */
export async function isAccountKey(env: Pick<Env, "DB">, account: string, keys: S3Keys): Promise<boolean> {
  const stored = await s3KeyById(env, keys.accessKeyId);
  const enc = new TextEncoder();
  const [a, b] = [enc.encode(stored?.secretAccessKey ?? ""), enc.encode(keys.secretAccessKey)];
  const same = a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
  return stored !== null && stored.accountId === account && same;
}
