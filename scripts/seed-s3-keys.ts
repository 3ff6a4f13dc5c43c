/**
 * The demo account's S3 keys (called by scripts/seed.ts): `$S3_ACCESS_KEY_ID`/`$S3_SECRET_ACCESS_KEY` when both
 * are set, else the pair kept in `<persist>/demo-s3-keys.json` (made here when missing, in the format
 * scripts/start.mjs prints from), stored as a key of the demo account (src/buckets/keys.ts), so the keys `npm start`
 * prints sign requests to the S3 endpoint as the demo account, owner of the sample buckets. Idempotent.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Env } from "../src/env";
import type { S3Keys } from "../src/buckets/config";
import { newS3Keys, putS3Key } from "../src/buckets/keys";

/** The keys to give the demo account (see the module comment). */
async function demoKeys(persist: string): Promise<S3Keys> {
  const { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = process.env;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  const file = join(persist, "demo-s3-keys.json");
  try {
    return JSON.parse(await readFile(file, "utf8")) as S3Keys;
  } catch {
    const keys = newS3Keys();
    await writeFile(file, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
    return keys;
  }
}

/** Stores the demo keys for `account`; answers the access key id. @throws Error when another account has that id. */
export async function seedS3Keys(env: Pick<Env, "DB">, account: string, persist: string): Promise<string> {
  const keys = await demoKeys(persist);
  if (!(await putS3Key(env, account, keys))) throw new Error(`S3 access key ${keys.accessKeyId} belongs to another account of this state`);
  return keys.accessKeyId;
}
