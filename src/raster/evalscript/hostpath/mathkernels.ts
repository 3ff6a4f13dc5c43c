/**
 * The Math kernels of the interpreter (./interpret.ts), one written-out loop per function (MATH1 / MATH2 order of
 * ./program.ts): V8 inlines a builtin called by name and keeps the result unboxed; called through a variable, each
 * call returned a boxed number (measured in node 22: l2a_optimized's Math.pow loops 5-10x slower, 8 % of the time
 * in the garbage collector).
 */
import type { Kernel } from "./kernel";

/** MATH1's kernels, by k. */
export const MATH1_KERNELS: Kernel[] = [
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.abs(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.sqrt(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.cbrt(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.exp(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.expm1(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.log(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.log1p(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.log2(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.log10(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.sin(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.cos(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.tan(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.asin(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.acos(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.atan(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.sinh(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.cosh(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.tanh(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.asinh(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.acosh(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.atanh(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.floor(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.ceil(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.round(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.trunc(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.sign(a[i]!);
  },
  (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.fround(a[i]!);
  },
];

/** MATH2's kernels, by k. */
export const MATH2_KERNELS: Kernel[] = [
  (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.pow(a[i]!, b[i]!);
  },
  (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.atan2(a[i]!, b[i]!);
  },
  (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.min(a[i]!, b[i]!);
  },
  (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Math.max(a[i]!, b[i]!);
  },
];
