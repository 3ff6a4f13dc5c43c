/**
 * Packing several Processing API responses into one body, as Sentinel Hub does for `Accept: application/tar`
 * (or application/x-tar) and `Accept: multipart/mixed`. Members are named `<identifier>.<ext>` (default.tif,
 * userdata.json, ...), which is what sentinelhub-py's decode_tar expects (it picks each member's decoder from its
 * extension and keys the result by member name).
 */
import { createTar } from "nanotar";
import { invalidArgument } from "../errors";
import { concatBytes } from "./bytes";

/** One file of a packed response. */
export interface ArchiveEntry {
  /** `<identifier>.<ext>`. */
  name: string;
  data: Uint8Array;
}

/** ustar's name field holds at most 100 bytes (POSIX.1-1988 ustar header). */
const TAR_NAME_BYTES = 100;
const TAR_BLOCK = 512;
const TAR_RECORD = 10240;

/**
 * A ustar archive of regular files (mode 664) via nanotar, ending with the two zero blocks POSIX requires.
 * @throws EngineError invalid-argument when a name exceeds 100 bytes.
 */
export function tarArchive(entries: readonly ArchiveEntry[]): Uint8Array {
  const encoder = new TextEncoder();
  let used = 0;
  for (const e of entries) {
    if (encoder.encode(e.name).length > TAR_NAME_BYTES) {
      throw invalidArgument(
        `Response identifier too long for a tar member name (at most ${TAR_NAME_BYTES} bytes with the extension): ${e.name}`,
      );
    }
    used += TAR_BLOCK + Math.ceil(e.data.length / TAR_BLOCK) * TAR_BLOCK;
  }
  const tar = createTar(entries.map((e) => ({ name: e.name, data: e.data })));
  // nanotar pads to whole 10240-byte records; when the entries fill a record exactly there is no end-of-archive
  // marker left, so add one record of zeros.
  return tar.length - used >= 2 * TAR_BLOCK ? tar : concatBytes([tar, new Uint8Array(TAR_RECORD)]);
}

/** One part of a multipart/mixed body. */
export interface MultipartEntry extends ArchiveEntry {
  contentType: string;
}

/** Quoted-string for a MIME parameter (RFC 2045 / 2183): backslash-escapes `"` and `\`. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => "\\" + c)}"`;
}

/**
 * A multipart/mixed body (RFC 2046 section 5.1) with one part per entry; each part carries `Content-Type` and
 * `Content-Disposition: attachment; name="<identifier>"; filename="<identifier>.<ext>"`.
 * @returns the body and the response Content-Type `multipart/mixed; boundary=<boundary>`.
 */
export function multipartMixed(entries: readonly MultipartEntry[]): { body: Uint8Array; contentType: string } {
  const boundary = "EOEdge-" + crypto.randomUUID().replace(/-/g, "");
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const identifier = e.name.includes(".") ? e.name.slice(0, e.name.lastIndexOf(".")) : e.name;
    const head =
      `--${boundary}\r\nContent-Type: ${e.contentType}\r\n` +
      `Content-Disposition: attachment; name=${quoted(identifier)}; filename=${quoted(e.name)}\r\n\r\n`;
    parts.push(encoder.encode(head), e.data, encoder.encode("\r\n"));
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: concatBytes(parts), contentType: `multipart/mixed; boundary=${boundary}` };
}
