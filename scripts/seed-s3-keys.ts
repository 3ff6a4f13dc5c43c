/**
 * The demo account's S3 keys (called by scripts/seed.ts): the pair of `<persist>/demo-s3-keys.json`, the one source
 * of a state's demo keys (made there once, or from `$S3_ACCESS_KEY_ID`/`$S3_SECRET_ACCESS_KEY`: scripts/lib/local.mjs
 * demoS3Keys), stored as a key of the demo account (src/buckets/keys.ts), so the keys `npm start` prints sign requests
 * to the S3 endpoint as the demo account, owner of the sample buckets. Idempotent.
 */
import type { Env } from "../src/env";
import { putS3Key } from "../src/buckets/keys";
import { demoS3Keys } from "./lib/local.mjs";

/** Stores the demo keys for `account`; answers the access key id. @throws Error when another account has that id. */
export async function seedS3Keys(env: Pick<Env, "DB">, account: string, persist: string): Promise<string> {
  const keys = demoS3Keys(persist, true) as { accessKeyId: string; secretAccessKey: string };
  if (!(await putS3Key(env, account, keys)))
    throw new Error(`S3 access key ${keys.accessKeyId} belongs to another account of this state`);
  return keys.accessKeyId;
}
