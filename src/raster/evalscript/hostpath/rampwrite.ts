/**
 * Output bands that are components of ColorRampVisualizer.process(value) (./fuse.ts `ramp` writes), written from
 * the value (./output.ts outputWriter): for integer sampleTypes each stored component is a step function of the
 * value (./rampsteps.ts), so a pixel takes one search for its step and a lookup per component; else the segment
 * and the interpolation per component (./ramp.ts), converted by the target's writer. Three components and the
 * dataMask of a one-byte type, four bands in all, are one 32-bit word per pixel (rampMaskWriter).
 */
import type { RampWrite, Write } from "./fuse";
import { rampComponents, rampIndices, type RampTable } from "./ramp";
import { rampSteps, type RampSteps } from "./rampsteps";
import { maskTable, rawOf, storer, writerOf, type OutputTarget, type R, type Raw } from "./stored";

/** Pixels per call of a writer at most (./interpret.ts BLOCK). */
const BLOCK_MAX = 1024;

/** Steps of ramp components per table, stored sampleType and components (./rampsteps.ts; null: none). */
const STEPS = new WeakMap<RampTable, Map<string, RampSteps | null>>();

/** The steps of components `comps` of `table` stored in target t (integer types only), cached. */
function stepsOf(table: RampTable, t: OutputTarget, comps: number[]): RampSteps | undefined {
  if (!t.convert || t.sampleType === "FLOAT32") return undefined;
  let byType = STEPS.get(table);
  if (!byType) STEPS.set(table, (byType = new Map()));
  const key = `${t.sampleType} ${comps.join()}`;
  if (!byType.has(key)) byType.set(key, rampSteps(table, comps, storer(t)) ?? null);
  return byType.get(key) ?? undefined;
}

function gather(out: Raw, table: Raw, seg: R, o: number, n: number, bands: number): void {
  for (let i = 0; i < n; i++) out[o + i * bands] = table[seg[i]!]!;
}

/**
 * The writer of consecutive ramp writes of one value and ramp (bands o.. of `bands`): for integer types the step
 * of each pixel (one search) and a lookup per component (./rampsteps.ts), else the segment of each pixel and the
 * interpolation per component (./ramp.ts), converted by the target's writer.
 */
export function rampWriter(
  t: OutputTarget,
  ws: RampWrite[],
  regs: R[],
  ramps: RampTable[],
): (o: number, n: number, bands: number) => void {
  const a = regs[ws[0]!.r]!,
    table = ramps[ws[0]!.t]!,
    comps = ws.map((w) => w.j);
  const seg = new Float64Array(BLOCK_MAX),
    raw = rawOf(t.array);
  const steps = stepsOf(table, t, comps);
  if (steps) {
    const tables = steps.stored.map((x) => {
      const r = new (raw.constructor as new (n: number) => Raw)(x.length);
      r.set(x);
      return r;
    });
    return (o, n, bands) => {
      rampIndices(seg, a, steps.search, n);
      for (let c = 0; c < tables.length; c++) gather(raw, tables[c]!, seg, o + c, n, bands);
    };
  }
  const write = writerOf(t),
    v = new Float64Array(BLOCK_MAX);
  return (o, n, bands) => {
    rampIndices(seg, a, table, n);
    for (let c = 0; c < comps.length; c++) {
      rampComponents(v, a, seg, table, comps[c]!, n);
      write(v, o + c, n, bands);
    }
  };
}

/** Pixels o.. of `out`: the word of each pixel's step (`rows`) with its dataMask value's word (`masks`). */
function packRampMask(
  out: Uint32Array,
  seg: Float64Array,
  rows: Uint32Array,
  m: Uint8Array,
  masks: Uint32Array,
  p0: number,
  o: number,
  n: number,
): void {
  for (let i = 0; i < n; i++) out[o + i] = rows[seg[i]!]! | masks[m[p0 + i]!]!;
}

/**
 * The writer (p0, o, n) of an output of exactly three components of one ramp and value then the dataMask, stored
 * in one byte each (AUTO, UINT8, INT8) and 4-byte aligned: one search per pixel for its step (./rampsteps.ts) and
 * one 32-bit store of the step's three stored components and the dataMask's stored value, each byte made by the
 * target's own writer (so in the platform's byte order). The four strided byte loops this replaces took 3-4 ns a
 * value in node 20; one word loop about 1 ns a pixel. Else undefined.
 */
export function rampMaskWriter(
  t: OutputTarget,
  writes: Write[],
  regs: R[],
  ramps: RampTable[],
  mask: Uint8Array,
): ((p0: number, o: number, n: number) => void) | undefined {
  const raw = rawOf(t.array);
  const [w0, w1, w2, wm] = writes;
  if (writes.length !== 4 || raw.BYTES_PER_ELEMENT !== 1 || raw.byteOffset % 4 !== 0 || wm?.kind !== "mask")
    return undefined;
  if (w0?.kind !== "ramp") return undefined;
  const ramp = [w0, w1, w2].filter((w): w is RampWrite => w?.kind === "ramp" && w.r === w0.r && w.t === w0.t);
  if (ramp.length !== 3) return undefined;
  const steps = stepsOf(
    ramps[ramp[0]!.t]!,
    t,
    ramp.map((w) => w.j),
  );
  if (!steps) return undefined;
  const rows = new Uint8Array(4 * steps.stored[0]!.length);
  steps.stored.forEach((x, c) => x.forEach((v, s) => (rows[4 * s + c] = v)));
  const masks = new Uint8Array(4 * 256);
  maskTable(t).forEach((v, m) => (masks[4 * m + 3] = v));
  const out = new Uint32Array(raw.buffer, raw.byteOffset, raw.length >> 2),
    rows32 = new Uint32Array(rows.buffer),
    masks32 = new Uint32Array(masks.buffer),
    a = regs[ramp[0]!.r]!,
    seg = new Float64Array(BLOCK_MAX);
  return (p0, o, n) => {
    rampIndices(seg, a, steps.search, n);
    packRampMask(out, seg, rows32, mask, masks32, p0, o >> 2, n);
  };
}
