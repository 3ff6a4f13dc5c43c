/**
 * Request body size limits, enforced while reading: a declared Content-Length over the limit is refused before any
 * byte is read, and a streamed body (chunked, or lying about its length) is cut off as soon as it passes the limit.
 */
import { ApiError } from "./errors";

/** Largest JSON or multipart/form-data body of any API route (the S3 endpoint, outside the router, excepted): 4 MiB. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Longest request URL the API answers (bytes of the whole URL): Cloudflare's edge refuses longer ones itself
 * ("URL size 16 KB", developers.cloudflare.com/workers/platform/limits/), and workerd's HTTP server answers a plain
 * text 414 above 64 KiB; between, the Worker answers the 414 in the error envelope, so a URL too long gets the same
 * answer locally and at the edge.
 */
export const MAX_URL_BYTES = 16 * 1024;

/** The 414 COMMON_URI_TOO_LONG for `request` when its URL is longer than MAX_URL_BYTES, else undefined. */
export function uriTooLong(request: Request): ApiError | undefined {
  if (request.url.length * 3 <= MAX_URL_BYTES) return undefined; // a UTF-16 unit is at most 3 UTF-8 bytes
  const bytes = new TextEncoder().encode(request.url).byteLength;
  if (bytes <= MAX_URL_BYTES) return undefined;
  return new ApiError(
    414,
    `The request URL has ${bytes} bytes; at most ${MAX_URL_BYTES} are accepted. Send long parameters (an evalscript, a geometry) in a POST body.`,
  );
}

const MIB = 1024 * 1024;
const describe = (bytes: number): string => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`);

/** The 413 COMMON_PAYLOAD_TOO_LARGE error naming the limit. */
export const payloadTooLarge = (limit: number): ApiError =>
  new ApiError(413, `The request body is too large: at most ${describe(limit)} (${limit} bytes) are accepted.`);

/**
 * Throws the 413 of `limit` when the request declares a Content-Length over it (nothing is read). The router
 * calls it before every route (with MAX_BODY_BYTES: no route of the API takes more), so a route that reads its
 * body late or forgets the limit still refuses what is declared too large; {@link readBytes} also counts the
 * bytes streamed.
 */
export function refuseDeclaredOversize(request: Request, limit = MAX_BODY_BYTES): void {
  if (Number(request.headers.get("content-length") ?? "0") > limit) throw payloadTooLarge(limit);
}

/**
 * Reads the whole body as bytes, at most `limit` bytes (default {@link MAX_BODY_BYTES}).
 * Returns an empty array for a request without a body. Throws a 413 ApiError when Content-Length or the bytes
 * actually received exceed the limit (the rest of the stream is cancelled, never buffered).
 */
export async function readBytes(request: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  refuseDeclaredOversize(request, limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/** Reads the body as UTF-8 text with {@link readBytes}'s limit (invalid UTF-8 becomes U+FFFD). */
export async function readText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  return new TextDecoder().decode(await readBytes(request, limit));
}
