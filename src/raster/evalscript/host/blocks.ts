/**
 * Blocks of rows between the host and the sandbox (host side): how many rows an RPC carries, the block of each
 * RPC, the bytes it moved (charged to the isolate, sandboxgen.ts) and the assembly of the values coming back.
 */
import type { Block, BlockValues, SessionParams } from "./sandbox";
import type { SampleArray } from "../sampletype";
import type { EvalOutputSpec, EvalResult, SceneData } from "../types";

/**
 * Rows per RPC so that one block's input, and its output, stay under `blockBytes` (workerd RPC messages are
 * limited to 32 MiB). dataMask is counted as 1 byte either way; outputs as setup() declares them.
 */
export function rowsPerBlock(
  input: { width: number },
  scenes: SceneData[],
  params: SessionParams,
  blockBytes: number,
): number {
  let inBytes = 0;
  for (const s of scenes) inBytes += 1 + 4 * (params.bandsBy[s.datasource ?? ""]?.length ?? 0);
  const outBytes = 4 * params.outputs.reduce((n, o) => n + o.bands, 0);
  return Math.max(1, Math.floor(blockBytes / Math.max(1, Math.max(inBytes, outBytes) * input.width)));
}

/**
 * The requested bands (and dataMask when requested) of rows [row, row + rows) of each scene; the arrays
 * themselves for a whole image (RPC copies them anyway).
 */
export function blockOf(scenes: SceneData[], params: SessionParams, row: number, rows: number): Block {
  const whole = row === 0 && rows === params.height;
  const from = row * params.width;
  const to = from + rows * params.width;
  const cut = <A extends Float32Array | Uint8Array>(a: A): A => (whole ? a : (a.slice(from, to) as A));
  return {
    rowStart: row,
    rows,
    scenes: scenes.map((s) => {
      const names = params.bandsBy[s.datasource ?? ""] ?? [];
      const bands: Block["scenes"][number]["bands"] = {};
      for (const b of names) {
        const a = s.bands[b];
        if (a && b !== "dataMask") bands[b] = cut(a);
      }
      return names.includes("dataMask") ? { bands, dataMask: cut(s.dataMask) } : { bands };
    }),
  };
}

/** Bytes of a block's pixels and of the values it gave: what the sandbox isolate allocated for it. */
export function bytesOf(block: Block, values: BlockValues): number {
  let n = 0;
  for (const s of block.scenes) {
    n += s.dataMask?.byteLength ?? 0;
    for (const b of Object.values(s.bands)) n += b.byteLength;
  }
  for (const v of Object.values(values)) n += v.byteLength;
  return n;
}

/**
 * The band-interleaved output arrays of an evaluation, assembled from its blocks: each block's values are checked
 * as they arrive and copied into one array per output, allocated at the output's first block with the element type
 * the sandbox returned (Float32, or the stored sampleType with `convert`), so the block is garbage at once and the
 * evaluation never holds the blocks and their joined copy together. A single block covering the whole image is
 * taken as it is (no copy).
 *
 * (Joining the blocks at the end was tried before: its late large allocation made local workerd's V8, which has no
 * heap limit, collect the strips' garbage, but at its end the blocks and their join coexisted, 2 x the output's
 * bytes, over the request's estimate of src/pipeline/admission.ts.)
 */
export class Assembly {
  private readonly arrays = new Map<string, Float32Array | SampleArray>();

  /**
   * @param outputs the outputs with their band counts after updateOutput.
   * @param size the image in pixels.
   */
  constructor(
    private readonly outputs: EvalOutputSpec[],
    private readonly size: { width: number; height: number },
  ) {}

  /**
   * Takes the values of rows [row, row + rows).
   * @throws Error when an output's block has not rows * width * bands values, or an element type other than its
   *   earlier blocks' (a sandbox fault).
   */
  add(row: number, rows: number, block: BlockValues): void {
    for (const o of this.outputs) {
      const stride = this.size.width * o.bands;
      const v = block[o.id];
      if (!v || v.length !== rows * stride)
        throw new Error(
          `evalscript: output ${o.id} has ${v?.length ?? 0} values in rows ${row}..${row + rows - 1}, expected ${rows * stride}`,
        );
      const n = this.size.height * stride;
      if (v.length === n) {
        this.arrays.set(o.id, v); // the whole image: no copy
        continue;
      }
      const all = this.arrays.get(o.id) ?? new (v.constructor as new (n: number) => typeof v)(n);
      if (all.constructor !== v.constructor)
        throw new Error(`evalscript: output ${o.id} changed its element type in rows ${row}..${row + rows - 1}`);
      all.set(v as never, row * stride);
      this.arrays.set(o.id, all);
    }
  }

  /** The outputs (EvalResult.outputs): Float32 values, or `stored` ones when `converted` made them another type. */
  result(converted = false): EvalResult["outputs"] {
    const result: EvalResult["outputs"] = {};
    for (const o of this.outputs) {
      const values = this.arrays.get(o.id) ?? new Float32Array(0);
      const common = { bands: o.bands, sampleType: o.sampleType, nodataValue: o.nodataValue };
      result[o.id] =
        values instanceof Float32Array && !converted
          ? { ...common, values }
          : { ...common, values: new Float32Array(0), stored: values };
    }
    return result;
  }
}
