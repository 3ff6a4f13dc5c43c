/**
 * Georeferencing by ground control points (GCPs): the polynomial transformer gdalwarp uses by default for a raster
 * that has GCPs and no geotransform (GDAL alg/gdal_crs.cpp, GDALCreateGCPTransformer; the least-squares method is
 * the CRS.C rectification routines of GRASS / Michigan State University's Center for Remote Sensing it derives from).
 *
 * Two polynomials of the same order are fitted independently by least squares over all GCPs: pixel/line -> GCP CRS
 * (forward) and GCP CRS -> pixel/line (reverse); the reverse one maps output coordinates to source pixels when
 * warping, as GDAL's GenImgProj transformer does (it does not invert the forward polynomial). Both are fitted on
 * coordinates centred on their means (GDAL 3.x does so for numerical stability), terms ordered 1, x, y, x², xy, y²,
 * x³, x²y, xy², y³. Order when not asked for (GDAL's nReqOrder 0): 1 under 6 GCPs, else 2 (GDAL avoids the third
 * order "since it is unstable", also with 10 GCPs or more).
 *
 * This is tie-point georeferencing, what Sentinel Hub calls `orthorectify: false` for Sentinel-1: no terrain model.
 */
import { invalidFile } from "./errors";

/** One ground control point: pixel/line (0,0 = top-left corner of the first pixel) -> x, y in the GCP CRS. */
export interface Gcp {
  pixel: number;
  line: number;
  /** Easting or longitude (GDAL's dfGCPX). */
  x: number;
  /** Northing or latitude (GDAL's dfGCPY). */
  y: number;
}

/** A fitted GCP transformer (see the module comment). */
export interface GcpTransformer {
  /** Polynomial order, 1..3. */
  readonly order: number;
  /** GCP CRS coordinates -> full-resolution pixel/line, in place (GDAL bDstToSrc). */
  toPixel(xs: Float64Array, ys: Float64Array): void;
  /** Full-resolution pixel/line -> GCP CRS coordinates, in place. */
  toGeo(px: Float64Array, py: Float64Array): void;
  /** Identifies the fitted coefficients (keys per-isolate caches of warps from it). */
  readonly key: string;
}

/** Number of polynomial terms of each order (1: 3, 2: 6, 3: 10). */
const TERMS = [0, 3, 6, 10];

/** The polynomial terms of (e, n) for `order`, written into `t`. */
function terms(e: number, n: number, order: number, t: Float64Array): void {
  t[0] = 1;
  t[1] = e;
  t[2] = n;
  if (order < 2) return;
  t[3] = e * e;
  t[4] = e * n;
  t[5] = n * n;
  if (order < 3) return;
  t[6] = e * e * e;
  t[7] = e * e * n;
  t[8] = e * n * n;
  t[9] = n * n * n;
}

/**
 * Solves the square system a x = b (a: k x k row-major, two right-hand sides) by Gaussian elimination with partial
 * pivoting. Returns null when a pivot vanishes (GDAL: "NOT SOLVABLE").
 */
function solve(a: Float64Array, b1: Float64Array, b2: Float64Array, k: number): [Float64Array, Float64Array] | null {
  const scale = Math.max(...a.map(Math.abs));
  for (let col = 0; col < k; col++) {
    let pivot = col;
    for (let r = col + 1; r < k; r++) if (Math.abs(a[r * k + col]!) > Math.abs(a[pivot * k + col]!)) pivot = r;
    if (!(Math.abs(a[pivot * k + col]!) > scale * 1e-15)) return null;
    if (pivot !== col) {
      for (let c = 0; c < k; c++) [a[col * k + c], a[pivot * k + c]] = [a[pivot * k + c]!, a[col * k + c]!];
      [b1[col], b1[pivot]] = [b1[pivot]!, b1[col]!];
      [b2[col], b2[pivot]] = [b2[pivot]!, b2[col]!];
    }
    for (let r = col + 1; r < k; r++) {
      const f = a[r * k + col]! / a[col * k + col]!;
      if (f === 0) continue;
      for (let c = col; c < k; c++) a[r * k + c]! -= f * a[col * k + c]!;
      b1[r]! -= f * b1[col]!;
      b2[r]! -= f * b2[col]!;
    }
  }
  const [x1, x2] = [new Float64Array(k), new Float64Array(k)];
  for (let r = k - 1; r >= 0; r--) {
    let [s1, s2] = [b1[r]!, b2[r]!];
    for (let c = r + 1; c < k; c++) {
      s1 -= a[r * k + c]! * x1[c]!;
      s2 -= a[r * k + c]! * x2[c]!;
    }
    x1[r] = s1 / a[r * k + r]!;
    x2[r] = s2 / a[r * k + r]!;
  }
  return [x1, x2];
}

/** Least-squares coefficients (normal equations) of two polynomials of (e, n) fitting (u, v); null when singular. */
function fit(e: number[], n: number[], u: number[], v: number[], order: number) {
  const k = TERMS[order]!;
  const [ata, atu, atv, t] = [new Float64Array(k * k), new Float64Array(k), new Float64Array(k), new Float64Array(k)];
  for (let i = 0; i < e.length; i++) {
    terms(e[i]!, n[i]!, order, t);
    for (let r = 0; r < k; r++) {
      atu[r]! += t[r]! * u[i]!;
      atv[r]! += t[r]! * v[i]!;
      for (let c = 0; c < k; c++) ata[r * k + c]! += t[r]! * t[c]!;
    }
  }
  return solve(ata, atu, atv, k);
}

const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;

/** In-place evaluation of a centred polynomial pair at (xs, ys). */
function evaluator(cx: Float64Array, cy: Float64Array, order: number, meanE: number, meanN: number) {
  const t = new Float64Array(TERMS[order]!);
  return (xs: Float64Array, ys: Float64Array) => {
    for (let i = 0; i < xs.length; i++) {
      terms(xs[i]! - meanE, ys[i]! - meanN, order, t);
      let [u, v] = [0, 0];
      for (let c = 0; c < t.length; c++) {
        u += cx[c]! * t[c]!;
        v += cy[c]! * t[c]!;
      }
      xs[i] = u;
      ys[i] = v;
    }
  };
}

/**
 * The GCP polynomial transformer of `gcps`, fitted as gdalwarp's default (see the module comment).
 * @param order 1, 2 or 3; 0 (default) picks GDAL's order from the GCP count.
 * @throws EngineError invalid-file when there are fewer GCPs than the order needs (3, 6, 10) or they are degenerate
 *   (collinear, repeated).
 */
export function gcpTransformer(gcps: readonly Gcp[], order = 0): GcpTransformer {
  const n = gcps.length;
  const chosen = order === 0 ? (n >= 6 ? 2 : 1) : order;
  if (!(chosen >= 1 && chosen <= 3) || n < TERMS[chosen]!)
    throw invalidFile(`${n} ground control point(s) cannot define a polynomial of order ${chosen}.`);
  const [px, py] = [gcps.map((g) => g.pixel), gcps.map((g) => g.line)];
  const [gx, gy] = [gcps.map((g) => g.x), gcps.map((g) => g.y)];
  const [mpx, mpy, mgx, mgy] = [mean(px), mean(py), mean(gx), mean(gy)];
  const centred = (a: number[], m: number) => a.map((v) => v - m);
  const forward = fit(centred(px, mpx), centred(py, mpy), gx, gy, chosen);
  const reverse = fit(centred(gx, mgx), centred(gy, mgy), px, py, chosen);
  if (!forward || !reverse)
    throw invalidFile(
      `The ${n} ground control points are degenerate (a polynomial of order ${chosen} is not solvable).`,
    );
  return {
    order: chosen,
    toGeo: evaluator(forward[0], forward[1], chosen, mpx, mpy),
    toPixel: evaluator(reverse[0], reverse[1], chosen, mgx, mgy),
    key: `gcp${chosen}:${[...reverse[0], ...reverse[1], mgx, mgy].join(",")}`,
  };
}

/**
 * Footprint [minX, minY, maxX, maxY] in the GCP CRS of a width x height image: its edges (16 points each) through
 * the forward polynomial, as GDAL samples edges to bound a warp.
 */
export function gcpBounds(t: GcpTransformer, width: number, height: number): [number, number, number, number] {
  const steps = 16;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let s = 0; s <= steps; s++) {
    const f = s / steps;
    xs.push(f * width, f * width, 0, width);
    ys.push(0, height, f * height, f * height);
  }
  const [px, py] = [Float64Array.from(xs), Float64Array.from(ys)];
  t.toGeo(px, py);
  return [Math.min(...px), Math.min(...py), Math.max(...px), Math.max(...py)];
}

/**
 * The affine geotransform (GDAL order) that fits `gcps` best by least squares: the first-order polynomial of
 * pixel/line -> x, y (as GDALGCPsToGeoTransform with bApproxOK). An approximation of a GCP-georeferenced image's
 * grid, for its size and resolution; warps use gcpTransformer.
 * @throws EngineError invalid-file for fewer than 3 or degenerate GCPs.
 */
export function gcpGeoTransform(gcps: readonly Gcp[]): [number, number, number, number, number, number] {
  const t = gcpTransformer(gcps, 1);
  const [px, py] = [Float64Array.of(0, 1, 0), Float64Array.of(0, 0, 1)];
  t.toGeo(px, py);
  return [px[0]!, px[1]! - px[0]!, px[2]! - px[0]!, py[0]!, py[1]! - py[0]!, py[2]! - py[0]!];
}
