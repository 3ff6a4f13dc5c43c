// @ts-check
/**
 * The evalscript utility library (Sentinel Hub's runtime library) as a sandbox module: defines the globals
 * that library.ts LIBRARY_NAMES lists; library.ts documents each of them.
 */
const g = globalThis;
/** The running script's EO Browser override variables (wrapper.ts OVERRIDE_NAMES), set by script.js per call. */
/** @type {((name: string) => any) | null} */
let overrideReader = null;
/** @param {((name: string) => any) | null} read the instance's override reader (wrapper.ts), null between calls */
export function setOverrideReader(read) { overrideReader = read; }
const override = (name) => (overrideReader ? overrideReader(name) : undefined);
const define = (name, value) => Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
const JAVA_DOUBLE_MAX_VAL = 1.7976931348623157e308;
define("JAVA_DOUBLE_MAX_VAL", JAVA_DOUBLE_MAX_VAL);
define("SampleType", Object.freeze({ AUTO: "AUTO", UINT8: "UINT8", UINT16: "UINT16", INT8: "INT8", INT16: "INT16", FLOAT32: "FLOAT32" }));
define("Mosaicking", Object.freeze({ SIMPLE: "SIMPLE", ORBIT: "ORBIT", TILE: "TILE" }));

const hex2rgb = (hex) => [(hex >>> 16) & 255, (hex >>> 8) & 255, hex & 255];
const rgb2hex = (rgb) => (rgb[0] << 16) + (rgb[1] << 8) + rgb[2];
const toUnitRgb = (c) => (Array.isArray(c) ? c.slice(0, 3) : hex2rgb(c).map((x) => x / 255));
define("hex2rgb", hex2rgb);
define("rgb2hex", rgb2hex);

define("index", function index(x, y) { return x + y != 0 ? (x - y) / (x + y) : 0; });
define("inverse", function inverse(x) { return x != 0 ? 1 / x : JAVA_DOUBLE_MAX_VAL; });

function mix(a, b, t) {
  if (typeof a === "number" && typeof b === "number") return a * (1 - t) + b * t;
  if (Array.isArray(a) && Array.isArray(b)) return a.map((v, i) => v * (1 - t) + b[i] * t);
  throw new TypeError('"colors" must be an array of numbers or an array of arrays of numbers');
}
const copy = (c) => (Array.isArray(c) ? c.slice() : c);

function colorBlend(value, limits, colors) {
  if (!Array.isArray(limits) || !Array.isArray(colors)) return value;
  if (limits.length === 0 || !(value > limits[0])) return copy(colors[0]);
  for (let i = 1; i < limits.length; i++) {
    if (value <= limits[i]) return mix(colors[i - 1], colors[i], (value - limits[i - 1]) / (limits[i] - limits[i - 1]));
  }
  return copy(colors[colors.length - 1]);
}
define("colorBlend", colorBlend);
define("valueInterpolate", function valueInterpolate(value, limits, values) { return colorBlend(value, limits, values); });

define("colorMap", function colorMap(value, limits, colors) {
  if (!Array.isArray(limits) || !Array.isArray(colors)) return value;
  for (let i = 0; i < limits.length; i++) if (value < limits[i]) return colors[i];
  return colors[colors.length - 1];
});

define("combine", function combine(color1, color2, alpha) {
  if (Array.isArray(color1)) return color1.map((c, i) => c * alpha + color2[i] * (1 - alpha));
  const a = hex2rgb(color1), b = hex2rgb(color2);
  return rgb2hex([0, 1, 2].map((i) => Math.round(a[i] * alpha + b[i] * (1 - alpha))));
});

class ColorMapVisualizer {
  constructor(valColPairs) { this.valColPairs = valColPairs; }
  getColorFromValue(value) {
    let color = this.valColPairs[0][1];
    for (const [limit, c] of this.valColPairs) { if (value < limit) break; color = c; }
    return color;
  }
  process(value) { return toUnitRgb(this.getColorFromValue(value)); }
  processList(values) { return values.map((x) => this.process(x)); }
  static createDefaultColorMap() {
    return new ColorMapVisualizer([[-1.0, 0x000000], [-0.2, 0xff0000], [-0.1, 0x9a0000], [0.0, 0x660000], [0.1, 0xffff33],
      [0.2, 0xcccc33], [0.3, 0x666600], [0.4, 0x33ffff], [0.5, 0x33cccc], [0.6, 0x006666], [0.7, 0x33ff33], [0.8, 0x33cc33], [0.9, 0x006600]]);
  }
}

/** Legacy gradients: [fraction, colour], fraction 1 at minVal and 0 at maxVal. */
const GRADIENTS = {
  blueRed: [[1, 0x000080], [0.875, 0x0000ff], [0.625, 0x00ffff], [0.375, 0xffff00], [0.125, 0xff0000], [0, 0x800000]],
  redTemperature: [[1, 0x000000], [0.525, 0xae0000], [0.3, 0xff6e00], [0.25, 0xff8600], [0, 0xffffff]],
  greenWhite: [[1, 0x000000], [0.6, 0x006600], [0.3, 0x80b300], [0, 0xffffff]],
};
for (const [name, pairs] of Object.entries(GRADIENTS)) define(name, pairs.map((p) => p.slice()));
const gradientRamp = (name, minVal, maxVal) =>
  GRADIENTS[name].map(([f, c]) => [minVal * f + maxVal * (1 - f), c]).sort((a, b) => a[0] - b[0]);

class ColorRampVisualizer {
  constructor(ramps, minVal, maxVal) {
    ramps = [...ramps].sort((a, b) => a[0] - b[0]);
    const lo = ramps[0][0], hi = ramps[ramps.length - 1][0];
    const min = minVal === undefined ? lo : minVal, max = maxVal === undefined ? hi : maxVal;
    const scale = hi === lo ? 0 : (max - min) / (hi - lo);
    this.values = ramps.map(([v]) => min + (v - lo) * scale);
    this.colors = ramps.map(([, c]) => toUnitRgb(c));
  }
  process(value) {
    const v = this.values, c = this.colors, n = v.length;
    if (!(value > v[0])) return [c[0][0], c[0][1], c[0][2]];
    for (let i = 1; i < n; i++) {
      if (value <= v[i]) {
        const a = c[i - 1], b = c[i], t = (value - v[i - 1]) / (v[i] - v[i - 1]);
        return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
      }
    }
    return [c[n - 1][0], c[n - 1][1], c[n - 1][2]];
  }
  processList(values) { return values.map((x) => this.process(x)); }
  static createRedTemperature(minVal, maxVal) { return new ColorRampVisualizer(gradientRamp("redTemperature", minVal, maxVal)); }
  static createWhiteGreen(minVal, maxVal) { return new ColorRampVisualizer(gradientRamp("greenWhite", minVal, maxVal)); }
  static createBlueRed(minVal, maxVal) { return new ColorRampVisualizer(gradientRamp("blueRed", minVal, maxVal)); }
}

class ColorGradientVisualizer {
  constructor(valColPairs, minVal = 0.0, maxVal = 1.0) {
    this.minVal = minVal;
    this.maxVal = maxVal;
    this.valColPairs = valColPairs.map(([f, c]) => [minVal * f + maxVal * (1 - f), c]);
  }
  getColor(value) {
    const p = this.valColPairs, n = p.length;
    if (value <= this.minVal) return p[0][1];
    if (value >= this.maxVal) return p[n - 1][1];
    for (let i = 1; i < n; i++) {
      if (value > p[i - 1][0] && value <= p[i][0]) return g.combine(p[i][1], p[i - 1][1], (value - p[i - 1][0]) / (p[i][0] - p[i - 1][0]));
    }
    return p[n - 1][1];
  }
  process(value) { return hex2rgb(this.getColor(value)).map((x) => x / 255); }
  processList(values) { return values.map((x) => this.process(x)); }
  static createRedTemperature(minVal, maxVal) { return new ColorGradientVisualizer(GRADIENTS.redTemperature, minVal, maxVal); }
  static createWhiteGreen(minVal, maxVal) { return new ColorGradientVisualizer(GRADIENTS.greenWhite, minVal, maxVal); }
  static createBlueRed(minVal, maxVal) { return new ColorGradientVisualizer(GRADIENTS.blueRed, minVal, maxVal); }
}

/** Linear stretch of [minValue, maxValue] with gain/offset (EO Browser's overrides win), rangeOverrides, gamma. */
class DefaultVisualizer {
  constructor(minValue = 0.0, maxValue = 1.0, gain = 1.0, offset = 0.0, gamma = 1.0) {
    this.minValue = minValue;
    this.maxValue = maxValue;
    this.gain = override("gainOverride") || gain;
    this.offset = override("offsetOverride") || offset;
    this.gamma = override("gammaOverride") || gamma;
    this.highlightPoint = 0.92;
    this.highlightAdjust = 0 < maxValue && maxValue < 1;
    this.factor = 1.0 / (maxValue - minValue);
    this.clipPoint = 2.0;
    this.highlightFactor = (1.0 - this.highlightPoint) / (this.clipPoint - this.highlightPoint);
  }
  clamp(num, min, max) { return Math.max(Math.min(num, max), min); }
  stretch(value, i) {
    const v = this.gain * (value - this.minValue) * this.factor + this.offset;
    const ranges = i !== undefined ? override("rangeOverrides") : undefined;
    const range = ranges != null ? ranges[i] : undefined;
    return range !== undefined ? colorBlend(v, [range[0], range[1]], [0, 1]) : v;
  }
  /**
   * @param {number} value
   * @param {number} [i] component index (rangeOverrides)
   * @returns {number | number[]} a number (HighlightCompressVisualizerSingle: [number])
   */
  process(value, i) {
    const v = this.stretch(value, i);
    return this.gamma != 1.0 ? Math.pow(Math.max(0, v), this.gamma) : this.clamp(v, 0.0, 1.0);
  }
  processList(values) { return values.map((x, i) => this.process(x, i)); }
}

/** DefaultVisualizer whose values above 0.92 are compressed towards 1 (clip point 2) when 0 < maxValue < 1. */
class HighlightCompressVisualizer extends DefaultVisualizer {
  /**
   * @param {number} value
   * @param {number} [i] component index (rangeOverrides)
   * @returns {number | number[]} a number (HighlightCompressVisualizerSingle: [number])
   */
  process(value, i) {
    let v = this.stretch(value, i);
    if (this.gamma != 1.0) v = Math.pow(Math.max(0, v), this.gamma);
    if (this.highlightAdjust && v > this.highlightPoint) v = this.clamp(this.highlightPoint + (v - this.highlightPoint) * this.highlightFactor, 0.0, 1.0);
    return this.clamp(v, 0.0, 1.0);
  }
}

class HighlightCompressVisualizerSingle extends HighlightCompressVisualizer {
  /** @param {number} value */
  process(value) { return [/** @type {number} */ (super.process(value))]; }
  processList(values) { return values.map((x) => this.process(x)); }
}

class Identity {
  process(value) { return Array.isArray(value) ? value : [value]; }
  processList(values) { return values.map((x) => this.process(x)); }
}

function decodeLs8Qa(value) {
  return {
    designatedFill: value & 1, terrainOcclusion: (value >> 1) & 1, radiometricSaturation: (value >> 2) & 3,
    cloud: (value >> 4) & 1, cloudConfidence: (value >> 5) & 3, cloudShadowConfidence: (value >> 7) & 3,
    snowIceConfidence: (value >> 9) & 3, cirrusConfidence: (value >> 11) & 3,
  };
}

for (const [name, value] of Object.entries({
  ColorMapVisualizer, ColorRampVisualizer, ColorGradientVisualizer, DefaultVisualizer, HighlightCompressVisualizer,
  HighlightCompressVisualizerSingle, Identity, decodeLs8Qa,
})) define(name, value);
