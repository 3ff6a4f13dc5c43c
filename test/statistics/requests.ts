/** Statistical requests used by the tests and the benchmark: real evalscripts over the real sample scenes. */
import { CRS } from "../helpers/process";
import { sampleFile } from "../helpers/seed";
import { calculations, type RefCase, type RefGrid } from "./helpers";

/** NDVI with Sentinel-2 SCL cloud masking (test/fixtures/statistics/ndvi_scl.js, also used by the benchmark). */
export async function ndviScl(): Promise<string> {
  return new TextDecoder().decode(await sampleFile("fixtures/statistics/ndvi_scl.js"));
}

/** Three-band reflectance (B04, B03, B02) with the scene's dataMask. */
export const RGB = `//VERSION=3
function setup() {
  return { input: ["B04", "B03", "B02", "dataMask"], output: [{ bands: 3, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] };
}
function evaluatePixel(s) { return { default: [s.B04, s.B03, s.B02], dataMask: [s.dataMask] }; }`;

/** A statistical request body on a reference case's grid (or `grid`) for sentinel-2-l2a. */
export function statsBody(
  c: Pick<RefCase, "timeRange" | "of" | "calc">,
  grid: RefGrid,
  evalscript: string,
  output = "ndvi",
  behavior?: string,
) {
  return {
    input: { bounds: { bbox: grid.bbox, properties: { crs: CRS(grid.epsg) } }, data: [{ type: "sentinel-2-l2a" }] },
    aggregation: {
      timeRange: c.timeRange,
      aggregationInterval: behavior ? { of: c.of, lastIntervalBehavior: behavior } : { of: c.of },
      width: grid.width,
      height: grid.height,
      evalscript,
    },
    calculations: calculations(output, c.calc),
  };
}
