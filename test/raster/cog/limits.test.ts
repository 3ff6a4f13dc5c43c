/**
 * Hostile GeoTIFFs against the COG reader's file limits (src/raster/cog/limits.ts, ifds.ts) and its bounded
 * decoders: real GDAL-written COGs of data/ patched byte-wise (test/helpers/tiff.ts) into an IFD chain that loops,
 * TileWidth 0, blocks past the end of the file, oversized tags / blocks / block counts, corrupt, truncated and
 * "bomb" DEFLATE blocks. Each must fail fast with an EngineError invalid-file naming the problem (before the
 * fix: an endless loop, an allocation of gigabytes, all-zero pixels or an internal error), and a bomb must be
 * refused without being inflated whole.
 */
import { describe, expect, it } from "vitest";
import { clearCogCaches, openCog } from "../../../src/raster/cog";
import { decodeBlock } from "../../../src/raster/cog/decode";
import { parseHeader } from "../../../src/raster/cog/header";
import { decodeCore } from "../../../src/raster/codec";
import { inflateAtMost, lzwDecode, unpackBits } from "../../../src/raster/codec/bounded";
import { EngineError } from "../../../src/raster/errors";
import type { ByteSource } from "../../../src/raster/types";
import { sampleFile } from "../../helpers/seed";
import { deflateBomb, TAG, TiffPatch } from "../../helpers/tiff";

const WF = "sentinel-2-l2a/westflanders/2017-08-24/B04.tif"; // 64 x 64 px in one 512 x 512 DEFLATE tile, one IFD
const PYRAMID = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif"; // 1098 x 1098 px, two overviews: three IFDs

let sources = 0;
function memorySource(buf: ArrayBuffer): ByteSource {
  return {
    id: `mem-${++sources}#1`,
    size: buf.byteLength,
    read: async (ranges) => ranges.map((r) => buf.slice(r.offset, r.offset + r.length)),
  };
}

const patched = async (file: string) => new TiffPatch(await sampleFile(file));

/** Expects `p` to reject with an invalid-file EngineError whose message matches `message`; returns it. */
async function invalidFile(p: Promise<unknown>, message: RegExp): Promise<EngineError> {
  const e = await p.then(
    () => expect.fail("expected an invalid-file error"),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(EngineError);
  expect((e as EngineError).kind).toBe("invalid-file");
  expect((e as EngineError).message).toMatch(message);
  return e as EngineError;
}

describe("the IFD chain", () => {
  it("a first IFD whose next-IFD offset points at itself fails at once (geotiff.js alone loops forever)", async () => {
    const t = await patched(WF);
    const e = await invalidFile(
      parseHeader(memorySource(t.setNext(0, t.ifd(0)).buffer)),
      /IFD chain loops: IFD 1 \(at byte \d+\) was already read/,
    );
    expect(e.message).toMatch(/^GeoTIFF mem-\d+: /);
  });

  it("a longer loop (the last overview pointing back at the first image) and a chain leaving the file", async () => {
    const t = await patched(PYRAMID);
    await invalidFile(parseHeader(memorySource(t.setNext(2, t.ifd(0)).buffer)), /IFD chain loops: IFD 3/);
    const u = await patched(PYRAMID);
    await invalidFile(
      parseHeader(memorySource(u.setNext(1, u.bytes.length + 100).buffer)),
      /IFD 2 \(at byte \d+\) lies outside the file/,
    );
  });

  it("more IFDs than TIFF_LIMITS.ifds (a chain of 100 copies of one IFD)", async () => {
    const t = await patched(WF);
    const ifd = t.bytes.slice(t.ifd(0), t.nextAt(t.ifd(0)) + 4); // its next-IFD offset is 0
    for (let i = 0; i < 100; i++) t.setNext(i, t.append(ifd));
    const e = await invalidFile(
      parseHeader(memorySource(t.buffer)),
      /number of IFDs in the chain \(65\) exceeds the GeoTIFF limit ifds = 64/,
    );
    expect(e.limit).toEqual({ name: "tiff.ifds", max: 64 });
  });

  it("a tag declaring 2^30 values (allocated as given by geotiff.js), 10 MiB of tag values, bytes that are no TIFF", async () => {
    const t = await patched(WF);
    const entry = t.ifd(0) + 2 + 12 * 10; // TileOffsets, the 11th entry
    new DataView(t.bytes.buffer).setUint32(entry + 4, 2 ** 30, true);
    await invalidFile(
      parseHeader(memorySource(t.buffer)),
      /values of tag 324 \(4294967296\) exceeds the GeoTIFF limit tagBytes/,
    );
    const u = await patched(WF);
    const metadata = u.ifd(0) + 2 + 12 * 17; // GDAL_METADATA (ASCII), the 18th entry: 2 MiB of text, in 5 IFDs
    new DataView(u.bytes.buffer).setUint32(metadata + 4, 2 * 1024 * 1024, true);
    new DataView(u.bytes.buffer).setUint32(metadata + 8, u.append(new Uint8Array(2 * 1024 * 1024)), true);
    const ifd = u.bytes.slice(u.ifd(0), u.nextAt(u.ifd(0)) + 4);
    for (let i = 0; i < 4; i++) u.setNext(i, u.append(ifd));
    await invalidFile(
      parseHeader(memorySource(u.buffer)),
      /IFDs \(\d+\) exceeds the GeoTIFF limit headerBytes = 8388608/,
    );
    await invalidFile(
      parseHeader(memorySource(new TextEncoder().encode("PK\x03\x04 not a tiff at all").slice().buffer as ArrayBuffer)),
      /not a TIFF/,
    );
  });
});

describe("an image's layout", () => {
  it("TileWidth 0 (read as an empty window of zeros before)", async () => {
    const t = await patched(WF);
    await invalidFile(
      parseHeader(memorySource(t.set(0, TAG.TileWidth, 0).buffer)),
      /full-resolution image: TileWidth is 0; it must be a positive integer/,
    );
  });

  it("tiles too large to decode, too many tiles", async () => {
    const big = await patched(WF);
    big.set(0, TAG.TileWidth, 8192).set(0, 323, 8192); // 8192 x 8192 x 2 bytes = 128 MiB per tile
    await invalidFile(
      parseHeader(memorySource(big.buffer)),
      /decoded size of one block \(134217728\) exceeds the GeoTIFF limit blockBytes = 16777216/,
    );
    const many = await patched(WF);
    many.set(0, TAG.TileWidth, 16).set(0, 323, 16).set(0, 256, 60000).set(0, 257, 60000); // 3750² tiles
    await invalidFile(
      parseHeader(memorySource(many.buffer)),
      /number of blocks \(14062500\) exceeds the GeoTIFF limit blocks = 262144/,
    );
  });

  it("a tile past the end of the file, and one storing more than its decoded size allows", async () => {
    const t = await patched(WF);
    await invalidFile(
      parseHeader(memorySource(t.set(0, TAG.TileOffsets, t.bytes.length - 10).buffer)),
      /block 0 \(bytes \d+\.\.\d+\) lies past the end of the file \(14332 bytes\)/,
    );
    const u = await patched(WF);
    u.replaceBlock(0, new Uint8Array(2 * 512 * 512 * 2 + 4097));
    await invalidFile(
      parseHeader(memorySource(u.buffer)),
      /block 0 stores 1052673 bytes, more than a block of 524288 bytes can/,
    );
  });
});

describe("blocks that do not decode", () => {
  const window = { x0: 0, y0: 0, width: 64, height: 64 };

  it("corrupt and truncated DEFLATE tiles: invalid-file naming the block", async () => {
    clearCogCaches();
    const corrupt = await patched(WF);
    corrupt.block(0).fill(0xa5, 2);
    await invalidFile(
      openCog(memorySource(corrupt.buffer)).then((c) => c.read(0, [0], window)),
      /block 0 cannot be decoded \(GeoTIFF block: corrupt or truncated DEFLATE/,
    );
    const cut = await patched(WF);
    cut.set(0, TAG.TileByteCounts, cut.values(0, TAG.TileByteCounts)[0]! >> 1);
    await invalidFile(
      openCog(memorySource(cut.buffer)).then((c) => c.read(0, [0], window)),
      /block 0 cannot be decoded/,
    );
  });

  it("a DEFLATE bomb (64 MiB of zeros in a 512 KiB tile) is refused by both paths without being inflated whole", async () => {
    const bomb = deflateBomb(260_000); // 67 080 001 bytes from 422 KB
    const t = await patched(WF).then((p) => p.replaceBlock(0, bomb));
    const header = await parseHeader(memorySource(t.buffer));
    const level = header.levels[0]!;
    const core = decodeCore();
    if (core) {
      await expect(decodeBlock(header, level, bomb.slice().buffer, 512 * 512, "wasm")).rejects.toThrow(
        /DEFLATE data decodes to more than 1048576 bytes \(the block holds 524288\)/,
      );
      expect(core.memoryBytes()).toBeLessThan(8 * 1024 * 1024); // output buffers stopped at 1 MiB
    }
    await expect(decodeBlock(header, level, bomb.slice().buffer, 512 * 512, "js")).rejects.toThrow(
      /deflate data decompresses to more than 1048576 bytes/,
    );
    await invalidFile(
      openCog(memorySource(t.buffer)).then((c) => c.read(0, [0], window)),
      /block 0 cannot be decoded \(.*decode.* to more than 1048576 bytes/,
    );
  });

  it("the bounded JavaScript decompressors stop at their bound", async () => {
    const bomb = deflateBomb(1000); // 258 001 bytes
    expect((await inflateAtMost(bomb, "deflate", 258_001)).length).toBe(258_001);
    await expect(inflateAtMost(bomb, "deflate", 258_000)).rejects.toThrow(/more than 258000 bytes/);
    const runs = new Uint8Array(2000).map((_, i) => (i % 2 === 0 ? 0x81 : 7)); // 1000 runs of 128 sevens
    expect(unpackBits(runs, 1000)).toEqual(new Uint8Array(1000).fill(7));
    expect(unpackBits(Uint8Array.of(2, 1, 2, 3, 0xfe, 9, 0x80), 100)).toEqual(Uint8Array.of(1, 2, 3, 9, 9, 9));
    // LZW: ClearCode, "a", then each code the entry being made (KwKwK): "aa", "aaa", ..., 253 a's; EoiCode. All
    // 9-bit codes (the width grows after entry 510), packed most significant bit first.
    const codes = [256, 97, ...Array.from({ length: 252 }, (_, i) => 258 + i), 257];
    const lzw = new Uint8Array(Math.ceil((codes.length * 9) / 8));
    codes.forEach((c, k) => {
      for (let b = 0; b < 9; b++) if ((c >> (8 - b)) & 1) lzw[(k * 9 + b) >> 3]! |= 0x80 >> ((k * 9 + b) & 7);
    });
    const whole = lzwDecode(lzw, 1 << 20);
    expect(whole.length).toBe((253 * 254) / 2); // strings of 1, 2, ..., 253 bytes
    expect(whole.every((v) => v === 97)).toBe(true);
    expect(lzwDecode(lzw, 5000)).toEqual(new Uint8Array(5000).fill(97));
  });
});
