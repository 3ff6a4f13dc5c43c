/**
 * The files of one batch tile: each response of the process request encoded as Processing encodes it
 * (src/pipeline/output.ts: GeoTIFF, or JSON for `userdata`), or as a Cloud Optimized GeoTIFF when the task asks
 * for `cogOutput` (src/raster/encode/cog.ts, with its cogParameters).
 */
import { encodeOutput, outputRaster } from "../pipeline/output";
import { encodeCog } from "../raster/encode/cog";
import type { EvalResult } from "../raster/evalscript";
import type { Grid } from "../raster/types";
import type { BatchResponse, RasterOutput } from "./schema";

/** The default responses of a batch process request without `output.responses`. */
export const DEFAULT_BATCH_RESPONSES: BatchResponse[] = [{ identifier: "default", format: { type: "image/tiff" } }];

/** One encoded tile output: bytes and media type. */
export interface TileFile {
  data: Uint8Array;
  contentType: string;
}

/**
 * Encodes response `r` of a tile evaluated on `grid`.
 * @throws EngineError invalid-argument when the response names no output or has a format that does not fit it.
 */
export async function encodeTileOutput(
  result: EvalResult,
  r: BatchResponse,
  grid: Grid,
  output: RasterOutput,
): Promise<TileFile> {
  const type = r.format.type;
  if (output.cogOutput && r.identifier !== "userdata") {
    const georef = { epsg: grid.crs.epsg, bbox: grid.bbox, geographic: grid.crs.geographic };
    return {
      data: encodeCog(outputRaster(result, r.identifier, grid), georef, output.cogParameters),
      contentType: type,
    };
  }
  return { data: await encodeOutput(result, r, type, grid), contentType: type };
}
