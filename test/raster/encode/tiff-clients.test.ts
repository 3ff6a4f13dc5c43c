/**
 * GeoTIFF outputs of every band count (1-4) and sampleType decoded by the readers clients use: geotiff.js (JS),
 * and through PY_DECODE tifffile without imagecodecs (sentinelhub-py), GDAL (georeferencing) and Pillow.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { encodeGeoTiff } from "../../../src/raster/encode/tiff";
import type { EncodeInput, SampleType } from "../../../src/raster/encode/types";
import { pyDecode, samplesOf, type PyImage } from "../../helpers/pydecode";
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

/**
 * The files Pillow 9.4 has an image mode for: every 1-band type except INT8, and 3-4 band UINT8 (RGB, RGBA).
 * Exactly the same set of GDAL-written DEFLATE files opens in Pillow (checked with GDAL 3.6); the others (2 bands,
 * multi-band 16-bit, signed or float) have no Pillow mode whoever writes them.
 */
const PILLOW_MODES: Record<string, string> = {
  "1 UINT8": "L",
  "1 UINT16": "I;16",
  "1 INT16": "I",
  "1 FLOAT32": "F",
  "3 UINT8": "RGB",
  "4 UINT8": "RGBA",
};

describe("GeoTIFF of every band count and sampleType in the clients' decoders", () => {
  let w: S2Window, inputs: EncodeInput[], files: Uint8Array[];
  beforeAll(async () => {
    ({ w, inputs } = await caseInputs(CASES, 300, 500, 40, 30));
    files = inputs.map((input) => encodeGeoTiff(input, { epsg: w.epsg, bbox: w.bbox }, { compression: "DEFLATE" }));
  });

  it("geotiff.js reads every sample of all 20 files exactly", async () => {
    for (const [i, { bands, sampleType }] of CASES.entries()) {
      const image = await openTiff(files[i]!);
      expect([bands, sampleType, image.getSamplesPerPixel()]).toEqual([bands, sampleType, bands]);
      const got = Array.from((await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>);
      expect([bands, sampleType, got]).toEqual([bands, sampleType, Array.from(inputs[i]!.data)]);
    }
  });

  it("tifffile without imagecodecs and GDAL read every sample exactly; GDAL sees the geotransform and EPSG", async (ctx) => {
    const results = (await pyDecode(
      ctx,
      files.map((data) => ({ kind: "tiff", data })),
    )) as PyImage[];
    const [minX, , , maxY] = w.bbox;
    for (const [i, { bands, sampleType }] of CASES.entries()) {
      const { tifffile, gdal } = results[i]!;
      const shape = bands === 1 ? [30, 40] : [30, 40, bands];
      const want = [bands, sampleType, Array.from(inputs[i]!.data)];
      expect(tifffile).toMatchObject({
        shape,
        dtype: DTYPE[sampleType],
        compression: 8,
        predictor: sampleType === "FLOAT32" ? 1 : 2,
      });
      expect([bands, sampleType, Array.from(samplesOf(tifffile))]).toEqual(want);
      expect(gdal).toMatchObject({
        driver: "GTiff",
        shape,
        dtype: DTYPE[sampleType],
        epsg: 32629,
        geotransform: [minX, 100, 0, maxY, 0, -100],
      });
      expect([bands, sampleType, Array.from(samplesOf(gdal))]).toEqual(want);
    }
  });

  it("Pillow opens the files it has a mode for, with exact samples", async (ctx) => {
    const results = (await pyDecode(
      ctx,
      files.map((data) => ({ kind: "tiff", data })),
    )) as PyImage[];
    const opened = CASES.filter((_, i) => results[i]!.pillow.error === undefined).map(
      (c) => `${c.bands} ${c.sampleType}`,
    );
    expect(opened.sort()).toEqual(Object.keys(PILLOW_MODES).sort());
    for (const [i, { bands, sampleType }] of CASES.entries()) {
      const mode = PILLOW_MODES[`${bands} ${sampleType}`];
      if (!mode) continue;
      expect([bands, sampleType, results[i]!.pillow]).toMatchObject([
        bands,
        sampleType,
        { format: "TIFF", mode, size: [40, 30] },
      ]);
      expect([bands, sampleType, Array.from(samplesOf(results[i]!.pillow))]).toEqual([
        bands,
        sampleType,
        Array.from(inputs[i]!.data),
      ]);
    }
  });

  it("uncompressed files and EPSG:4326 read the same in tifffile and GDAL", async (ctx) => {
    const input = inputs[CASES.findIndex((c) => c.bands === 3 && c.sampleType === "FLOAT32")]!;
    const raw = encodeGeoTiff(input, { epsg: w.epsg, bbox: w.bbox }, { compression: "NONE" });
    const geo = encodeGeoTiff(input, { epsg: 4326, bbox: [-9.5, 30.0, -9.46, 30.03] });
    const [a, b] = (await pyDecode(ctx, [
      { kind: "tiff", data: raw },
      { kind: "tiff", data: geo },
    ])) as PyImage[];
    expect(a!.tifffile).toMatchObject({ compression: 1 });
    for (const r of [a!, b!]) expect(Array.from(samplesOf(r.tifffile))).toEqual(Array.from(input.data));
    expect(b!.gdal).toMatchObject({ epsg: 4326 });
    const gt = (b!.gdal as { geotransform: number[] }).geotransform;
    expect(gt.map((v) => Number(v.toFixed(9)))).toEqual([-9.5, 0.001, 0, 30.03, 0, -0.001]);
  });
});
