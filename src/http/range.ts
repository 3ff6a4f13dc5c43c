/**
 * Single-range HTTP Range requests (RFC 9110 section 14): parses a `Range: bytes=...` header against an object's size,
 * for every endpoint that streams stored bytes (catalog assets, BYOC files, the S3 endpoint), and answers stored
 * bytes with it (rangedResponse: BYOC files, third-party import files and archives).
 */
import { ApiError } from "./errors";

/** A byte range [start, end] (inclusive) of an object of `size` bytes; null = the whole object. */
export function parseRange(header: string | null, size: number): { start: number; end: number } | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return null; // absent, multi-range or malformed: serve the whole object
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(size - suffix, 0);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== "" && Number(m[2]) < start) return null; // invalid range: ignored (RFC 9110 14.2)
  }
  if (start >= size) throw unsatisfiable(size);
  return { start, end };
}

const unsatisfiable = (size: number): ApiError =>
  new ApiError(
    416,
    `The requested range is not satisfiable; the file has ${size} bytes.`,
    undefined,
    "COMMON_BAD_PAYLOAD",
    {
      "content-range": `bytes */${size}`,
    },
  );

/**
 * The answer for stored bytes of `size` (a file, an archive): 200 with all of them, or 206 with the single range a
 * `Range` header asks (Content-Range; 416 beyond the end, parseRange), with `headers` (content type, etag, ...).
 * `read` fetches the bytes, the range as offset and length; null when they are gone (`missing()` is thrown).
 */
export async function rangedResponse(
  request: Request,
  size: number,
  headers: Record<string, string>,
  read: (range?: { offset: number; length: number }) => Promise<ReadableStream | null>,
  missing: () => Error,
): Promise<Response> {
  const range = parseRange(request.headers.get("range"), size);
  const body = await read(range ? { offset: range.start, length: range.end - range.start + 1 } : undefined);
  if (!body) throw missing();
  const all = { ...headers, "accept-ranges": "bytes" };
  if (!range) return new Response(body, { headers: { ...all, "content-length": String(size) } });
  return new Response(body, {
    status: 206,
    headers: {
      ...all,
      "content-length": String(range.end - range.start + 1),
      "content-range": `bytes ${range.start}-${range.end}/${size}`,
    },
  });
}
