/**
 * Encodes one evalscript output (or the `userdata` of updateOutputMetadata) in a file format: the step every area
 * that delivers rasters shares (Processing's responses, async and batch deliveries to a bucket).
 */
import { z } from "zod";
import { encodeJpeg, encodeJson, encodePngParts, geoTiffParts, type EncodeInput } from "../raster/encode";
import { concatBytes } from "../raster/encode/bytes";
import { invalidArgument } from "../raster/errors";
import { storedSampleType, toSampleType, type EvalResult } from "../raster/evalscript";
import type { Grid } from "../raster/types";

/**
 * zod schema of one requested response (OpenAPI `ProcessRequestOutputResponse`): an evalscript output id (or
 * `userdata`, default `default`) and its format (default image/png; JPEG `quality` 0..100).
 */
export const outputResponseSchema = z.object({
  identifier: z.string().min(1).default("default"),
  format: z
    .object({ type: z.string().default("image/png"), quality: z.number().int().min(0).max(100).optional() })
    .passthrough()
    .default({ type: "image/png" }),
});

/**
 * The `output` members every raster request shares (Processing, Async): width/height in px validated by `size`
 * (each API's own limit), or resx/resy in CRS units, and the responses. Spread into an API's output object.
 */
export const outputGridShape = <S extends z.ZodType>(size: S) => ({
  width: size.optional(),
  height: size.optional(),
  resx: z.number().positive("resx must be > 0").optional(),
  resy: z.number().positive("resy must be > 0").optional(),
  responses: z.array(outputResponseSchema).min(1).optional(),
});

/** True unless both a pixel size (width/height) and a resolution (resx/resy) are set: the refine of an output object. */
export const oneOutputSize = (o: { width?: unknown; height?: unknown; resx?: unknown; resy?: unknown }): boolean =>
  !((o.width !== undefined || o.height !== undefined) && (o.resx !== undefined || o.resy !== undefined));

/** The message of a failed {@link oneOutputSize}. */
export const ONE_OUTPUT_SIZE = { message: "set either width/height or resx/resy, not both" };

/** One requested response: an evalscript output id (or `userdata`) and its format (Processing `output.responses[]`). */
export interface OutputRequest {
  identifier: string;
  format: { type: string; quality?: number };
}

/** An encoded response file. */
export interface RenderedFile {
  identifier: string;
  contentType: string;
  data: Uint8Array;
}

/**
 * Output `identifier` of `result` as the raster the encoders take (samples in its stored sampleType, nodataValue).
 * @throws EngineError invalid-argument when the identifier matches no output.
 */
export function outputRaster(
  result: EvalResult,
  identifier: string,
  grid: Pick<Grid, "width" | "height">,
): EncodeInput {
  const out = result.outputs[identifier];
  if (!out)
    throw invalidArgument(
      `Response identifier '${identifier}' matches no evalscript output (outputs: ${Object.keys(result.outputs).join(", ") || "none"}; or use 'userdata').`,
    );
  const data = out.stored ?? toSampleType(out.values, out.sampleType);
  return {
    width: grid.width,
    height: grid.height,
    bands: out.bands,
    sampleType: storedSampleType(out.sampleType),
    data,
    nodataValue: out.nodataValue,
  };
}

/**
 * Encodes output `r.identifier` of `result` (a `grid.width` x `grid.height` raster in `grid.crs`) as MIME `type`
 * (image/png, image/jpeg with `r.format.quality`, image/tiff; application/json only for `userdata`).
 * @returns the file as its parts in order: a GeoTIFF's header and strips (uncompressed strips are views of the
 *   evaluation's samples, no copy), a PNG's chunks (src/raster/encode/png.ts), one array for the other formats.
 * @throws EngineError invalid-argument when the identifier matches no output or the type does not fit it.
 */
export async function encodeOutputParts(
  result: EvalResult,
  r: OutputRequest,
  type: string,
  grid: Grid,
): Promise<Uint8Array[]> {
  if (r.identifier === "userdata") {
    if (type !== "application/json")
      throw invalidArgument("The 'userdata' response must have format type application/json.");
    return [encodeJson(result.userData ?? {})];
  }
  if (!result.outputs[r.identifier]) outputRaster(result, r.identifier, grid); // throws: no such output
  if (type === "application/json")
    throw invalidArgument(`application/json is only available for the 'userdata' response, not '${r.identifier}'.`);
  const input = outputRaster(result, r.identifier, grid);
  if (type === "image/png") return encodePngParts(input);
  if (type === "image/jpeg") return [await encodeJpeg(input, r.format.quality)];
  return geoTiffParts(input, { epsg: grid.crs.epsg, bbox: grid.bbox, geographic: grid.crs.geographic });
}

/**
 * encodeOutputParts joined into one array (the file bytes).
 * @throws as encodeOutputParts.
 */
export async function encodeOutput(
  result: EvalResult,
  r: OutputRequest,
  type: string,
  grid: Grid,
): Promise<Uint8Array> {
  const parts = await encodeOutputParts(result, r, type, grid);
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}
