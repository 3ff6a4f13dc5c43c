/**
 * The evalscript an `evalscriptReference` names (Async Processing `evalscriptReference.s3`, Statistical Batch
 * `aggregation.evalscriptReference.s3`): one object of a bucket the caller may use, read as UTF-8 text. Failures
 * name the reference, never the object's bytes; the compiler's version check quotes nothing of the script either
 * (src/raster/evalscript/compile/compile.ts), so an object that is no evalscript cannot be read back through messages.
 */
import { invalidArgument } from "../raster/errors";
import type { BucketEnv } from "./config";
import { resolveBucket } from "./index";
import type { BucketDescriptor } from "./types";

/** Largest evalscript read through a reference (bytes; the evalscript text limit, src/raster/evalscript/limits.ts). */
export const MAX_SCRIPT_BYTES = 1024 * 1024;

/**
 * The text of the object `s3` names, read as `account`; `what` names the field in messages.
 * @throws EngineError invalid-argument (400) when the URL names no object, the object does not exist or is larger
 *   than MAX_SCRIPT_BYTES; BucketAccessDenied (403) for a bucket `account` may not use (checked first, so the
 *   answer for another account's bucket is the same whether or not the object exists).
 */
export async function readScriptObject(
  env: BucketEnv,
  account: string,
  s3: BucketDescriptor,
  what: string,
): Promise<string> {
  const { store, prefix } = await resolveBucket(env, account, s3);
  if (prefix === "") throw invalidArgument(`${what} '${s3.url}' must name an object: s3://<bucket>/<key>.`);
  const head = await store.head(prefix);
  if (head && head.size > MAX_SCRIPT_BYTES)
    throw invalidArgument(`${what} '${s3.url}' is ${head.size} bytes; at most ${MAX_SCRIPT_BYTES} are read.`);
  const object = head && (await store.get(prefix));
  if (!object) throw invalidArgument(`${what} '${s3.url}' does not exist.`);
  return new Response(object.body).text();
}
