/** multipart/mixed parsing for tests (RFC 2046 5.1.1), written here independently of the server's writer. */
import { expect } from "vitest";

/** One body part: its headers (lower-case names) and raw bytes. */
export interface Part {
  headers: Record<string, string>;
  data: Uint8Array;
}

/** Splits a multipart body at `--boundary` lines (RFC 2046 5.1.1) into parts with parsed headers and raw bytes. */
export function parseMultipart(body: Uint8Array, contentType: string): Part[] {
  const boundary = /boundary=([^;]+)/.exec(contentType)![1]!;
  const text = new TextDecoder("latin1").decode(body); // 1 char per byte, so indices are byte offsets
  const delimiter = `--${boundary}`;
  expect(text.startsWith(delimiter + "\r\n")).toBe(true);
  expect(text.endsWith(`\r\n${delimiter}--\r\n`)).toBe(true);
  const parts: Part[] = [];
  let at = delimiter.length + 2;
  for (;;) {
    const headEnd = text.indexOf("\r\n\r\n", at);
    const next = text.indexOf(`\r\n${delimiter}`, headEnd);
    const headers: Record<string, string> = {};
    for (const line of text.slice(at, headEnd).split("\r\n")) {
      const i = line.indexOf(":");
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    parts.push({ headers, data: body.subarray(headEnd + 4, next) });
    at = next + 2 + delimiter.length;
    if (text.startsWith("--", at)) return parts;
    at += 2;
  }
}
