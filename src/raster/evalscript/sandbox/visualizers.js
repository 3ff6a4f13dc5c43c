// @ts-check
/**
 * The visualizers of the evalscript utility library (Sentinel Hub's runtime library) as a sandbox module: the
 * classes ColorMapVisualizer, ColorRampVisualizer, ColorGradientVisualizer, DefaultVisualizer,
 * HighlightCompressVisualizer(Single) and Identity, and the legacy gradients (blueRed, redTemperature,
 * greenWhite), defined as globals beside lib.js's (library.ts LIBRARY_NAMES lists them and documents each).
 */
/** @typedef {import("./lib.js").Color} Color */
/** @typedef {import("./lib.js").ValueColors} ValueColors */

import { isArray } from "./concat.js"; // read before harden.js makes the global Array a Proxy (see there)
import { colorBlend, define, hex2rgb, override, toUnitRgb } from "./lib.js";

/** The global object (ColorGradientVisualizer calls the global combine). @type {Record<string, any>} */
const g = globalThis;

class ColorMapVisualizer {
  /** @param {ValueColors} valColPairs ascending values */
  constructor(valColPairs) {
    this.valColPairs = valColPairs;
  }
  /** @param {number} value */
  getColorFromValue(value) {
    let color = this.valColPairs[0][1];
    for (const [limit, c] of this.valColPairs) {
      if (value < limit) break;
      color = c;
    }
    return color;
  }
  /** @param {number} value */
  process(value) {
    return toUnitRgb(this.getColorFromValue(value));
  }
  /** @param {number[]} values */
  processList(values) {
    return values.map((x) => this.process(x));
  }
  static createDefaultColorMap() {
    return new ColorMapVisualizer([
      [-1.0, 0x000000],
      [-0.2, 0xff0000],
      [-0.1, 0x9a0000],
      [0.0, 0x660000],
      [0.1, 0xffff33],
      [0.2, 0xcccc33],
      [0.3, 0x666600],
      [0.4, 0x33ffff],
      [0.5, 0x33cccc],
      [0.6, 0x006666],
      [0.7, 0x33ff33],
      [0.8, 0x33cc33],
      [0.9, 0x006600],
    ]);
  }
}

/**
 * Legacy gradients: [fraction, colour], fraction 1 at minVal and 0 at maxVal.
 * @type {Record<"blueRed" | "redTemperature" | "greenWhite", ValueColors>}
 */
const GRADIENTS = {
  blueRed: [
    [1, 0x000080],
    [0.875, 0x0000ff],
    [0.625, 0x00ffff],
    [0.375, 0xffff00],
    [0.125, 0xff0000],
    [0, 0x800000],
  ],
  redTemperature: [
    [1, 0x000000],
    [0.525, 0xae0000],
    [0.3, 0xff6e00],
    [0.25, 0xff8600],
    [0, 0xffffff],
  ],
  greenWhite: [
    [1, 0x000000],
    [0.6, 0x006600],
    [0.3, 0x80b300],
    [0, 0xffffff],
  ],
};
for (const [name, pairs] of Object.entries(GRADIENTS))
  define(
    name,
    pairs.map((p) => p.slice()),
  );
/**
 * A legacy gradient as a ramp over [minVal, maxVal], ascending.
 * @param {keyof typeof GRADIENTS} name
 * @param {number} minVal
 * @param {number} maxVal
 * @returns {ValueColors}
 */
const gradientRamp = (name, minVal, maxVal) =>
  GRADIENTS[name]
    .map(([f, c]) => /** @type {[number, Color]} */ ([minVal * f + maxVal * (1 - f), c]))
    .sort((a, b) => a[0] - b[0]);

class ColorRampVisualizer {
  /**
   * @param {ValueColors} ramps
   * @param {number} [minVal] the lowest ramp value is rescaled to it
   * @param {number} [maxVal] the highest ramp value is rescaled to it
   */
  constructor(ramps, minVal, maxVal) {
    ramps = [...ramps].sort((a, b) => a[0] - b[0]);
    const lo = ramps[0][0],
      hi = ramps[ramps.length - 1][0];
    const min = minVal === undefined ? lo : minVal,
      max = maxVal === undefined ? hi : maxVal;
    const scale = hi === lo ? 0 : (max - min) / (hi - lo);
    this.values = ramps.map(([v]) => min + (v - lo) * scale);
    this.colors = ramps.map(([, c]) => toUnitRgb(c));
  }
  /** @param {number} value */
  process(value) {
    const v = this.values,
      c = this.colors,
      n = v.length;
    if (!(value > v[0])) return [c[0][0], c[0][1], c[0][2]];
    for (let i = 1; i < n; i++) {
      if (value <= v[i]) {
        const a = c[i - 1],
          b = c[i],
          t = (value - v[i - 1]) / (v[i] - v[i - 1]);
        return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
      }
    }
    return [c[n - 1][0], c[n - 1][1], c[n - 1][2]];
  }
  /** @param {number[]} values */
  processList(values) {
    return values.map((x) => this.process(x));
  }
  /** @param {number} minVal @param {number} maxVal */
  static createRedTemperature(minVal, maxVal) {
    return new ColorRampVisualizer(gradientRamp("redTemperature", minVal, maxVal));
  }
  /** @param {number} minVal @param {number} maxVal */
  static createWhiteGreen(minVal, maxVal) {
    return new ColorRampVisualizer(gradientRamp("greenWhite", minVal, maxVal));
  }
  /** @param {number} minVal @param {number} maxVal */
  static createBlueRed(minVal, maxVal) {
    return new ColorRampVisualizer(gradientRamp("blueRed", minVal, maxVal));
  }
}

class ColorGradientVisualizer {
  /**
   * @param {ValueColors} valColPairs [fraction, 0xRRGGBB]: fraction 1 at minVal, 0 at maxVal
   * @param {number} [minVal]
   * @param {number} [maxVal]
   */
  constructor(valColPairs, minVal = 0.0, maxVal = 1.0) {
    this.minVal = minVal;
    this.maxVal = maxVal;
    this.valColPairs = valColPairs.map(([f, c]) => /** @type {[number, Color]} */ ([minVal * f + maxVal * (1 - f), c]));
  }
  /** @param {number} value */
  getColor(value) {
    const p = this.valColPairs,
      n = p.length;
    if (value <= this.minVal) return p[0][1];
    if (value >= this.maxVal) return p[n - 1][1];
    for (let i = 1; i < n; i++) {
      if (value > p[i - 1][0] && value <= p[i][0])
        return g.combine(p[i][1], p[i - 1][1], (value - p[i - 1][0]) / (p[i][0] - p[i - 1][0]));
    }
    return p[n - 1][1];
  }
  /** @param {number} value */
  process(value) {
    return hex2rgb(/** @type {number} */ (this.getColor(value))).map((x) => x / 255);
  }
  /** @param {number[]} values */
  processList(values) {
    return values.map((x) => this.process(x));
  }
  /** @param {number} minVal @param {number} maxVal */
  static createRedTemperature(minVal, maxVal) {
    return new ColorGradientVisualizer(GRADIENTS.redTemperature, minVal, maxVal);
  }
  /** @param {number} minVal @param {number} maxVal */
  static createWhiteGreen(minVal, maxVal) {
    return new ColorGradientVisualizer(GRADIENTS.greenWhite, minVal, maxVal);
  }
  /** @param {number} minVal @param {number} maxVal */
  static createBlueRed(minVal, maxVal) {
    return new ColorGradientVisualizer(GRADIENTS.blueRed, minVal, maxVal);
  }
}

/** Linear stretch of [minValue, maxValue] with gain/offset (EO Browser's overrides win), rangeOverrides, gamma. */
class DefaultVisualizer {
  /**
   * @param {number} [minValue]
   * @param {number} [maxValue]
   * @param {number} [gain]
   * @param {number} [offset]
   * @param {number} [gamma]
   */
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
  /** @type {(num: number, min: number, max: number) => number} */
  clamp(num, min, max) {
    return Math.max(Math.min(num, max), min);
  }
  /**
   * gain * (value - minValue) / (maxValue - minValue) + offset, then rangeOverrides[i] when given.
   * @param {number} value
   * @param {number} [i]
   * @returns {number}
   */
  stretch(value, i) {
    const v = this.gain * (value - this.minValue) * this.factor + this.offset;
    const ranges = i !== undefined ? override("rangeOverrides") : undefined;
    const range = ranges != null ? ranges[/** @type {number} */ (i)] : undefined;
    return range !== undefined ? /** @type {number} */ (colorBlend(v, [range[0], range[1]], [0, 1])) : v;
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
  /** @param {number[]} values */
  processList(values) {
    return values.map((x, i) => this.process(x, i));
  }
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
    if (this.highlightAdjust && v > this.highlightPoint)
      v = this.clamp(this.highlightPoint + (v - this.highlightPoint) * this.highlightFactor, 0.0, 1.0);
    return this.clamp(v, 0.0, 1.0);
  }
}

class HighlightCompressVisualizerSingle extends HighlightCompressVisualizer {
  /** @param {number} value */
  process(value) {
    return [/** @type {number} */ (super.process(value))];
  }
  /** @param {number[]} values */
  processList(values) {
    return values.map((x) => this.process(x));
  }
}

class Identity {
  /** @param {unknown} value */
  process(value) {
    return isArray(value) ? value : [value];
  }
  /** @param {unknown[]} values */
  processList(values) {
    return values.map((x) => this.process(x));
  }
}

for (const [name, value] of Object.entries({
  ColorMapVisualizer,
  ColorRampVisualizer,
  ColorGradientVisualizer,
  DefaultVisualizer,
  HighlightCompressVisualizer,
  HighlightCompressVisualizerSingle,
  Identity,
}))
  define(name, value);
