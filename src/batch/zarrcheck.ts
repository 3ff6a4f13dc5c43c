/**
 * Creation checks of a batch request with ZarrOutput (Sentinel Hub's rules, OpenAPI `BatchV2ZarrOutput`): a
 * tiling-grid input on a WGS84 or LAEA grid (one CRS for the whole store) without buffers, every response of format
 * `zarr/array` (the array names are the response identifiers), complete array parameters per response (chunks that
 * divide the tile size), and a delivery URL whose only placeholder is `<requestId>`.
 */
import { badRequest } from "../http/errors";
import { tilingGrid } from "./grids";
import type { BatchRequest } from "./schema";
import { arrayParameters, type ZarrOutput } from "./zarrschema";

/** Names that cannot be data arrays: the coordinate arrays of the store. */
export const COORDINATE_ARRAYS = ["x", "y", "lon", "lat", "time"];

/**
 * @throws ApiError 400 naming the first rule the request breaks.
 */
export function checkZarrRequest(req: BatchRequest, out: ZarrOutput): void {
  if (req.input.type !== "tiling-grid")
    throw badRequest("ZarrOutput needs a tiling-grid input (a GeoPackage's features do not form one raster).");
  const grid = tilingGrid(req.input.id);
  if (grid.layout === "utm")
    throw badRequest(`With Zarr output only WGS84 and LAEA grids are supported (grid ${grid.id} is a UTM grid).`);
  if (req.input.bufferX || req.input.bufferY)
    throw badRequest("bufferX / bufferY cannot be used with Zarr output (tiles would write the same pixels).");
  const responses = req.processRequest.output?.responses;
  if (!responses?.length)
    throw badRequest(
      "With Zarr output processRequest.output.responses must name the output arrays (format type zarr/array).",
    );
  const size = Math.round(grid.properties.tileWidth / req.input.resolution);
  for (const r of responses) {
    if (r.format.type !== "zarr/array")
      throw badRequest(
        `With Zarr output every response must have format type zarr/array ('${r.identifier}' has ${r.format.type}).`,
      );
    if (COORDINATE_ARRAYS.includes(r.identifier))
      throw badRequest(`Response identifier '${r.identifier}' is the name of a coordinate array; choose another.`);
    const p = arrayParameters(out, r.identifier);
    if (typeof p === "string")
      throw badRequest(`${p} (set output.arrayParameters or output.arrayOverrides.${r.identifier}).`);
    if (size % p.chunks[1]! || size % p.chunks[2]!)
      throw badRequest(
        `output array ${r.identifier}: chunks [${p.chunks.join(", ")}] must evenly divide the tile size ${size} x ${size} pixels.`,
      );
  }
  const placeholders = [...out.delivery.s3.url.matchAll(/<([^>]*)>/g)]
    .map((m) => m[1]!)
    .filter((p) => p !== "requestId");
  if (placeholders.length)
    throw badRequest(
      `output.delivery.s3.url of a Zarr output may only use <requestId> (found <${placeholders.join(">, <")}>).`,
    );
}
