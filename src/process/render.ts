/**
 * Encodes an evaluation into the requested responses: one file per `output.responses[]` entry
 * (an evalscript output id, or `userdata` for updateOutputMetadata's userData; encoded by src/pipeline/output.ts),
 * packed as negotiated.
 */
import { extensionFor, multipartMixed, tarArchive } from "../raster/encode";
import type { EvalResult } from "../raster/evalscript";
import type { Grid } from "../raster/types";
import { encodeOutput, encodeOutputParts, type RenderedFile } from "../pipeline/output";
import { partsBody, type BodyProgress } from "./stream";
import type { Packing } from "./accept";
import type { ResponseRequest } from "./schema";

/**
 * Renders the HTTP body and its content type. A single file goes out as its parts (./stream.ts: a GeoTIFF's
 * strips are not joined; `progress` hears of their writing, see partsBody); several files are packed into one array.
 */
export async function renderResponses(
  result: EvalResult,
  responses: ResponseRequest[],
  packing: Packing,
  grid: Grid,
  progress?: BodyProgress,
): Promise<{ body: Uint8Array | ReadableStream<Uint8Array>; contentType: string }> {
  if (packing.kind === "single") {
    return {
      body: partsBody(await encodeOutputParts(result, responses[0]!, packing.type, grid), progress),
      contentType: packing.contentType,
    };
  }
  const files: RenderedFile[] = [];
  for (const r of responses)
    files.push({
      identifier: r.identifier,
      contentType: r.format.type,
      data: await encodeOutput(result, r, r.format.type, grid),
    });
  const named = files.map((f) => ({
    name: `${f.identifier}.${extensionFor(f.contentType)}`,
    contentType: f.contentType,
    data: f.data,
  }));
  if (packing.kind === "tar") return { body: tarArchive(named), contentType: packing.contentType };
  const mp = multipartMixed(named);
  return { body: mp.body, contentType: mp.contentType };
}
