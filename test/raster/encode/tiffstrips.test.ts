/**
 * The strip-wise GeoTIFF writer (IFD at the end, header patched last): every band count and sampleType of real
 * 29RKH pixels, in strips that do not divide the height, read back by tifffile without imagecodecs and GDAL
 * (PY_DECODE) and by geotiff.js, with the same samples and georeferencing as the one-piece writer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GeoTiffStripWriter } from "../../../src/raster/encode/tiffstrips";
import { concatBytes } from "../../../src/raster/encode/bytes";
import type { EncodeInput, SampleType } from "../../../src/raster/encode/types";
import { pyDecode, samplesOf, type PyDecoded, type PyImage } from "../../helpers/pydecode";
import { caseInputs, encodeCases, openTiff, type S2Window } from "./samples";

const TYPES: SampleType[] = ["INT8", "UINT8", "INT16", "UINT16", "FLOAT32"];
const CASES = encodeCases(TYPES);
const DTYPE: Record<SampleType, string> = {
  INT8: "int8",
  UINT8: "uint8",
  INT16: "int16",
  UINT16: "uint16",
  FLOAT32: "float32",
};
const ROWS = 7; // 30 rows: strips of 7, 7, 7, 7, 2

/** Writes `input` strip by strip as a sink would: placeholder header, strips, trailer, then the header patched. */
function writeInStrips(input: EncodeInput, w: S2Window): Uint8Array {
  const { data, ...image } = input;
  const writer = new GeoTiffStripWriter(image, { epsg: w.epsg, bbox: w.bbox }, ROWS);
  const parts = [writer.start()];
  const rowSamples = input.width * input.bands;
  for (let row = 0; row < input.height; row += ROWS)
    parts.push(writer.strip(data.subarray(row * rowSamples, Math.min(input.height, row + ROWS) * rowSamples)));
  const { header, trailer } = writer.finish();
  parts.push(trailer);
  const file = concatBytes(parts);
  file.set(header, 0);
  return file;
}

describe("GeoTiffStripWriter", () => {
  let w: S2Window, inputs: EncodeInput[], files: Uint8Array[];
  beforeAll(async () => {
    ({ w, inputs } = await caseInputs(CASES, 300, 500, 40, 30));
    files = inputs.map((input) => writeInStrips(input, w));
  });

  it("the IFD follows the strips (header offset past byte 8, on a word boundary)", () => {
    for (const f of files) {
      const ifd = new DataView(f.buffer).getUint32(4, true);
      expect(ifd).toBeGreaterThan(8);
      expect(ifd % 2).toBe(0);
      expect(ifd).toBeLessThan(f.length);
    }
  });

  it("tifffile without imagecodecs and GDAL read every sample exactly, with the geotransform and EPSG", async (ctx) => {
    const results = (await pyDecode(
      ctx,
      files.map((data) => ({ kind: "tiff", data })),
    )) as PyImage[];
    const [minX, , , maxY] = w.bbox;
    const same = (decoded: PyDecoded | undefined, i: number) =>
      Array.from(samplesOf(decoded)).every((v, k) => v === inputs[i]!.data[k]) &&
      samplesOf(decoded).length === inputs[i]!.data.length;
    const seen = CASES.map((c, i) => {
      const { tifffile, gdal } = results[i]!;
      return {
        ...c,
        tifffile: [(tifffile as { dtype?: string }).dtype, same(tifffile, i)],
        gdal: [(gdal as { epsg?: number }).epsg, (gdal as { geotransform?: number[] }).geotransform, same(gdal, i)],
      };
    });
    expect(seen).toEqual(
      CASES.map((c) => ({
        ...c,
        tifffile: [DTYPE[c.sampleType], true],
        gdal: [32629, [minX, 100, 0, maxY, 0, -100], true],
      })),
    );
  });

  it("geotiff.js reads the samples and RowsPerStrip", async () => {
    for (const [i, { bands, sampleType }] of CASES.entries()) {
      const image = await openTiff(files[i]!);
      expect(image.fileDirectory.getValue("RowsPerStrip")).toBe(ROWS);
      const got = Array.from((await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>);
      expect([bands, sampleType, got]).toEqual([bands, sampleType, Array.from(inputs[i]!.data)]);
    }
  });

  it("refuses a strip of the wrong length, extra strips and an early finish", () => {
    const { data, ...image } = inputs[0]!;
    const writer = new GeoTiffStripWriter(image, { epsg: w.epsg, bbox: w.bbox }, ROWS);
    expect(() => writer.strip(data.subarray(0, 5))).toThrow(/expected/);
    writer.strip(data.subarray(0, ROWS * image.width * image.bands));
    expect(() => writer.finish()).toThrow(/rows were written/);
  });
});
