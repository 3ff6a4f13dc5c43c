/**
 * The host path's writers of true colour with its dataMask in AUTO (src/raster/evalscript/hostpath/scaled.ts
 * writeScaled3MaskPacked), of true colour in FLOAT32 (writeScaled3F32) and of NDI classes with the dataMask
 * (src/raster/evalscript/hostpath/output.ts packLess over an NDIB register), four pixels per step in 128-bit SIMD:
 * AssemblyScript, compiled by wasm/build.mjs to src/raster/evalscript/hostpath/hostpath_kernels.wasm (not committed).
 * No imports, no allocation (stub runtime); src/raster/evalscript/hostpath/simd.ts copies chunks in and out.
 */
// @ts-ignore: an AssemblyScript builtin (end of static data), exported for simd.ts
export { __heap_base };

/** 2^52: for 0 <= v <= 255, the low 32 bits of v + 2^52 (float64) are v rounded to an integer, ties to even. */
const ROUND: f64 = 4503599627370496;

/**
 * The stored byte of each float64 lane of v (ToUint8Clamp: NaN and v <= 0 give 0, v >= 255 gives 255, else v
 * rounded to the nearest integer, ties to even) in the low 32 bits of that lane (the high 32 bits 0x43300000).
 * f64x2.pmax(0, v) is 0 < v ? v : 0 (NaN gives 0), f64x2.pmin(255, w) is w < 255 ? w : 255; adding 2^52 to a
 * value in [0, 255] rounds it to an integer (ties to even: IEEE 754 addition) in the mantissa's low bits. The same
 * bytes as f64x2.nearest, i32x4.trunc_sat_f64x2_s_zero and saturating narrows to u8, in 0.85 of their time (node 20).
 */
// @ts-ignore: decorator
@inline function clampRound(v: v128): v128 {
  const c = f64x2.pmin(f64x2.splat(255), f64x2.pmax(f64x2.splat(0), v));
  return f64x2.add(c, f64x2.splat(ROUND));
}

/**
 * The stored bytes of four float32 values f (f32x4, already Math.fround(b * x)) times 255 (float64, exact), as
 * the low byte of each i32 lane (the other bytes 0).
 */
// @ts-ignore: decorator
@inline function storedOf(f: v128): v128 {
  const k = f64x2.splat(255);
  const lo = clampRound(f64x2.mul(f64x2.promote_low_f32x4(f), k));
  const hi = clampRound(f64x2.mul(f64x2.promote_low_f32x4(i32x4.shuffle(f, f, 2, 3, 2, 3)), k));
  return i32x4.shuffle(lo, hi, 0, 2, 4, 6);
}

/** Math.fround(b * x) of four float32 values b and a float64 x (splat in xx): in float64, demoted (ties to even). */
// @ts-ignore: decorator
@inline function scaled64(b: v128, xx: v128): v128 {
  const lo = f32x4.demote_f64x2_zero(f64x2.mul(f64x2.promote_low_f32x4(b), xx));
  const hi = f32x4.demote_f64x2_zero(f64x2.mul(f64x2.promote_low_f32x4(i32x4.shuffle(b, b, 2, 3, 2, 3)), xx));
  return i32x4.shuffle(lo, hi, 0, 1, 4, 5);
}

/** Math.fround(b * x) of four float32 values b: scaled64 with y the splat float64 x, or with `f32` f32x4.mul by y. */
// @ts-ignore: decorator
@inline function product(b: v128, y: v128, f32: bool): v128 {
  return f32 ? f32x4.mul(b, y) : scaled64(b, y);
}

/** 0xFF in byte 3 of each i32 lane whose mask byte (of the four at m) is not 0, else 0. */
// @ts-ignore: decorator
@inline function maskBytes(m: usize): v128 {
  const z = i8x16.splat(0);
  const b = i8x16.ne(v128.load32_zero(m), z);
  return i8x16.shuffle(b, z, 16, 16, 16, 0, 16, 16, 16, 1, 16, 16, 16, 2, 16, 16, 16, 3);
}

/** The words of four pixels: stored bytes r, g, b (storedOf) as bytes 0, 1, 2 and maskBytes(m) as byte 3. */
// @ts-ignore: decorator
@inline function word(r: v128, g: v128, b: v128, m: usize): v128 {
  return v128.or(v128.or(r, i32x4.shl(g, 8)), v128.or(i32x4.shl(b, 16), maskBytes(m)));
}

/** scaled3Mask's loop for one product (a constant where it is inlined: one loop each, no branch). */
// @ts-ignore: decorator
@inline function scaled3MaskLoop(
  b0: usize,
  b1: usize,
  b2: usize,
  m: usize,
  out: usize,
  e: usize,
  y0: v128,
  y1: v128,
  y2: v128,
  f32: bool,
): void {
  for (let i: usize = 0; i < e; i += 16) {
    const r = storedOf(product(v128.load(b0 + i), y0, f32));
    const g = storedOf(product(v128.load(b1 + i), y1, f32));
    const b = storedOf(product(v128.load(b2 + i), y2, f32));
    v128.store(out + i, word(r, g, b, m + (i >> 2)));
  }
}

/**
 * Writes pixels 0..n-1, n rounded up to a multiple of 4 (the buffers hold that many), as words at out: bytes in
 * memory R, G, B, A with R, G, B the stored bytes of Math.fround(b_k * x_k) * 255 for the float32 bands at b0, b1,
 * b2 (pixel i at b + 4 i) and A 255 where the byte at m + i is not 0, else 0 (AUTO's stored dataMask). The product
 * is made in float64 and demoted to float32 (round to nearest, ties to even, as Math.fround); with `f32` (every
 * x_k a float32 value) it is one float32 multiplication: the same value (the float64 product of two float32 values
 * is exact, and its rounding to float32 is the IEEE 754 float32 product).
 */
export function scaled3Mask(
  b0: usize,
  b1: usize,
  b2: usize,
  m: usize,
  out: usize,
  n: i32,
  x0: f64,
  x1: f64,
  x2: f64,
  f32: bool,
): void {
  const e = <usize>n << 2;
  if (f32)
    scaled3MaskLoop(b0, b1, b2, m, out, e, f32x4.splat(<f32>x0), f32x4.splat(<f32>x1), f32x4.splat(<f32>x2), true);
  else scaled3MaskLoop(b0, b1, b2, m, out, e, f64x2.splat(x0), f64x2.splat(x1), f64x2.splat(x2), false);
}

/**
 * Stores the float32 values of four pixels r, g, b (f32x4 each, pixel j in lane j) interleaved at out: 12 values
 * R0 G0 B0 R1 | G1 B1 R2 G2 | B2 R3 G3 B3 in three 16-byte stores (five shuffles, lanes copied bit for bit).
 */
// @ts-ignore: decorator
@inline function store3(out: usize, r: v128, g: v128, b: v128): void {
  const rg01 = i32x4.shuffle(r, g, 0, 4, 1, 5),
    rg23 = i32x4.shuffle(r, g, 2, 6, 3, 7),
    gb12 = i32x4.shuffle(g, b, 1, 5, 2, 6);
  v128.store(out, i32x4.shuffle(rg01, b, 0, 1, 4, 2));
  v128.store(out + 16, i32x4.shuffle(gb12, r, 0, 1, 6, 2));
  v128.store(out + 32, i32x4.shuffle(rg23, b, 6, 2, 3, 7));
}

/** scaled3's loop for one product (a constant where it is inlined: one loop each, no branch). */
// @ts-ignore: decorator
@inline function scaled3Loop(
  b0: usize,
  b1: usize,
  b2: usize,
  out: usize,
  e: usize,
  y0: v128,
  y1: v128,
  y2: v128,
  f32: bool,
): void {
  for (let i: usize = 0; i < e; i += 16)
    store3(
      out + 3 * i,
      product(v128.load(b0 + i), y0, f32),
      product(v128.load(b1 + i), y1, f32),
      product(v128.load(b2 + i), y2, f32),
    );
}

/**
 * Writes pixels 0..n-1, n rounded up to a multiple of 4 (the buffers hold that many), as three float32 values each
 * at out (pixel i at out + 12 i): Math.fround(b_k * x_k) for the float32 bands at b0, b1, b2 (pixel i at b + 4 i),
 * k = 0..2 - the FLOAT32 store of true colour (src/raster/evalscript/hostpath/scaled.ts writeScaled3F32). The
 * product is made in float64 and demoted to float32 (round to nearest, ties to even, as Math.fround); with `f32`
 * (every x_k a float32 value) it is one float32 multiplication, the same value (as scaled3Mask).
 */
export function scaled3(
  b0: usize,
  b1: usize,
  b2: usize,
  out: usize,
  n: i32,
  x0: f64,
  x1: f64,
  x2: f64,
  f32: bool,
): void {
  const e = <usize>n << 2;
  if (f32) scaled3Loop(b0, b1, b2, out, e, f32x4.splat(<f32>x0), f32x4.splat(<f32>x1), f32x4.splat(<f32>x2), true);
  else scaled3Loop(b0, b1, b2, out, e, f64x2.splat(x0), f64x2.splat(x1), f64x2.splat(x2), false);
}

/**
 * The NDI (x - y) / (x + y) in float64 of the low two float32 lanes of x and y: promoted (exact), then IEEE 754
 * float64 subtraction, addition and division, as JavaScript computes it from the float32 values; with `index`,
 * the library's index(x, y): 0 where x + y == 0 (`x + y != 0 ? (x - y) / (x + y) : 0`; NaN != 0, so a NaN sum
 * gives the NaN quotient), the quotient's lanes AND-ed with the lanes where the sum is not 0 (+0 elsewhere).
 */
// @ts-ignore: decorator
@inline function ndiLo(x: v128, y: v128, index: bool): v128 {
  const a = f64x2.promote_low_f32x4(x),
    b = f64x2.promote_low_f32x4(y);
  const s = f64x2.add(a, b),
    v = f64x2.div(f64x2.sub(a, b), s);
  return index ? v128.and(v, f64x2.ne(s, f64x2.splat(0))) : v;
}
/** ndiLo of the high two lanes. */
// @ts-ignore: decorator
@inline function ndiHi(x: v128, y: v128, index: bool): v128 {
  return ndiLo(i32x4.shuffle(x, x, 2, 3, 2, 3), i32x4.shuffle(y, y, 2, 3, 2, 3), index);
}

/** Lanes (all ones or 0) of comparison `mode` (ndiClass) between NDI lanes v and constant lanes c. */
// @ts-ignore: decorator
@inline function compared(v: v128, c: v128, mode: i32): v128 {
  return mode == 0 ? f64x2.lt(v, c) : mode == 1 ? f64x2.le(v, c) : mode == 2 ? f64x2.lt(c, v) : f64x2.le(c, v);
}

/**
 * Writes the words of four pixels from byte offset i of the float32 bands (pixel i / 4): for pixel j (0..3) the
 * word rows[(bit j of `bits` ? 256 : 0) | m[i / 4 + j]] (rows: 512 32-bit words, copied byte for byte).
 */
// @ts-ignore: decorator
@inline function classWords(m: usize, rows: usize, out: usize, i: usize, bits: i32): void {
  const p = m + (i >> 2),
    o = out + i;
  store<u32>(o, load<u32>(rows + ((((bits & 1) << 8) | <i32>load<u8>(p)) << 2)));
  store<u32>(o + 4, load<u32>(rows + ((((bits & 2) << 7) | <i32>load<u8>(p + 1)) << 2)));
  store<u32>(o + 8, load<u32>(rows + ((((bits & 4) << 6) | <i32>load<u8>(p + 2)) << 2)));
  store<u32>(o + 12, load<u32>(rows + ((((bits & 8) << 5) | <i32>load<u8>(p + 3)) << 2)));
}

/** ndiClass's loop for one comparison and NDI kind (constants where it is inlined: one loop each, no branch). */
// @ts-ignore: decorator
@inline function classLoop(
  b0: usize,
  b1: usize,
  m: usize,
  rows: usize,
  out: usize,
  e: usize,
  cc: v128,
  mode: i32,
  index: bool,
): void {
  for (let i: usize = 0; i < e; i += 16) {
    const x = v128.load(b0 + i),
      y = v128.load(b1 + i);
    const lo = i64x2.bitmask(compared(ndiLo(x, y, index), cc, mode)),
      hi = i64x2.bitmask(compared(ndiHi(x, y, index), cc, mode));
    classWords(m, rows, out, i, lo | (hi << 2));
  }
}

/**
 * Writes pixels 0..n-1, n rounded up to a multiple of 4 (the buffers hold that many), as 32-bit words at out:
 * word i is rows[(t ? 256 : 0) | m[i]] (rows: 512 words at `rows`, m: bytes) where t is the comparison of the NDI
 * v of the float32 values x, y at b0 + 4 i, b1 + 4 i (ndiLo: (x - y) / (x + y) in float64, or with mode bit 4
 * index(x, y)) and constant c by mode & 3: 0 v < c, 1 v <= c, 2 c < v, 3 c <= v (IEEE: false when either is NaN,
 * -0 equal to 0, as JavaScript's < and <=). Modes above 7 write nothing.
 */
export function ndiClass(b0: usize, b1: usize, m: usize, rows: usize, out: usize, n: i32, c: f64, mode: i32): void {
  const cc = f64x2.splat(c),
    e = <usize>n << 2;
  if (mode == 0) classLoop(b0, b1, m, rows, out, e, cc, 0, false);
  else if (mode == 1) classLoop(b0, b1, m, rows, out, e, cc, 1, false);
  else if (mode == 2) classLoop(b0, b1, m, rows, out, e, cc, 2, false);
  else if (mode == 3) classLoop(b0, b1, m, rows, out, e, cc, 3, false);
  else if (mode == 4) classLoop(b0, b1, m, rows, out, e, cc, 0, true);
  else if (mode == 5) classLoop(b0, b1, m, rows, out, e, cc, 1, true);
  else if (mode == 6) classLoop(b0, b1, m, rows, out, e, cc, 2, true);
  else if (mode == 7) classLoop(b0, b1, m, rows, out, e, cc, 3, true);
}
