// @ts-check
/**
 * The evalscript utility library (Sentinel Hub's runtime library) as a sandbox module: defines the globals
 * that library.ts LIBRARY_NAMES lists (the visualizer classes and legacy gradients are visualizers.js's, which
 * imports its helpers from here); library.ts documents each of them.
 */
/** A colour: 0xRRGGBB, or [r, g, b] (numbers; in [0, 1] for the visualizers). @typedef {number | number[]} Color */
/** [value, colour] pairs of a colour map or ramp. @typedef {[number, Color][]} ValueColors */

import { isArray } from "./concat.js"; // read before harden.js makes the global Array a Proxy (see there)

/** The global object, where the library's names are defined. @type {Record<string, any>} */
const g = globalThis;
/** The running script's EO Browser override variables (wrapper.ts OVERRIDE_NAMES), set by script.js per call. */
/** @type {((name: string) => any) | null} */
let overrideReader = null;
/** @param {((name: string) => any) | null} read the instance's override reader (wrapper.ts), null between calls */
export function setOverrideReader(read) {
  overrideReader = read;
}
/** The running script's value of override variable 'name', or undefined. @param {string} name */
export const override = (name) => (overrideReader ? overrideReader(name) : undefined);
/** Defines global 'name' (writable, configurable, not enumerable: harden.js freezes it). @type {(name: string, value: unknown) => void} */
export const define = (name, value) =>
  Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
const JAVA_DOUBLE_MAX_VAL = 1.7976931348623157e308;
define("JAVA_DOUBLE_MAX_VAL", JAVA_DOUBLE_MAX_VAL);
define(
  "SampleType",
  Object.freeze({ AUTO: "AUTO", UINT8: "UINT8", UINT16: "UINT16", INT8: "INT8", INT16: "INT16", FLOAT32: "FLOAT32" }),
);
define("Mosaicking", Object.freeze({ SIMPLE: "SIMPLE", ORBIT: "ORBIT", TILE: "TILE" }));

/** 0xRRGGBB -> [r, g, b] in 0..255. @param {number} hex */
export const hex2rgb = (hex) => [(hex >>> 16) & 255, (hex >>> 8) & 255, hex & 255];
/** [r, g, b] in 0..255 -> 0xRRGGBB. @param {number[]} rgb */
const rgb2hex = (rgb) => (rgb[0] << 16) + (rgb[1] << 8) + rgb[2];
/** A colour as [r, g, b] in [0, 1] (arrays are taken as such). @param {Color} c */
export const toUnitRgb = (c) => (isArray(c) ? c.slice(0, 3) : hex2rgb(c).map((x) => x / 255));
define("hex2rgb", hex2rgb);
define("rgb2hex", rgb2hex);

define(
  "index",
  /** @type {(x: number, y: number) => number} */ function index(x, y) {
    return x + y != 0 ? (x - y) / (x + y) : 0;
  },
);
define(
  "inverse",
  /** @type {(x: number) => number} */ function inverse(x) {
    return x != 0 ? 1 / x : JAVA_DOUBLE_MAX_VAL;
  },
);

/**
 * Linear mix of two numbers or two colour arrays: a * (1 - t) + b * t.
 * @param {unknown} a
 * @param {unknown} b
 * @param {number} t
 */
function mix(a, b, t) {
  if (typeof a === "number" && typeof b === "number") return a * (1 - t) + b * t;
  if (isArray(a) && isArray(b)) return a.map((v, i) => v * (1 - t) + b[i] * t);
  throw new TypeError('"colors" must be an array of numbers or an array of arrays of numbers');
}
/** @param {unknown} c */
const copy = (c) => (isArray(c) ? c.map((v) => v) : c);

/**
 * Linear between the colours of the enclosing limits, clamped at the ends (a new array); 'value' when limits or
 * colors is not an array.
 * @param {number} value
 * @param {unknown} limits ascending
 * @param {unknown} colors numbers or arrays, one per limit
 */
export function colorBlend(value, limits, colors) {
  if (!isArray(limits) || !isArray(colors)) return value;
  if (limits.length === 0 || !(value > limits[0])) return copy(colors[0]);
  for (let i = 1; i < limits.length; i++) {
    if (value <= limits[i]) return mix(colors[i - 1], colors[i], (value - limits[i - 1]) / (limits[i] - limits[i - 1]));
  }
  return copy(colors[colors.length - 1]);
}
define("colorBlend", colorBlend);
define(
  "valueInterpolate",
  /** @type {(value: number, limits: unknown, values: unknown) => unknown} */ function valueInterpolate(
    value,
    limits,
    values,
  ) {
    return colorBlend(value, limits, values);
  },
);

define(
  "colorMap",
  /** @type {(value: number, limits: unknown, colors: unknown) => unknown} */ function colorMap(value, limits, colors) {
    if (!isArray(limits) || !isArray(colors)) return value;
    for (let i = 0; i < limits.length; i++) if (value < limits[i]) return colors[i];
    return colors[colors.length - 1];
  },
);

define(
  "combine",
  /** @type {(color1: any, color2: any, alpha: number) => Color} */ function combine(color1, color2, alpha) {
    if (isArray(color1))
      return color1.map((/** @type {number} */ c, /** @type {number} */ i) => c * alpha + color2[i] * (1 - alpha));
    const a = hex2rgb(color1),
      b = hex2rgb(color2);
    return rgb2hex([0, 1, 2].map((i) => Math.round(a[i] * alpha + b[i] * (1 - alpha))));
  },
);

/**
 * The Landsat 8 QA band's bit fields.
 * @param {number} value
 */
function decodeLs8Qa(value) {
  return {
    designatedFill: value & 1,
    terrainOcclusion: (value >> 1) & 1,
    radiometricSaturation: (value >> 2) & 3,
    cloud: (value >> 4) & 1,
    cloudConfidence: (value >> 5) & 3,
    cloudShadowConfidence: (value >> 7) & 3,
    snowIceConfidence: (value >> 9) & 3,
    cirrusConfidence: (value >> 11) & 3,
  };
}

define("decodeLs8Qa", decodeLs8Qa);
