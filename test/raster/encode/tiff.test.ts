import { beforeAll, describe, expect, it } from "vitest";
import type { GeoTIFFImage } from "geotiff";
import { rendered } from "../../helpers/engine";
import { encodeGeoTiff } from "../../../src/raster/encode/tiff";
import type { EncodeInput, SampleType } from "../../../src/raster/encode/types";
import { sampleFile } from "../../helpers/seed";
import { inputOf, openTiff, s2Window, toFloat32, toUint16, toUint8, type S2Window } from "./samples";

/** Every sample of the file, pixel-interleaved. */
async function pixels(image: GeoTIFFImage): Promise<ArrayLike<number>> {
  return (await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>;
}

/** Counts samples that differ (NaN equals NaN). */
function mismatches(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) n++;
  return n;
}

const tag = (image: GeoTIFFImage, name: string) => image.fileDirectory.loadValue(name as never) as Promise<unknown>;

describe("encodeGeoTiff on real 29RKH pixels", () => {
  let w: S2Window;
  beforeAll(async () => {
    w = await s2Window(["B04", "B03", "B02"], 300, 500, 200, 150);
  });

  for (const sampleType of ["INT8", "UINT8", "INT16", "UINT16", "FLOAT32"] as const) {
    for (const compression of ["DEFLATE", "NONE"] as const) {
      it(`round-trips 3-band ${sampleType} exactly (${compression})`, async () => {
        const input = inputOf(w, sampleType);
        const image = await openTiff(encodeGeoTiff(input, { epsg: w.epsg, bbox: w.bbox }, { compression }));
        expect([image.getWidth(), image.getHeight(), image.getSamplesPerPixel()]).toEqual([200, 150, 3]);
        expect(mismatches(await pixels(image), input.data)).toBe(0);
        expect(await tag(image, "Compression")).toBe(compression === "DEFLATE" ? 8 : 1);
        expect(await tag(image, "PlanarConfiguration")).toBe(1);
        if (compression === "DEFLATE") expect(await tag(image, "Predictor")).toBe(sampleType === "FLOAT32" ? 1 : 2);
        expect(Array.from((await tag(image, "SampleFormat")) as number[])).toEqual(
          Array(3).fill(sampleType === "FLOAT32" ? 3 : sampleType.startsWith("INT") ? 2 : 1),
        );
      });
    }
  }

  it("AUTO compresses integer samples up to 4 MiB and FLOAT32 samples up to 1 MiB (above: stored)", async () => {
    const at = (sampleType: "UINT16" | "FLOAT32", width: number): EncodeInput => {
      const data = sampleType === "FLOAT32" ? new Float32Array(width * 512) : new Uint16Array(width * 512);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 1000; // real-ish noise, not all zeros
      return { width, height: 512, bands: 1, sampleType, data };
    };
    const compression = async (input: EncodeInput) =>
      tag(await openTiff(encodeGeoTiff(input, { epsg: 4326, bbox: [0, 0, 1, 1] })), "Compression");
    expect(await compression(at("FLOAT32", 512))).toBe(8); // 1 MiB
    expect(await compression(at("FLOAT32", 513))).toBe(1);
    expect(await compression(at("UINT16", 4096))).toBe(8); // 4 MiB
    expect(await compression(at("UINT16", 4097))).toBe(1);
  });

  it("georeferences a UTM grid: EPSG 32629, PixelIsArea, origin and pixel size of the bbox", async () => {
    const image = await openTiff(encodeGeoTiff(toUint16(w), { epsg: w.epsg, bbox: w.bbox }));
    expect(w.epsg).toBe(32629);
    expect(image.getGeoKeys()).toEqual({ GTModelTypeGeoKey: 1, GTRasterTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32629 });
    expect(image.getBoundingBox()).toEqual(w.bbox);
    expect(image.getOrigin()).toEqual([w.bbox[0], w.bbox[3], 0]);
    expect(image.getResolution()).toEqual([100, -100, 0]);
    expect(image.getGDALNoData()).toBeNull();
  });

  it("georeferences EPSG:4326 in lon/lat order with GeographicTypeGeoKey", async () => {
    const bbox: [number, number, number, number] = [-9.5, 30.0, -9.3, 30.15];
    const image = await openTiff(encodeGeoTiff(toUint8(w), { epsg: 4326, bbox }));
    expect(image.getGeoKeys()).toEqual({ GTModelTypeGeoKey: 2, GTRasterTypeGeoKey: 1, GeographicTypeGeoKey: 4326 });
    const [minX, minY, maxX, maxY] = image.getBoundingBox();
    expect([minX, minY, maxX, maxY].map((v) => Number(v!.toFixed(9)))).toEqual(bbox);
    expect(image.getResolution()[0]).toBeCloseTo(0.001, 12);
  });

  it("writes GDAL_NODATA for 0 and NaN", async () => {
    const zero = await openTiff(encodeGeoTiff({ ...toUint16(w), nodataValue: 0 }, { epsg: w.epsg, bbox: w.bbox }));
    expect(zero.getGDALNoData()).toBe(0);
    const nan = await openTiff(encodeGeoTiff({ ...toFloat32(w), nodataValue: NaN }, { epsg: w.epsg, bbox: w.bbox }));
    expect(nan.getGDALNoData()).toBeNaN();
  });

  it("marks 3-4 band UINT8 as RGB (4th band unassociated alpha), other outputs as BlackIsZero", async () => {
    const rgba = await openTiff(encodeGeoTiff(toUint8(w, true), { epsg: w.epsg, bbox: w.bbox }));
    expect(await tag(rgba, "PhotometricInterpretation")).toBe(2);
    expect(Array.from((await tag(rgba, "ExtraSamples")) as number[])).toEqual([2]);
    const u16 = await openTiff(encodeGeoTiff(toUint16(w), { epsg: w.epsg, bbox: w.bbox }));
    expect(await tag(u16, "PhotometricInterpretation")).toBe(1);
    expect(Array.from((await tag(u16, "ExtraSamples")) as number[])).toEqual([0, 0]);
  });

  it("rejects an inverted bbox with 400", () => {
    const err = (() => {
      try {
        encodeGeoTiff(toUint8(w), { epsg: 32629, bbox: [10, 0, 0, 10] });
      } catch (e) {
        return e;
      }
    })();
    const e = rendered(err);
    expect([e.kind, e.status]).toEqual(["invalid-argument", 400]);
  });
});

describe("encodeGeoTiff against GDAL-written references (test/reference/encode_reference.py)", () => {
  interface Ref {
    file: string;
    epsg: number;
    bbox: [number, number, number, number];
  }
  let refs: Record<"utm_uint16" | "geographic_float32", Ref>;
  let window: S2Window;
  beforeAll(async () => {
    refs = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/encode/gdal_reference.json")));
    window = await s2Window(["B04"], 400, 400, 64, 64);
  });

  async function compare(ref: Ref, input: EncodeInput): Promise<void> {
    const gdal = await openTiff(await sampleFile(`fixtures/encode/${ref.file}`));
    const ours = await openTiff(encodeGeoTiff(input, { epsg: ref.epsg, bbox: ref.bbox }));
    for (const name of ["BitsPerSample", "SampleFormat", "GDAL_NODATA"]) {
      expect([name, await tag(ours, name)]).toEqual([name, await tag(gdal, name)]);
    }
    // pixel size and tie point: ours derive the pixel size from the bbox, (maxX - minX) / width, so allow 1e-12
    for (const name of ["ModelPixelScale", "ModelTiepoint"]) {
      const a = Array.from((await tag(ours, name)) as number[]),
        b = Array.from((await tag(gdal, name)) as number[]);
      expect(a.length).toBe(b.length);
      a.forEach((v, i) => expect(Math.abs(v - b[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(b[i]!))));
    }
    const keys = (image: GeoTIFFImage) => {
      const { GTModelTypeGeoKey, GTRasterTypeGeoKey, ProjectedCSTypeGeoKey, GeographicTypeGeoKey } =
        image.getGeoKeys() ?? {};
      return { GTModelTypeGeoKey, GTRasterTypeGeoKey, ProjectedCSTypeGeoKey, GeographicTypeGeoKey };
    };
    expect(keys(ours)).toEqual(keys(gdal));
    expect(mismatches(await pixels(ours), await pixels(gdal))).toBe(0);
  }

  it("matches GDAL's UInt16 EPSG:32629 file: tags, GeoKeys, nodata 0, pixels", async () => {
    expect(window.bbox).toEqual(refs.utm_uint16.bbox);
    await compare(refs.utm_uint16, { ...toUint16(window), nodataValue: 0 });
  });

  it("matches GDAL's Float32 EPSG:4326 file: tags, GeoKeys, nodata NaN, pixels", async () => {
    const input = toFloat32(window);
    const data = input.data as Float32Array;
    window.bands[0]!.forEach((dn, i) => {
      if (dn === 0) data[i] = NaN;
    });
    await compare(refs.geographic_float32, { ...input, nodataValue: NaN });
  });
});
