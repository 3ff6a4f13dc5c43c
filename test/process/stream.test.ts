import { describe, expect, it } from "vitest";
import { partsBody } from "../../src/process/stream";

/** Parts of known content: part k holds `sizes[k]` bytes counting up from 10 * k (mod 256). */
const partsOf = (sizes: number[]) => sizes.map((n, k) => Uint8Array.from({ length: n }, (_, i) => (10 * k + i) & 255));

describe("partsBody", () => {
  it("streams several parts as their concatenation, in order", async () => {
    const parts = partsOf([8, 70000, 3, 0, 65536]);
    const body = partsBody(parts);
    expect(body).toBeInstanceOf(ReadableStream);
    const got = new Uint8Array(await new Response(body).arrayBuffer());
    const want = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) want.set(p, (at += p.length) - p.length);
    expect(got.length).toBe(want.length);
    expect(Buffer.compare(got, want)).toBe(0);
  });

  it("hands one part back as it is (no stream, no copy)", () => {
    const [only] = partsOf([1000]);
    expect(partsBody([only!])).toBe(only);
  });

  it("an empty list is an empty body", async () => {
    expect((await new Response(partsBody([])).arrayBuffer()).byteLength).toBe(0);
  });
});
