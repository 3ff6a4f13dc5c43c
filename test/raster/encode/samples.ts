/**
 * Real pixels for the encode tests: windows of the 29RKH Sentinel-2 L2A scene (B04, B03, B02), read with
 * geotiff.js from the sample files, turned into encoder inputs the way evalscripts produce them.
 */
import { fromArrayBuffer, type GeoTIFFImage } from "geotiff";
import { sampleFile } from "../../helpers/seed";
import type { EncodeInput, SampleType } from "../../../src/raster/encode/types";

const SCENE = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";

/** A window of DNs per band plus its grid (EPSG:32629, bbox in metres). */
export interface S2Window {
  width: number;
  height: number;
  bands: Uint16Array[];
  epsg: number;
  bbox: [number, number, number, number];
}

/** Opens a GeoTIFF from bytes. */
export async function openTiff(bytes: ArrayBuffer | Uint8Array): Promise<GeoTIFFImage> {
  const buf = bytes instanceof Uint8Array ? bytes.slice().buffer : bytes;
  return (await fromArrayBuffer(buf)).getImage();
}

/** Reads `[col, row, width, height]` of the given bands (e.g. ["B04", "B03", "B02"]) of 29RKH. */
export async function s2Window(
  names: string[],
  col: number,
  row: number,
  width: number,
  height: number,
): Promise<S2Window> {
  const bands: Uint16Array[] = [];
  let image: GeoTIFFImage | undefined;
  for (const name of names) {
    image = await openTiff(await sampleFile(`${SCENE}/${name}.tif`));
    const [data] = await image.readRasters({ window: [col, row, col + width, row + height] });
    bands.push(data as Uint16Array);
  }
  const [ox, oy] = image!.getOrigin();
  const [rx, ry] = image!.getResolution();
  const epsg = Number(image!.getGeoKeys()?.ProjectedCSTypeGeoKey);
  const minX = ox! + col * rx!,
    maxY = oy! + row * ry!;
  return { width, height, bands, epsg, bbox: [minX, maxY + height * ry!, minX + width * rx!, maxY] };
}

/** Interleaves per-band arrays into pixel-interleaved samples of the given typed array. */
function interleave<T extends EncodeInput["data"]>(
  w: S2Window,
  make: (n: number) => T,
  value: (dn: number, band: number) => number,
): T {
  const n = w.width * w.height,
    nb = w.bands.length;
  const out = make(n * nb);
  for (let p = 0; p < n; p++) for (let b = 0; b < nb; b++) out[p * nb + b] = value(w.bands[b]![p]!, b);
  return out;
}

/** True-colour UINT8 as an evalscript with AUTO would return it: 2.5 * reflectance, stretched 0..1 -> 0..255. */
export function toUint8(w: S2Window, alpha = false): EncodeInput {
  const rgb = interleave(
    w,
    (n) => new Uint8Array(n),
    (dn) => Math.min(255, Math.round((2.5 * dn * 255) / 10000)),
  );
  if (!alpha) return { width: w.width, height: w.height, bands: w.bands.length, sampleType: "UINT8", data: rgb };
  // 4th band: dataMask (255 where the first band has data)
  const nb = w.bands.length,
    out = new Uint8Array(w.width * w.height * (nb + 1));
  for (let p = 0; p < w.width * w.height; p++) {
    out.set(rgb.subarray(p * nb, p * nb + nb), p * (nb + 1));
    out[p * (nb + 1) + nb] = w.bands[0]![p] ? 255 : 0;
  }
  return { width: w.width, height: w.height, bands: nb + 1, sampleType: "UINT8", data: out };
}

/** The DNs as UINT16. */
export function toUint16(w: S2Window): EncodeInput {
  return {
    width: w.width,
    height: w.height,
    bands: w.bands.length,
    sampleType: "UINT16",
    data: interleave(
      w,
      (n) => new Uint16Array(n),
      (dn) => dn,
    ),
  };
}

/** Reflectance DN / 10000 as FLOAT32. */
export function toFloat32(w: S2Window): EncodeInput {
  return {
    width: w.width,
    height: w.height,
    bands: w.bands.length,
    sampleType: "FLOAT32",
    data: interleave(
      w,
      (n) => new Float32Array(n),
      (dn) => dn / 10000,
    ),
  };
}

/** Signed values: INT16 = DN - 1000 (negative in dark pixels), INT8 = clamp((DN - 1000) / 40). */
export function toSigned(w: S2Window, sampleType: "INT8" | "INT16"): EncodeInput {
  const data =
    sampleType === "INT16"
      ? interleave(
          w,
          (n) => new Int16Array(n),
          (dn) => dn - 1000,
        )
      : interleave(
          w,
          (n) => new Int8Array(n),
          (dn) => Math.max(-128, Math.min(127, Math.round((dn - 1000) / 40))),
        );
  return { width: w.width, height: w.height, bands: w.bands.length, sampleType, data };
}

/** The first `bands` bands of a window (to build 1- to 4-band inputs from one 4-band read). */
export function firstBands(w: S2Window, bands: number): S2Window {
  return { ...w, bands: w.bands.slice(0, bands) };
}

/** One band count x sample type of an encoder test matrix. */
export interface EncodeCase {
  bands: number;
  sampleType: SampleType;
}

/** Every band count 1-4 with every sample type of `types`, band count major. */
export function encodeCases(types: readonly SampleType[]): EncodeCase[] {
  return [1, 2, 3, 4].flatMap((bands) => types.map((sampleType) => ({ bands, sampleType })));
}

/** The inputs of `cases` from a 4-band window of B04, B03, B02, B08 at `[col, row, width, height]` of 29RKH. */
export async function caseInputs(
  cases: readonly EncodeCase[],
  col: number,
  row: number,
  width: number,
  height: number,
): Promise<{ w: S2Window; inputs: EncodeInput[] }> {
  const w = await s2Window(["B04", "B03", "B02", "B08"], col, row, width, height);
  return { w, inputs: cases.map((c) => inputOf(firstBands(w, c.bands), c.sampleType)) };
}

/** The encoder input of a sample type made from a window (see toUint8, toUint16, toFloat32, toSigned). */
export function inputOf(w: S2Window, sampleType: SampleType): EncodeInput {
  if (sampleType === "UINT8") return toUint8(w);
  if (sampleType === "UINT16") return toUint16(w);
  if (sampleType === "FLOAT32") return toFloat32(w);
  return toSigned(w, sampleType);
}
