/**
 * ObjectSink against the real local R2 (BUCKETS): an object of several 5 MiB parts written in odd-sized chunks,
 * its first bytes patched at the end, reads back byte for byte; a small object is one put; a store without
 * multipart support still gets the whole object.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { localBucket } from "../../src/buckets/local";
import type { ObjectStore } from "../../src/buckets";
import { ObjectSink, PART_BYTES } from "../../src/async/upload";

/** Deterministic pseudo-random bytes (xorshift32), so the object is not compressible and positions matter. */
function bytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function writeInChunks(store: ObjectStore, key: string, data: Uint8Array, chunk: number): Promise<void> {
  const sink = new ObjectSink(store, key, "application/octet-stream");
  await sink.write(new Uint8Array(8)); // placeholder, patched below
  for (let at = 8; at < data.length; at += chunk)
    await sink.write(data.subarray(at, Math.min(data.length, at + chunk)));
  sink.patch(0, data.subarray(0, 8));
  await sink.close();
}

async function stored(key: string): Promise<Uint8Array> {
  return new Uint8Array(await (await env.BUCKETS.get(`sink-test/${key}`))!.arrayBuffer());
}

describe("ObjectSink", () => {
  const store = localBucket(env.BUCKETS, "sink-test");

  it("writes 2.4 parts as a multipart upload, the first part patched last, byte for byte", async () => {
    const data = bytes(Math.floor(PART_BYTES * 2.4) + 8);
    await writeInChunks(store, "multi.bin", data, 777_777);
    const got = await stored("multi.bin");
    expect(got.length).toBe(data.length);
    expect(got.every((b, i) => b === data[i])).toBe(true);
    expect((await env.BUCKETS.head("sink-test/multi.bin"))!.etag).toMatch(/-3$/); // R2 multipart etag: 3 parts
  });

  it("an exact multiple of the part size has no empty last part", async () => {
    const data = bytes(PART_BYTES * 2, 7);
    await writeInChunks(store, "exact.bin", data, 1 << 20);
    const got = await stored("exact.bin");
    expect(got.length).toBe(data.length);
    expect(got.every((b, i) => b === data[i])).toBe(true);
  });

  it("a small object is one put", async () => {
    const data = bytes(1000, 3);
    await writeInChunks(store, "small.bin", data, 100);
    const got = await stored("small.bin");
    expect(Array.from(got)).toEqual(Array.from(data));
    expect((await env.BUCKETS.head("sink-test/small.bin"))!.etag).not.toMatch(/-\d+$/);
  });

  it("a store without multipart gets the whole object in one put", async () => {
    const { multipart: _, ...plain } = store;
    const data = bytes(PART_BYTES + 12345, 5);
    await writeInChunks(plain as ObjectStore, "plain.bin", data, 3_000_001);
    const got = await stored("plain.bin");
    expect(got.length).toBe(data.length);
    expect(got.every((b, i) => b === data[i])).toBe(true);
  });

  it("patching beyond the first part is refused", async () => {
    const sink = new ObjectSink(store, "refused.bin", "application/octet-stream");
    await sink.write(bytes(PART_BYTES + 10));
    expect(() => sink.patch(PART_BYTES, new Uint8Array(4))).toThrow(/cannot patch/);
    await sink.abort();
  });
});
