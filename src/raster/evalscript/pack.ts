/**
 * Band values across the isolate boundary as integers: a Float32 band whose every value is exactly
 * `Math.fround(q * scale)` for an integer q in 0..65535 and one of the unit scales of the pipeline
 * (../../pipeline/bands.ts convertUnits: 1 for DN and class bands, 1/10000 for reflectance, 1/1000 for AOT)
 * travels as Uint8Array / Uint16Array q plus the scale, a half or a quarter of the bytes; the sandbox
 * (sandbox/values.js `unpack`) turns it back into the same Float32 values, bit for bit (the check below is the
 * proof, per value: NaN and -0 are never packed).
 */

/** A band sent as integers: value[i] = Math.fround(dn[i] * scale). */
export interface PackedBand {
  dn: Uint8Array | Uint16Array;
  scale: number;
}

/** Scales tried, in order (exactly the factors convertUnits multiplies DN by). */
const SCALES = [1, 1 / 10000, 1 / 1000];

/** The integers q with fround(q * scale) === values[i] for all i, or undefined at the first value without one. */
function integers(values: Float32Array, scale: number): Uint16Array | undefined {
  const inv = 1 / scale;
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const q = Math.round(v * inv);
    if (!(q >= 0 && q <= 65535) || Math.fround(q * scale) !== v || (v === 0 && 1 / v < 0)) return undefined;
    out[i] = q;
  }
  return out;
}

/**
 * `values` as integers and a scale when every value is one (see the module docs), else the values as given.
 * Uint8 when all integers are below 256.
 * @param values band values (any units), length = pixels of the block.
 */
export function packBand(values: Float32Array): Float32Array | PackedBand {
  for (const scale of SCALES) {
    const q = integers(values, scale);
    if (!q) continue;
    let max = 0;
    for (let i = 0; i < q.length; i++) if (q[i]! > max) max = q[i]!;
    return { dn: max < 256 ? Uint8Array.from(q) : q, scale };
  }
  return values;
}
