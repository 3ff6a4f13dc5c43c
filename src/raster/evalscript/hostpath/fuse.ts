/**
 * Superinstructions of column programs (./program.ts): the shapes users write most, rewritten before registers
 * are allocated (virtual registers are written once, so an operand's defining operation is known) into fewer
 * loops over a block. Each rewrite computes the very JavaScript expression of the operations it replaces, so
 * results are bit for bit the same:
 * - `(x - y) / (x + y)` (or `/ (y + x)`: IEEE addition commutes) is NDI, and NDIB when x and y are bands (read
 *   from the Float32 band arrays, no load loop); the library's index(x, y) of two bands is INDEXB; an NDIB
 *   that only output bands read is computed into the output (`ndi` writes: no register, no copy); one that only
 *   the comparison of a class output reads is computed by that output's writer (./interpret.ts fusableOf);
 * - a band times a constant (either order: IEEE multiplication commutes) is MULKB;
 * - an output band that is a constant, the dataMask, or a choice between two constants on a comparison
 *   (`n < 0.1 ? 1 : 0.2`) is written directly (the stored values computed once, see ./output.ts), with no
 *   register loop; a band times a constant is written from the band (FLOAT32 and AUTO outputs); the components
 *   of `viz.process(x)` are written from x (./output.ts rampWriter: a table lookup for integer outputs).
 * - operations of at most two inputs tested by `===` (masks of SCL classes, `indexOf`, `includes`) and the
 *   dataMask are one table lookup, OP.LUT (./finite.ts); one that only output bands read is looked up into the
 *   output (`lut` writes: the table's stored values, no register, no copy).
 * Operations left without a reader are dropped by Builder.finish.
 */
import { fuseFinite, type FiniteTable, type Scalar } from "./finite";
import { OP, type Operation } from "./ops";

/**
 * How one output band is written: a register, a constant, the dataMask, `a < b ? x : y` of two constants (`<=`
 * with orEqual), band k times constant x, or a ColorRampVisualizer component.
 */
export type Write =
  | { kind: "reg"; r: number }
  | { kind: "const"; x: number }
  | { kind: "mask" }
  | { kind: "scaled"; k: number; x: number }
  | { kind: "compare"; a: number; b: number; orEqual: boolean; x: number; y: number }
  | { kind: "ndi"; k: number; j: number }
  | { kind: "lut"; t: number }
  | RampWrite;

/** Component j of ColorRampVisualizer.process(register r) with ramp table t (written by ./output.ts rampWriter). */
export type RampWrite = { kind: "ramp"; r: number; t: number; j: number };

/**
 * Rewrites `ops` (virtual registers, in order; replaced in place, same destination) and returns the writes of
 * each output band.
 * @param known constant registers and their values; finite: the tables of OP.LUT (appended to) and the value of
 * an operation on constants (finite-domain fusion, ./finite.ts).
 */
export function fuse(
  ops: Operation[],
  outputs: number[][],
  known: Map<number, number>,
  finite: { luts: FiniteTable[]; scalar: Scalar },
): Write[][] {
  fuseFinite(ops, known, finite.luts, finite.scalar);
  const def = new Map<number, Operation>(ops.map((o) => [o.d, o]));
  const band = (r: number) => (def.get(r)?.code === OP.LOADF ? def.get(r)!.k : -1);
  ops.forEach((o, i) => {
    if (o.code === OP.DIV) {
      const s = def.get(o.a),
        t = def.get(o.b);
      const sum = t?.code === OP.ADD && ((t.a === s?.a && t.b === s.b) || (t.a === s?.b && t.b === s.a));
      if (s?.code === OP.SUB && sum) o = ops[i] = { ...o, code: OP.NDI, a: s.a, b: s.b };
    }
    if ((o.code === OP.NDI || o.code === OP.INDEX) && band(o.a) >= 0 && band(o.b) >= 0)
      ops[i] = { ...o, code: o.code === OP.NDI ? OP.NDIB : OP.INDEXB, k: band(o.a), j: band(o.b), a: -1, b: -1 };
    if (o.code === OP.MUL) {
      const [x, y] = known.has(o.a) ? [o.b, o.a] : [o.a, o.b];
      if (known.has(y) && band(x) >= 0) ops[i] = { ...o, code: OP.MULKB, k: band(x), a: -1, b: y };
    }
  });
  for (const o of ops) def.set(o.d, o);
  return directWrites(
    outputs.map((regs) =>
      regs.map((r): Write => {
        const x = known.get(r),
          o = def.get(r);
        if (x !== undefined) return { kind: "const", x };
        if (o?.code === OP.LOADM) return { kind: "mask" };
        const c = o?.code === OP.SELECT && known.has(o.b) && known.has(o.c) ? def.get(o.a) : undefined;
        if (c) {
          const x = known.get(o!.b)!,
            y = known.get(o!.c)!;
          // a > b is b < a and a >= b is b <= a (NaN included: false either way)
          if (c.code === OP.LT || c.code === OP.LE)
            return { kind: "compare", a: c.a, b: c.b, orEqual: c.code === OP.LE, x, y };
          if (c.code === OP.GT || c.code === OP.GE)
            return { kind: "compare", a: c.b, b: c.a, orEqual: c.code === OP.GE, x, y };
        }
        if (o?.code === OP.MULKB) return { kind: "scaled", k: o.k, x: known.get(o.b)! };
        const seg = o?.code === OP.RAMPC ? def.get(o.b) : undefined;
        if (seg?.code === OP.RAMPI && seg.a === o!.a && seg.k === o!.k >> 2)
          return { kind: "ramp", r: o!.a, t: seg.k, j: o!.k & 3 };
        return { kind: "reg", r };
      }),
    ),
    ops,
    def,
  );
}

/**
 * Band writes of an NDIB or LUT register that nothing else reads (no operation, no other kind of write) become
 * `ndi` writes, computed from the two bands straight into the output, or `lut` writes, looked up straight into
 * the output (its operation is then dropped).
 */
function directWrites(writes: Write[][], ops: Operation[], def: Map<number, Operation>): Write[][] {
  const read = new Set<number>(ops.flatMap((o) => [o.a, o.b, o.c]));
  for (const w of writes.flat())
    if (w.kind === "compare") read.add(w.a).add(w.b);
    else if (w.kind === "ramp") read.add(w.r);
  return writes.map((ws) =>
    ws.map((w) => {
      const o = w.kind === "reg" && !read.has(w.r) ? def.get(w.r) : undefined;
      if (o?.code === OP.LUT) return { kind: "lut", t: o.k };
      return o?.code === OP.NDIB ? { kind: "ndi", k: o.k, j: o.j! } : w;
    }),
  );
}
