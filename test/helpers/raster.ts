/** Real pixels for tests, read straight from the sample COGs with geotiff.js (independent of the raster engine). */
import { fromArrayBuffer } from "geotiff";
import { sampleFile } from "./seed";

/** A window [x0, y0, x0+w, y0+h] of image `image` (0 = full resolution, 1.. = overviews) of a COG's first band, as Float32. */
export async function window(
  path: string,
  image: number,
  x0: number,
  y0: number,
  w: number,
  h: number,
): Promise<Float32Array> {
  const tiff = await fromArrayBuffer(await sampleFile(path));
  const img = await tiff.getImage(image);
  const [r] = (await img.readRasters({ window: [x0, y0, x0 + w, y0 + h] })) as unknown as ArrayLike<number>[];
  return Float32Array.from(r!);
}
