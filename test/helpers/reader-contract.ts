/**
 * The contract of the raster reader interface (src/raster/reader.ts), checked against GDAL (test/reference/ref_reader.py,
 * test/fixtures/reader): any RasterReader over one of the reference files (a COG from R2 or a user's bucket, a Zarr
 * array written from the same pixels, ...) must describe the same grid and return the same stored samples.
 * Call `readerContract` at the top level of a test file with a function that opens the reader for a file.
 */
import { describe, expect, it } from "vitest";
import type { BandBlocks, PixelWindow, RasterReader } from "../../src/raster/reader";
import type { GeoTransform } from "../../src/raster/types";
import { sampleFile } from "./seed";

/** One file's GDAL description and windows (offsets in float32 values into windows.bin). */
export interface ReaderRef {
  epsg: number;
  width: number;
  height: number;
  geoTransform: GeoTransform;
  bandCount: number;
  sampleType: string;
  nodata: number | null;
  levels: { width: number; height: number; blockWidth: number; blockHeight: number; geoTransform: GeoTransform }[];
  windows: { level: number; window: PixelWindow; bands: number[]; offset: number; note: string }[];
}

let cache: { refs: Record<string, ReaderRef>; windows: Float32Array } | undefined;

/** The references: file path under data/ -> ReaderRef, and all window samples. */
export async function readerRefs(): Promise<{ refs: Record<string, ReaderRef>; windows: Float32Array }> {
  if (!cache) {
    const all = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/reader/refs.json"))) as Record<
      string,
      unknown
    >;
    const refs = Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith("_"))) as Record<
      string,
      ReaderRef
    >;
    cache = { refs, windows: new Float32Array(await sampleFile("fixtures/reader/windows.bin")) };
  }
  return cache;
}

/** Expects two geotransforms to agree to 1e-12 relative (GDAL computes overview ones in doubles too). */
function expectGeoTransform(got: GeoTransform, want: GeoTransform): void {
  got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want[i]!))));
}

/** The grid and levels a reader reports, compared with GDAL's description of the file. */
function expectDescription(reader: RasterReader, ref: ReaderRef): void {
  expect([reader.crs.epsg, reader.width, reader.height, reader.bandCount, reader.sampleType]).toEqual([
    ref.epsg,
    ref.width,
    ref.height,
    ref.bandCount,
    ref.sampleType,
  ]);
  expect(reader.nodata).toBe(ref.nodata);
  expect(reader.geoTransform).toEqual(ref.geoTransform);
  const [x0, , , y0, , dy] = ref.geoTransform;
  expect(reader.bbox).toEqual([x0, y0 + ref.height * dy, x0 + ref.width * ref.geoTransform[1], y0]);
  expect(reader.levels.map((l) => [l.index, l.width, l.height, l.blockWidth, l.blockHeight])).toEqual(
    ref.levels.map((l, i) => [i, l.width, l.height, l.blockWidth, l.blockHeight]),
  );
  reader.levels.forEach((l, i) => {
    expectGeoTransform(l.geoTransform, ref.levels[i]!.geoTransform);
    expect(l.ratio).toBe(ref.width / l.width);
    expect(l.resolution).toEqual([Math.abs(l.geoTransform[1]), Math.abs(l.geoTransform[5])]);
  });
}

/** The samples of `win` taken from the blocks readBlocks gave for it (BandBlocks' layout), row-major. */
function fromBlocks(reader: RasterReader, level: number, win: PixelWindow, b: BandBlocks): number[] {
  const { blockWidth: bw, blockHeight: bh } = reader.levels[level]!;
  const [bx0, by0] = [Math.floor(win.x0 / bw), Math.floor(win.y0 / bh)];
  const columns = Math.floor((win.x0 + win.width - 1) / bw) - bx0 + 1;
  return Array.from({ length: win.width * win.height }, (_, i) => {
    const [x, y] = [win.x0 + (i % win.width), win.y0 + Math.floor(i / win.width)];
    const block = b.blocks[(Math.floor(y / bh) - by0) * columns + Math.floor(x / bw) - bx0];
    return block === null ? b.fill : block![(y % bh) * bw + (x % bw)]!;
  });
}

/** Asserts `read` rejects (or throws) a RangeError. */
async function expectRangeError(read: () => Promise<unknown>): Promise<void> {
  await expect((async () => read())()).rejects.toThrow(RangeError);
}

/**
 * Registers the contract tests for every reference file: `open(file)` returns the reader under test for the file
 * (path under data/), ready to read. `files`: only these reference files (default: all).
 */
export async function readerContract(
  name: string,
  open: (file: string) => Promise<RasterReader>,
  files?: string[],
): Promise<void> {
  const { refs, windows } = await readerRefs();
  describe.each(files ?? Object.keys(refs))(`${name}: %s`, (file) => {
    const ref = refs[file]!;

    it("describes the grid as GDAL does: CRS, size, geotransform, bands, sample type, nodata, levels", async () => {
      expectDescription(await open(file), ref);
    });

    it.each(ref.windows.map((w) => [w.note, w] as const))(
      "reads the same samples as GDAL ReadAsArray: %s",
      async (_, w) => {
        const reader = await open(file);
        const got = await reader.read(w.level, w.bands, w.window);
        const n = w.window.width * w.window.height;
        expect(got).toHaveLength(w.bands.length);
        got.forEach((band, i) => {
          expect(band).toBeInstanceOf(Float32Array);
          expect(Array.from(band)).toEqual(Array.from(windows.subarray(w.offset + i * n, w.offset + (i + 1) * n)));
        });
      },
    );

    it.each(ref.windows.map((w) => [w.note, w] as const))(
      "where it offers its blocks (readBlocks), they hold the same samples: %s",
      async (_, w) => {
        const reader = await open(file);
        if (!reader.readBlocks) return;
        const got = await reader.readBlocks(w.level, w.bands, w.window);
        const n = w.window.width * w.window.height;
        got.forEach((b, i) =>
          expect(Array.from(fromBlocks(reader, w.level, w.window, b))).toEqual(
            Array.from(windows.subarray(w.offset + i * n, w.offset + (i + 1) * n)),
          ),
        );
      },
    );

    it("rejects levels, windows and bands outside the source with a RangeError", async () => {
      const reader = await open(file);
      const last = reader.levels[reader.levels.length - 1]!;
      await expectRangeError(() => reader.read(reader.levels.length, [0], { x0: 0, y0: 0, width: 1, height: 1 }));
      await expectRangeError(() => reader.read(0, [0], { x0: reader.width - 1, y0: 0, width: 2, height: 1 }));
      await expectRangeError(() => reader.read(last.index, [0], { x0: 0, y0: last.height, width: 1, height: 1 }));
      await expectRangeError(() => reader.read(0, [0], { x0: 0, y0: 0, width: 0, height: 1 }));
      await expectRangeError(() => reader.read(0, [reader.bandCount], { x0: 0, y0: 0, width: 1, height: 1 }));
    });
  });
}
