/**
 * The evalscript utility library of the sandbox: its source is lib.js (loaded as a module by sandbox.ts). It
 * defines, as globals, Sentinel Hub's runtime library: what their documentation lists under "Utility Functions"
 * (docs.sentinel-hub.com/api/latest/evalscript/functions) and what their public runtime library defines (the
 * library source the custom-scripts repository's scripts run against). Written from that API, not copied.
 *
 * Visualizers (every one has process(value) and processList(values) = values.map(process)):
 * - ColorMapVisualizer(valColPairs): step map, [value, 0xRRGGBB] sorted ascending; getColorFromValue(v) = the
 *   colour of the last pair whose value <= v (the first pair's below it), as given; process(v) = that colour
 *   as [r, g, b] in [0, 1]; static createDefaultColorMap() (the documented 13-step NDVI map).
 * - ColorRampVisualizer(ramps, minVal?, maxVal?): linear RGB interpolation between [value, colour] ramps
 *   (hex or [r, g, b] in [0, 1]; sorted by value; clamped at the ends; minVal/maxVal rescale the ramp values
 *   linearly); static createRedTemperature / createWhiteGreen / createBlueRed(minVal, maxVal).
 * - ColorGradientVisualizer(valColPairs, minVal = 0, maxVal = 1) (legacy): pairs [fraction, hex], fraction 1
 *   at minVal and 0 at maxVal; getColor(v) = hex colour (combine() between the enclosing pairs); the same statics.
 * - DefaultVisualizer(minValue = 0, maxValue = 1, gain = 1, offset = 0, gamma = 1): v = gain * (value -
 *   minValue) / (maxValue - minValue) + offset; with gamma != 1 max(0, v) ^ gamma (not clamped, as Sentinel
 *   Hub's), else v clamped to [0, 1]; clamp(num, min, max); fields highlightPoint 0.92, clipPoint 2,
 *   highlightAdjust (0 < maxValue < 1), highlightFactor (1 - 0.92) / (2 - 0.92).
 * - HighlightCompressVisualizer(same arguments): v as above, gamma, then when highlightAdjust, values above
 *   0.92 compressed: 0.92 + (v - 0.92) * highlightFactor; clamped to [0, 1].
 * - HighlightCompressVisualizerSingle: the same, process(v) returns [value].
 * - Identity: process(v) = v when an array, else [v].
 * - EO Browser overrides, read from the script's variables of those names when defined (EO Browser prepends e.g.
 *   `var gainOverride = 2;`; wrapper.ts OVERRIDE_NAMES): gainOverride / offsetOverride / gammaOverride replace
 *   the constructor's gain / offset / gamma; rangeOverrides[i] = [lo, hi] remaps the stretched value of
 *   component i (process(value, i)) with colorBlend(v, [lo, hi], [0, 1]) (Default and HighlightCompress).
 * Functions: index(x, y) = (x - y) / (x + y), 0 when x + y == 0; inverse(x) = 1 / x (JAVA_DOUBLE_MAX_VAL for 0);
 * colorBlend(value, limits, colors) and its alias valueInterpolate: linear between the colours (numbers or
 * arrays) of the enclosing limits, clamped at the ends (returns a new array: Sentinel Hub's older library wrote
 * into the caller's colour array); colorMap(value, limits, colors): step; combine(color1, color2, alpha) =
 * color1 * alpha + color2 * (1 - alpha) per channel (hex numbers, rounded, or RGB arrays); hex2rgb(0xRRGGBB) =
 * [r, g, b] in 0..255; rgb2hex; decodeLs8Qa(value): the Landsat 8 QA bit fields.
 * Constants: JAVA_DOUBLE_MAX_VAL, SampleType.*, Mosaicking.*, and the legacy gradients blueRed, redTemperature,
 * greenWhite ([fraction, hex] pairs for ColorGradientVisualizer).
 */
/** The globals lib.js defines. */
export const LIBRARY_NAMES = [
  "JAVA_DOUBLE_MAX_VAL",
  "SampleType",
  "Mosaicking",
  "hex2rgb",
  "rgb2hex",
  "index",
  "inverse",
  "colorBlend",
  "valueInterpolate",
  "colorMap",
  "combine",
  "ColorMapVisualizer",
  "ColorRampVisualizer",
  "ColorGradientVisualizer",
  "DefaultVisualizer",
  "HighlightCompressVisualizer",
  "HighlightCompressVisualizerSingle",
  "Identity",
  "decodeLs8Qa",
  "blueRed",
  "redTemperature",
  "greenWhite",
] as const;
