/**
 * `lut` writes (./fuse.ts): a finite value (./finite.ts) that only output bands read, looked up straight into the
 * output from its stored values (one raw element per combination of classes, converted once by the output's
 * writer), instead of into a Float64 register and then converted and copied (1.1 ms per Mpx in workerd for the
 * copy of a FLOAT32 dataMask). The class of each input value is found as OP.LUT's loops find it (./finite.ts
 * lutStep), so the stored value is the one the register's writer would store, bit for bit.
 */
import { MASK, type Domain, type FiniteTable } from "./finite";
import type { Raw } from "./stored";

/** Band keys of a flat dataMask x band table at most (256 x 257 entries). */
const FLAT_KEYS = 256;

/** A writer of pixels p0..p0+n of the input as band values o, o + bands, ... of the output. */
type BandWrite = (p0: number, o: number, n: number, bands: number) => void;

function lutBand(
  out: Raw,
  x: Float32Array,
  tab: Raw,
  other: number,
  p0: number,
  o: number,
  n: number,
  q: number,
): void {
  const size = tab.length;
  for (let w = o, i = p0, e = p0 + n; i < e; w += q, i++) {
    const v = x[i]!,
      t = v >>> 0;
    out[w] = t === v && t < size ? tab[t]! : other;
  }
}
function lutMask(out: Raw, m: Uint8Array, tab: Raw, p0: number, o: number, n: number, q: number): void {
  for (let w = o, i = p0, e = p0 + n; i < e; w += q, i++) out[w] = tab[m[i]!]!;
}
/**
 * Two inputs, the first the dataMask: tab[m * (size + 1) + k] the stored value of dataMask value m and band value
 * k < size, k = size for any other band value (one lookup instead of three: 2.5 against 3.1 ms per 1.2 Mpx in
 * node 22, the register and its copy 3.9).
 */
function lutMaskBand(
  out: Raw,
  m: Uint8Array,
  y: Float32Array,
  tab: Raw,
  size: number,
  p0: number,
  o: number,
  n: number,
  q: number,
) {
  const s1 = size + 1;
  for (let w = o, i = p0, e = p0 + n; i < e; w += q, i++) {
    const v = y[i]!,
      u = v | 0;
    out[w] = tab[m[i]! * s1 + (u === v && u >= 0 && u < size ? u : size)]!;
  }
}
/** Two inputs, the first the dataMask, over a band of more than FLAT_KEYS keys: class cm[m] times ny plus y's class. */
function lutMaskClasses(
  out: Raw,
  m: Uint8Array,
  cm: Uint8Array,
  t: Table2,
  p0: number,
  o: number,
  n: number,
  q: number,
) {
  const { y, cy, oy, ny, values } = t,
    size = cy.length;
  for (let w = o, i = p0, e = p0 + n; i < e; w += q, i++) {
    const v = y[i]!,
      u = v >>> 0;
    out[w] = values[cm[m[i]!]! * ny + (u === v && u < size ? cy[u]! : oy)]!;
  }
}
function lutBandBand(out: Raw, x: Float32Array, a: Domain, t: Table2, p0: number, o: number, n: number, q: number) {
  const { y, cy, oy, ny, values } = t,
    cx = a.cls,
    ox = a.other,
    sx = cx.length,
    sy = cy.length;
  for (let w = o, i = p0, e = p0 + n; i < e; w += q, i++) {
    const v = x[i]!,
      u = v >>> 0,
      f = y[i]!,
      z = f >>> 0;
    out[w] = values[(u === v && u < sx ? cx[u]! : ox) * ny + (z === f && z < sy ? cy[z]! : oy)]!;
  }
}
/** The second input of a two-input lookup and the stored values. */
interface Table2 {
  y: Float32Array;
  cy: Uint8Array;
  oy: number;
  ny: number;
  values: Raw;
}

/**
 * The writer of finite value `t` into `out`.
 * @param stored the stored value (raw element of out's kind) of each of t.values, in order.
 * @param bands the band arrays by LOADF's k; mask the dataMask.
 */
export function lutWriter(t: FiniteTable, stored: Raw, out: Raw, bands: Float32Array[], mask: Uint8Array): BandWrite {
  const [a, b] = t.doms as [Domain, Domain | undefined];
  if (!b) {
    const tab = new (stored.constructor as new (n: number) => Raw)(a.cls.length);
    a.cls.forEach((c, v) => (tab[v] = stored[c]!));
    if (a.src === MASK) return (p0, o, n, q) => lutMask(out, mask, tab, p0, o, n, q);
    const x = bands[a.src]!,
      other = stored[a.other]!;
    return (p0, o, n, q) => lutBand(out, x, tab, other, p0, o, n, q);
  }
  const t2: Table2 = { y: bands[b.src]!, cy: b.cls, oy: b.other, ny: b.n, values: stored };
  if (a.src === MASK && b.cls.length > FLAT_KEYS)
    return (p0, o, n, q) => lutMaskClasses(out, mask, a.cls, t2, p0, o, n, q);
  if (a.src === MASK) {
    const size = b.cls.length,
      y = bands[b.src]!;
    const tab = new (stored.constructor as new (n: number) => Raw)(256 * (size + 1));
    for (let m = 0; m < 256; m++)
      for (let k = 0; k <= size; k++)
        tab[m * (size + 1) + k] = stored[a.cls[m]! * b.n + (k < size ? b.cls[k]! : b.other)]!;
    return (p0, o, n, q) => lutMaskBand(out, mask, y, tab, size, p0, o, n, q);
  }
  const x = bands[a.src]!;
  return (p0, o, n, q) => lutBandBand(out, x, a, t2, p0, o, n, q);
}
