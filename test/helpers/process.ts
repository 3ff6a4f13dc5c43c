/** Helpers to call the Processing API and decode its outputs in tests. */
import { fromArrayBuffer } from "geotiff";
import { authed } from "./auth";

export const CRS = (epsg: number): string =>
  epsg === 4326 ? "http://www.opengis.net/def/crs/OGC/1.3/CRS84" : `http://www.opengis.net/def/crs/EPSG/0/${epsg}`;

/** POSTs a process request (JSON) with a bearer token. */
export function process(body: unknown, bearer: string, headers: Record<string, string> = {}): Promise<Response> {
  return authed(
    "/api/v1/process",
    { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) },
    bearer,
  );
}

/** Decodes a GeoTIFF response: pixel-interleaved values, size and georeferencing. */
export async function readTiff(buf: ArrayBuffer) {
  const tiff = await fromArrayBuffer(buf);
  const image = await tiff.getImage();
  const data = (await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>;
  return {
    data,
    width: image.getWidth(),
    height: image.getHeight(),
    bands: image.getSamplesPerPixel(),
    bbox: image.getBoundingBox(),
    geoKeys: image.getGeoKeys() as Record<string, number>,
    nodata: image.getGDALNoData(),
  };
}

/** A V3 evalscript returning the given bands as FLOAT32 (reflectance). */
export const bandsScript = (bands: string[], extra = ""): string =>
  `//VERSION=3
function setup() { return { input: [${bands.map((b) => `"${b}"`).join(", ")}], output: { bands: ${bands.length}, sampleType: "FLOAT32" }${extra} }; }
function evaluatePixel(s) { return [${bands.map((b) => `s.${b}`).join(", ")}]; }`;
