// A single-band GeoTIFF result of the request builder drawn on the map: decoded in the browser with geotiff (npm, the
// library the service's COG reader uses), its finite values stretched between their 2nd and 98th percentiles over
// the viridis ramp (matplotlib's, 5 stops; NaN and the no-data value transparent), on a canvas for the overlay.

import { fromArrayBuffer } from "geotiff";

/** Viridis at 0, 0.25, 0.5, 0.75, 1 (matplotlib's _viridis_data). */
export const VIRIDIS = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"];
const RGB = VIRIDIS.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));

/** The colour of t in 0..1 on the viridis ramp (linear between its stops) as [r, g, b]. */
function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (RGB.length - 1),
    i = Math.min(RGB.length - 2, Math.floor(x)),
    f = x - i;
  return RGB[i].map((c, k) => Math.round(c + (RGB[i + 1][k] - c) * f));
}

/** The p-quantile (0..1) of sorted numbers `s`. */
const quantile = (s, p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))];

/**
 * Decodes GeoTIFF `blob` and, when it has one band of floats, resolves to {canvas (the image drawn), min, max (the
 * stretch, in the band's units), width, height}; resolves to {reason} otherwise (several bands, integers, no
 * finite value). Throws what geotiff throws on a file it cannot read.
 */
export async function tiffImage(blob) {
  const image = await (await fromArrayBuffer(await blob.arrayBuffer())).getImage();
  const [bands, format] = [image.getSamplesPerPixel(), image.getSampleFormat()];
  if (bands !== 1 || format !== 3)
    return {
      reason: `${bands} band(s) of ${format === 3 ? "floats" : "integers"}: only single-band FLOAT32 results are drawn`,
    };
  const [values] = await image.readRasters();
  const nodata = image.getGDALNoData();
  const ok = (v) => Number.isFinite(v) && v !== nodata;
  const finite = Float64Array.from(values.filter(ok)).sort();
  if (!finite.length) return { reason: "no finite value in the result" };
  const [min, max] = [quantile(finite, 0.02), quantile(finite, 0.98)];
  const [width, height] = [image.getWidth(), image.getHeight()];
  const canvas = Object.assign(document.createElement("canvas"), { width, height });
  const ctx = canvas.getContext("2d");
  const px = ctx.createImageData(width, height);
  values.forEach((v, i) => {
    if (!ok(v)) return;
    px.data.set([...viridis(max > min ? (v - min) / (max - min) : 0.5), 255], i * 4);
  });
  ctx.putImageData(px, 0, 0);
  return { canvas, min, max, width, height };
}
