/**
 * The operations of column programs (./program.ts): their codes and shape. A leaf module, so that the program's
 * builder (./program.ts) and its superinstructions (./fuse.ts) both import it without importing each other.
 */

/** Operation codes. Operands: registers `a`, `b`, `c`; `k` an index into the program's tables (or a band). */
export const OP = {
  /** d = band k (Float32) */ LOADF: 0,
  /** d = dataMask (Uint8) */ LOADM: 1,
  ADD: 2,
  SUB: 3,
  MUL: 4,
  DIV: 5,
  MOD: 6,
  EXP: 7,
  NEG: 8,
  /** d = a ? 1 : 0 (truthiness of a number) */ TRUTHY: 9,
  /** d = a ? 0 : 1 */ NOT: 10,
  LT: 11,
  LE: 12,
  GT: 13,
  GE: 14,
  SEQ: 15,
  SNE: 16,
  /** d = a ? b : c (a's truthiness) */ SELECT: 17,
  /** d = Math[MATH1[k]](a) */ MATH1: 18,
  /** d = Math[MATH2[k]](a, b) */ MATH2: 19,
  BAND: 20,
  BOR: 21,
  BXOR: 22,
  SHL: 23,
  SHR: 24,
  USHR: 25,
  BNOT: 26,
  /** d = index(a, b) of the evalscript library: a + b != 0 ? (a - b) / (a + b) : 0 */ INDEX: 27,
  /** d = Number.isNaN(a) ? 1 : 0 */ ISNAN: 28,
  /** d = 1 when a is finite */ ISFINITE: 29,
  /** d = the segment of ramp table k that value a falls in (rampIndex) */ RAMPI: 30,
  /** d = component k%4 of ColorRampVisualizer.process(a) with ramp table k>>2, b its segment (RAMPI) */ RAMPC: 31,
  // superinstructions (./fuse.ts), made by Builder.finish
  /** d = (a - b) / (a + b) */ NDI: 32,
  /** d = (x - y) / (x + y) of bands x = k, y = j */ NDIB: 33,
  /** d = band k * b (b a constant) */ MULKB: 34,
  /** d = index(x, y) of bands x = k, y = j */ INDEXB: 35,
  /** d = finite table k (./finite.ts) at the pixel's dataMask and band values */ LUT: 36,
} as const;

/** One operation: d = code(a, b, c; k). */
export interface Operation {
  code: number;
  d: number;
  a: number;
  b: number;
  c: number;
  k: number;
  /** The second band of NDIB and INDEXB. */
  j?: number;
}
