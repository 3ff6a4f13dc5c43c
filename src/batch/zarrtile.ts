/**
 * The chunks of one batch tile in the task's Zarr store (./zarrmeta.ts): each response's single-band output is
 * cut at the array's chunk size (which divides the tile size, so no two tiles share a chunk and a redelivered tile
 * rewrites the same keys with the same bytes), converted to the array's dtype (DataView conversion: integers
 * truncate toward zero and wrap modulo 2^bits as WebIDL ToInt/ToUint, NaN -> 0) and compressed (zlib / gzip with
 * CompressionStream "deflate" / "gzip" at its default level, which numcodecs Zlib / GZip decode). Chunks holding
 * only fill_value are not written (Sentinel Hub's rule). Chunk keys: `<array>/0.<row>.<col>` (separator ".").
 */
import type { Env } from "../env";
import { outputRaster } from "../pipeline/output";
import type { EvalResult } from "../raster/evalscript";
import { invalidArgument } from "../raster/errors";
import type { Grid } from "../raster/types";
import type { BatchRequest } from "./schema";
import type { BatchTile } from "./tiles";
import { groupKey, readStoreJson, zarrLocation, zarrOutput } from "./zarrmeta";
import type { ZarrCompressor } from "./zarrschema";

type Setter = (v: DataView, offset: number, x: number, little: boolean) => void;
const SETTERS: Record<string, [number, Setter]> = {
  u1: [1, (v, o, x) => v.setUint8(o, x)],
  i1: [1, (v, o, x) => v.setInt8(o, x)],
  u2: [2, (v, o, x, l) => v.setUint16(o, x, l)],
  i2: [2, (v, o, x, l) => v.setInt16(o, x, l)],
  f4: [4, (v, o, x, l) => v.setFloat32(o, x, l)],
  f8: [8, (v, o, x, l) => v.setFloat64(o, x, l)],
};

/** The array metadata a tile needs. */
interface ArrayMeta {
  shape: [number, number, number];
  chunks: [number, number, number];
  dtype: string;
  fill_value: number;
  compressor: ZarrCompressor;
}

/** Compresses a chunk as its compressor says (raw when null). */
async function compress(bytes: Uint8Array, c: ZarrCompressor): Promise<Uint8Array> {
  if (!c) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream(c.id === "zlib" ? "deflate" : "gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Chunk (row `cy`, column `cx` of the tile's chunks) of `data` (`width` wide) in dtype bytes; null when all fill. */
function chunkBytes(
  data: ArrayLike<number>,
  width: number,
  at: { row: number; col: number; h: number; w: number },
  m: ArrayMeta,
): Uint8Array | null {
  const [size, set] = SETTERS[m.dtype.slice(1)]!;
  const little = m.dtype[0] !== ">";
  const out = new DataView(new ArrayBuffer(at.h * at.w * size));
  const isFill = (x: number) => x === m.fill_value || (Number.isNaN(x) && Number.isNaN(m.fill_value));
  let allFill = true;
  for (let y = 0; y < at.h; y++)
    for (let x = 0; x < at.w; x++) {
      const value = data[(at.row + y) * width + at.col + x]!;
      if (allFill && !isFill(value)) allFill = false;
      set(out, (y * at.w + x) * size, value, little);
    }
  return allFill ? null : new Uint8Array(out.buffer);
}

/** The tile's pixel offset in the store (row, column of its top-left pixel). */
async function tileOffset(
  at: Parameters<typeof readStoreJson>[0],
  tile: BatchTile,
): Promise<{ row: number; col: number }> {
  const attrs = await readStoreJson(at, ".zattrs");
  const bounds = attrs?.geospatial_bounds as number[] | undefined;
  const res = (attrs?.resolution as number[] | undefined)?.[0];
  if (!bounds || !res) throw new Error(`the Zarr store of the task has no group attributes (metadata not written)`);
  return { row: Math.round((bounds[3]! - tile.bbox[3]) / res), col: Math.round((tile.bbox[0] - bounds[0]!) / res) };
}

/**
 * Writes the chunks of every response of `result` (evaluated on `grid`, the pixel grid of `tile`) into the store of
 * task `id` of `account`.
 * @throws EngineError invalid-argument for a multi-band output or a tile that does not fall on chunk boundaries;
 *   Error when the store's metadata is missing (retried: analysis writes it before any tile runs).
 */
export async function writeZarrTile(
  env: Env,
  account: string,
  id: string,
  req: BatchRequest,
  tile: BatchTile,
  grid: Grid,
  result: EvalResult,
): Promise<void> {
  const at = await zarrLocation(env, account, zarrOutput(req), id);
  const off = await tileOffset(at, tile);
  for (const r of req.processRequest.output!.responses!) {
    const raster = outputRaster(result, r.identifier, grid);
    if (raster.bands !== 1)
      throw invalidArgument(`Zarr output arrays are single-band: output '${r.identifier}' has ${raster.bands} bands.`);
    const m = (await readStoreJson(at, `${r.identifier}/.zarray`)) as ArrayMeta | null;
    if (!m) throw new Error(`the Zarr store of the task has no array ${r.identifier}`);
    const [, ch, cw] = m.chunks;
    if (off.row % ch || off.col % cw || grid.height % ch || grid.width % cw)
      throw invalidArgument(`tile ${tile.name} does not fall on the chunks of array ${r.identifier}`);
    for (let y = 0; y < grid.height; y += ch)
      for (let x = 0; x < grid.width; x += cw) {
        const bytes = chunkBytes(raster.data, grid.width, { row: y, col: x, h: ch, w: cw }, m);
        if (!bytes) continue;
        const key = `${r.identifier}/0.${(off.row + y) / ch}.${(off.col + x) / cw}`;
        await at.store.put(groupKey(at.prefix, key), await compress(bytes, m.compressor), {
          contentType: "application/octet-stream",
        });
      }
  }
}
