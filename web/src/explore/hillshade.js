// Hillshade of a DEM grid by ESRI's formula ("How Hillshade works", ArcGIS documentation; Burrough and McDonnell,
// Principles of GIS, 1998): Horn's 3x3 slope and aspect, sun azimuth 315°, altitude 45°, z factor 1, shade 0..255.
// An evalscript sees one pixel at a time and cannot compute a slope, so the exploration view shades the DEM's
// FLOAT32 elevations here. `gdaldem hillshade` (Horn) writes 1 + 254 x the same cosine: the browser check finds the
// two at most 1 apart on a tile of Sao Tome.

const RAD = Math.PI / 180;

/**
 * The hillshade (0..255 per pixel; NaN where a neighbour has no data) of the inner (width-2) x (height-2) pixels
 * of `dem` (row-major elevations in metres, width x height, NaN for no data), whose pixels are `cell` metres on
 * the ground. Sun at `azimuth` degrees clockwise from north and `altitude` degrees above the horizon.
 */
export function hillshade(dem, width, height, cell, azimuth = 315, altitude = 45) {
  const out = new Float32Array((width - 2) * (height - 2));
  const zenith = (90 - altitude) * RAD;
  const az = (360 - azimuth + 90) * RAD; // GDAL's mathematical azimuth
  const [cosZ, sinZ] = [Math.cos(zenith), Math.sin(zenith)];
  for (let y = 1; y < height - 1; y++)
    for (let x = 1; x < width - 1; x++) {
      const z = (dx, dy) => dem[(y + dy) * width + x + dx];
      const [a, b, c, d, f, g, h, i] = [z(-1, -1), z(0, -1), z(1, -1), z(-1, 0), z(1, 0), z(-1, 1), z(0, 1), z(1, 1)];
      const dzdx = (c + 2 * f + i - (a + 2 * d + g)) / (8 * cell);
      const dzdy = (g + 2 * h + i - (a + 2 * b + c)) / (8 * cell);
      const slope = Math.atan(Math.hypot(dzdx, dzdy));
      const aspect = Math.atan2(dzdy, -dzdx);
      const v = 255 * (cosZ * Math.cos(slope) + sinZ * Math.sin(slope) * Math.cos(az - aspect));
      out[(y - 1) * (width - 2) + x - 1] = Number.isNaN(v) ? NaN : Math.max(0, Math.round(v));
    }
  return out;
}
