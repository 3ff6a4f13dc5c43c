import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { coalesce, r2Source } from "../../../src/storage/r2source";
import { BELGIUM, sourceFor } from "../warp/refs";
import { sampleFile } from "../../helpers/seed";

describe("r2Source", () => {
  it("returns null for a missing object", async () => {
    expect(await r2Source(env.DATA, "no/such/file.tif")).toBeNull();
  });

  it("opens with one range get of the first 16 KiB and answers reads inside it from memory", async () => {
    const bytes = new Uint8Array(await sampleFile(BELGIUM));
    await sourceFor(BELGIUM);
    const s = (await r2Source(env.DATA, BELGIUM))!;
    expect(s.id).toBe(`${BELGIUM}#${s.etag}`);
    expect([s.size, s.stats.heads, s.stats.gets, s.stats.bytes]).toEqual([bytes.length, 0, 1, 16384]);
    const [a] = await s.read([{ offset: 100, length: 1000 }]);
    expect(new Uint8Array(a!)).toEqual(bytes.slice(100, 1100));
    expect(s.stats.gets).toBe(1);
  });

  it("coalesces ranges closer than 16 KiB into one request and returns one buffer per range, in order", async () => {
    const bytes = new Uint8Array(await sampleFile(BELGIUM));
    await sourceFor(BELGIUM);
    const s = (await r2Source(env.DATA, BELGIUM, { prefix: 0 }))!;
    expect(s.stats).toEqual({ heads: 1, gets: 0, bytes: 0 });
    const ranges = [
      { offset: 14260, length: 100 },
      { offset: 610, length: 50 },
      { offset: 7440, length: 10 },
    ];
    const out = await s.read(ranges);
    expect(s.stats.gets).toBe(1);
    ranges.forEach((r, i) => expect(new Uint8Array(out[i]!)).toEqual(bytes.slice(r.offset, r.offset + r.length)));
  });

  it("issues separate requests for ranges further apart, and clamps ranges at the end of the object", async () => {
    await sourceFor(BELGIUM);
    const s = (await r2Source(env.DATA, BELGIUM, { prefix: 0 }))!;
    const out = await s.read([
      { offset: 0, length: 8 },
      { offset: s.size - 4, length: 100 },
    ]);
    expect(out[1]!.byteLength).toBe(4);
    expect(s.stats.gets).toBe(2);
    expect(
      coalesce([
        { offset: 0, length: 10 },
        { offset: 10 + 16 * 1024, length: 1 },
        { offset: 5, length: 0 },
      ]).length,
    ).toBe(2);
  });

  it("opens objects smaller than the prefix", async () => {
    await env.DATA.put("tmp/small.bin", new Uint8Array([1, 2, 3]));
    const s = (await r2Source(env.DATA, "tmp/small.bin"))!;
    expect(s.size).toBe(3);
    expect(new Uint8Array((await s.read([{ offset: 1, length: 10 }]))[0]!)).toEqual(new Uint8Array([2, 3]));
  });

  it("fails instead of mixing versions when the object changes after it was opened", async () => {
    await env.DATA.put("tmp/changing.bin", new Uint8Array(100));
    const s = (await r2Source(env.DATA, "tmp/changing.bin", { prefix: 0 }))!;
    await env.DATA.put("tmp/changing.bin", new Uint8Array(100).fill(1));
    await expect(s.read([{ offset: 0, length: 10 }])).rejects.toThrow(/changed/);
  });
});
