/**
 * Resampling kernels equal to GDAL 3.6's warp kernel (alg/gdalwarpkernel.cpp), run over all output pixels of
 * all bands. The source is a window of one level held as Float32 values; coordinates are image (level) pixels.
 *
 * - Every method: GDAL writes nothing when the pixel under the output centre (GWKCheckAndComputeSrcOffsets:
 *   trunc(x + 1e-10), trunc(y + 1e-10)) is outside the image or nodata ("do not apply invalid source pixels",
 *   GWKRealCase/GWKGeneralCase).
 * - near: that pixel; in JavaScript (as fast as WebAssembly for a gather), see near.ts.
 * - bilinear, scale >= 0.95: GWKBilinearResample4Sample: the 2 x 2 neighbours of (x - 0.5, y - 0.5); pixels
 *   outside the image or nodata are dropped and the remaining weights renormalised.
 * - cubic, scale >= 0.95: GWKCubicResample4Sample: Keys cubic convolution (a = -0.5, GWKCubicComputeWeights) on
 *   the 4 x 4 neighbourhood; at the image border or when any of the 16 pixels is nodata: the bilinear formula.
 * - bilinear / cubic when downsampling (scale < 0.95): GWKResample: taps i in [nFiltInit, radius] around
 *   floor(x - 0.5) with weights W((i - dx) * scale), nodata skipped, divided by the sum of weights unless it is
 *   within 1e-5 of 1; no value when the sum is below 1e-6.
 * The last three run in WebAssembly: wasm/warp_kernels.ts (AssemblyScript), compiled to ./warp_kernels.wasm by
 * `npm run build:wasm` (run by npm install / start / test / bench / deploy; the .wasm is not committed). On the
 * 512 x 512 whole-tile case in workerd the same loops took 28-32 ms in JavaScript against 11 ms in WebAssembly
 * for the stretched bilinear kernel, 36-47 ms against 19-26 ms for cubic (copies into WebAssembly memory
 * included), with bit-identical output. The AssemblyScript build gives the same bits as the earlier C build and
 * the same speed within about 5% (two bands, kernels only: bilinear 22 ms, cubic 39 ms vs 37 ms).
 */
import type { WarpedBand } from "../types";
import type { SourceCoords } from "./coords";
import type { KernelScale } from "./plan";
import kernelsModule from "./warp_kernels.wasm";
import { WARP_WASM_BYTES } from "../memory";

/** A source window of one level, in image pixel coordinates, one Float32Array per band. */
export interface SourceWindow {
  x0: number;
  y0: number;
  width: number;
  height: number;
  /** Size of the whole level (the image bounds the kernels respect). */
  imageWidth: number;
  imageHeight: number;
  /** Nodata value as Float32 (NaN = none; NaN samples are always invalid). */
  nodata: number;
  bands: Float32Array[];
}

export type KernelMode = "near" | "bilinear4" | "cubic4" | "bilinear" | "cubic";

const WASM_MODE: Record<Exclude<KernelMode, "near">, number> = { bilinear4: 1, cubic4: 2, bilinear: 3, cubic: 4 };

interface KernelExports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  warp_row: (...args: number[]) => void;
}

let shared: KernelExports | undefined;
/** Instances whose memory would grow beyond WARP_WASM_BYTES (src/raster/memory.ts) are used once and dropped (memory cannot shrink). */
const KEEP_MEMORY_BYTES = WARP_WASM_BYTES;

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Byte offsets of the buffers in WebAssembly memory for a window and an output row width. */
function layout(base: number, w: SourceWindow, width: number, scale: KernelScale) {
  const win = align8(base);
  const sx = align8(win + w.width * w.height * 4);
  const sy = sx + width * 8;
  const od = sy + width * 8;
  const ov = align8(od + width * 4);
  const filter = align8(ov + width);
  const scales = filter + 16;
  const wx = scales + 16;
  const wy = wx + (2 * scale.xRadius + 2) * 8;
  return { win, sx, sy, od, ov, filter, scales, wx, wy, end: wy + (2 * scale.yRadius + 2) * 8 };
}

/** A kernels instance with at least `bytes` of memory. */
function kernelsFor(bytes: number): KernelExports {
  const reuse = bytes <= KEEP_MEMORY_BYTES;
  const k =
    reuse && shared ? shared : (new WebAssembly.Instance(kernelsModule, {}).exports as unknown as KernelExports);
  if (reuse) shared = k;
  const missing = bytes - k.memory.buffer.byteLength;
  if (missing > 0) k.memory.grow(Math.ceil(missing / 65536));
  return k;
}

/** Bilinear / cubic kernels for all bands, one WebAssembly call per output row and band. */
function wasmRows(
  coords: SourceCoords,
  w: SourceWindow,
  scale: KernelScale,
  mode: Exclude<KernelMode, "near">,
  out: WarpedBand[],
): void {
  const { width, height } = coords;
  const base = (shared ?? kernelsFor(0)).__heap_base.value as number;
  const at = layout(base, w, width, scale);
  const k = kernelsFor(at.end);
  const buf = k.memory.buffer;
  const [win, sx, sy] = [
    new Float32Array(buf, at.win, w.width * w.height),
    new Float64Array(buf, at.sx, width),
    new Float64Array(buf, at.sy, width),
  ];
  const [od, ov] = [new Float32Array(buf, at.od, width), new Uint8Array(buf, at.ov, width)];
  new Int32Array(buf, at.filter, 4).set([scale.xFiltInit, scale.xRadius, scale.yFiltInit, scale.yRadius]);
  new Float64Array(buf, at.scales, 2).set([scale.xScale, scale.yScale]);
  for (let b = 0; b < w.bands.length; b++) {
    win.set(w.bands[b]!);
    for (let r = 0; r < height; r++) {
      coords.row(r, sx, sy);
      od.fill(0);
      ov.fill(0);
      k.warp_row(
        at.win,
        w.width,
        w.x0,
        w.y0,
        w.imageWidth,
        w.imageHeight,
        w.nodata,
        at.sx,
        at.sy,
        width,
        at.od,
        at.ov,
        WASM_MODE[mode],
        at.filter,
        at.scales,
        at.wx,
        at.wy,
      );
      out[b]!.data.set(od, r * width);
      out[b]!.valid.set(ov, r * width);
    }
  }
}

/**
 * Warps every output pixel of every band with a bilinear or cubic kernel: `out[b].data` / `.valid` get the value
 * where GDAL writes one. `mode` comes from the resampling and the KernelScale (4-sample formulas when both scales
 * are >= 0.95). NEAREST is near.ts.
 */
export const warpRows: (
  coords: SourceCoords,
  w: SourceWindow,
  scale: KernelScale,
  mode: Exclude<KernelMode, "near">,
  out: WarpedBand[],
) => void = wasmRows;
