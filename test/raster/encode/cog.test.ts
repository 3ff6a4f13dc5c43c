/**
 * The COG writer (src/raster/encode/cog.ts) checked by GDAL's own COG validator and decoders (through PY_DECODE):
 * tile layout, overview sizes (gdaladdo's levels and minsize rules), pixels of every sample type, nodata padding;
 * and the overview kernels against hand-computed values.
 */
import { describe, expect, it } from "vitest";
import { encodeCog } from "../../../src/raster/encode/cog";
import { overview, overviewFactors } from "../../../src/raster/encode/cogoverviews";
import type { EncodeInput, SampleArray, SampleType } from "../../../src/raster/encode/types";
import { validateCogs } from "../../helpers/batch";
import { samplesOf } from "../../helpers/pydecode";

const ARRAYS: Record<SampleType, new (n: number) => SampleArray> = {
  INT8: Int8Array,
  UINT8: Uint8Array,
  INT16: Int16Array,
  UINT16: Uint16Array,
  FLOAT32: Float32Array,
};

/** A width x height x bands raster of sampleType with varied values (a ramp mixed with a prime stride). */
function raster(
  width: number,
  height: number,
  bands: number,
  sampleType: SampleType,
  nodataValue?: number,
): EncodeInput {
  const data = new ARRAYS[sampleType](width * height * bands);
  for (let i = 0; i < data.length; i++)
    data[i] =
      sampleType === "FLOAT32" ? Math.sin(i) * 1000 : ((i * 7919) % 251) - (sampleType.startsWith("INT") ? 100 : 0);
  return { width, height, bands, sampleType, data, nodataValue };
}

describe("encodeCog in GDAL", () => {
  it("every sample type: valid COG, tiles and overviews as asked, pixels as written", async (ctx) => {
    const types: SampleType[] = ["UINT8", "INT8", "INT16", "UINT16", "FLOAT32"];
    const inputs = types.map((t, i) => raster(300 + i, 200, 1 + (i % 3), t, t === "FLOAT32" ? undefined : 0));
    const files = inputs.map((input) =>
      encodeCog(
        input,
        { epsg: 32629, bbox: [200000, 2700000, 200000 + input.width * 10, 2702000] },
        { blockxsize: 128, blockysize: 64 },
      ),
    );
    const decoded = await validateCogs(ctx, files);
    decoded.forEach((d, i) => {
      const input = inputs[i]!;
      // gdaladdo levels with minsize = min(blockxsize, blockysize) = 64: 2, 4, 8 (the level-8 image fits 64 x 64)
      const sizes = [2, 4, 8].map((f) => [Math.ceil(input.width / f), Math.ceil(input.height / f)]);
      expect(d.cog).toEqual({ warnings: [], errors: [], overviews: sizes, block: [128, 64] });
      expect(Array.from(samplesOf(d.gdal))).toEqual(Array.from(input.data));
      expect(Array.from(samplesOf(d.tifffile))).toEqual(Array.from(input.data));
      expect(d.gdal).toMatchObject({ epsg: 32629, geotransform: [200000, 10, 0, 2702000, 0, -10] });
    });
  });

  it("explicit levels, predictor off, an image smaller than one block", async (ctx) => {
    const big = raster(520, 530, 1, "UINT16", 0);
    const small = raster(40, 30, 3, "UINT8");
    const files = [
      encodeCog(big, { epsg: 4326, bbox: [0, 0, 1, 1] }, { overviewLevels: [4, 2], usePredictor: false }),
      encodeCog(small, { epsg: 4326, bbox: [0, 0, 1, 1] }),
    ];
    const [a, b] = await validateCogs(ctx, files);
    expect(a!.cog).toEqual({
      warnings: [],
      errors: [],
      overviews: [
        [260, 265],
        [130, 133],
      ],
      block: [256, 256],
    });
    expect(a!.tifffile).toMatchObject({ predictor: 1, compression: 8 });
    expect(b!.cog).toEqual({ warnings: [], errors: [], overviews: [], block: [256, 256] });
    expect(Array.from(samplesOf(b!.gdal))).toEqual(Array.from(small.data));
  });
});

describe("overview kernels", () => {
  // 5 x 3, 1 band, nodata 0: overview at factor 2 is 3 x 2
  const input: EncodeInput = {
    width: 5,
    height: 3,
    bands: 1,
    sampleType: "UINT16",
    nodataValue: 0,
    data: Uint16Array.from([1, 2, 3, 0, 5, 4, 4, 0, 0, 7, 9, 9, 9, 1, 0]),
  };
  it("average ignores nodata and rounds; nearest takes the pixel right/below the centre; mode the most frequent", () => {
    expect(Array.from(overview(input, 2, "average").data)).toEqual([3, 3, 6, 9, 5, 0]); // (1+2+4+4)/4=2.75, 3/1, (5+7)/2; (9+9)/2, (9+1)/2, none
    expect(Array.from(overview(input, 2, "nearest").data)).toEqual([4, 0, 7, 9, 1, 0]);
    expect(Array.from(overview(input, 2, "mode").data)).toEqual([4, 3, 5, 9, 1, 0]);
    expect(() => overview(input, 2, "lanczos")).toThrow(/nearest, average, mode/);
  });

  it("levels: gdaladdo's automatic levels down to minsize; explicit levels sorted and checked", () => {
    expect(overviewFactors(1000, 300, undefined, 256)).toEqual([2, 4]);
    expect(overviewFactors(256, 256, undefined, 256)).toEqual([]);
    expect(overviewFactors(257, 10, undefined, 256)).toEqual([2]);
    expect(overviewFactors(100, 100, [8, 2, 2], 256)).toEqual([2, 8]);
    expect(() => overviewFactors(100, 100, [1], 256)).toThrow(/at least 2/);
  });
});
