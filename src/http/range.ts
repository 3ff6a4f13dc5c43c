/**
 * Single-range HTTP Range requests (RFC 9110 section 14): parses a `Range: bytes=...` header against an object's size,
 * for every endpoint that streams stored bytes (catalog assets, BYOC files, the S3 endpoint).
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
  new ApiError(416, `The requested range is not satisfiable; the file has ${size} bytes.`, undefined, "COMMON_BAD_PAYLOAD", {
    "content-range": `bytes */${size}`,
  });
