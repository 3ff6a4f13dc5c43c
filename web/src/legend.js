// The request builder's legend of the evalscript in the editor, read from the colour map the script declares, in
// the three forms of Sentinel Hub's custom-scripts repository (custom-scripts.sentinel-hub.com):
// - ColorRampVisualizer ramps: arrays of [value, 0xRRGGBB] stops (ndvi/eob.js, ndwi, ndmi, evi...);
// - colorBlend(value, [stops], [[r, g, b] 0..1, ...]) (the console's NDVI presets, cloud_statistics);
// - classes: `case <value>: return RGBToColor(r, g, b ...)` (0..255) under a `// <label> (<colour>)` comment (the
//   scene-classification script's SCL classes, ESA's Sen2Cor class names).
// Anything else (band composites, stretched values, FLOAT32 values) declares no colour map: the legend says so.

const NUM = String.raw`-?\d*\.?\d+(?:e-?\d+)?`;
const hex = (n) => `#${n.toString(16).padStart(6, "0")}`;
const rgb = (parts, scale) =>
  `#${parts
    .map((v) =>
      Math.round(Math.min(1, Math.max(0, v / scale)) * 255)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;

/** The ColorRampVisualizer-style ramps of `script`: [{name, stops: [{value, color '#rrggbb'}]}] (>= 2 stops each). */
function hexRamps(script) {
  const ramps = [];
  const decl = new RegExp(
    String.raw`(?:const|let|var)\s+(\w+)\s*=\s*\[((?:\s*\[\s*${NUM}\s*,\s*0x[0-9a-fA-F]{6}\s*\]\s*,?)+)\s*\]`,
    "g",
  );
  for (const [, name, body] of script.matchAll(decl)) {
    const stops = [...body.matchAll(new RegExp(String.raw`\[\s*(${NUM})\s*,\s*0x([0-9a-fA-F]{6})\s*\]`, "g"))].map(
      ([, v, c]) => ({ value: Number(v), color: hex(parseInt(c, 16)) }),
    );
    if (stops.length >= 2) ramps.push({ name, stops });
  }
  return ramps;
}

/** The value of a literal like `0.5` or `100/255` (the forms colour components take in the scripts). */
const quotient = (x) =>
  x
    .split("/")
    .map(Number)
    .reduce((a, b) => a / b);

/** The colorBlend ramps of `script` (stop values and [r, g, b] 0..1 colours given as literals). */
function blendRamps(script) {
  const ramps = [];
  const call = new RegExp(
    String.raw`colorBlend\(\s*([^,]+?),\s*\[((?:\s*${NUM}\s*,?)+)\]\s*,\s*\[((?:\s*\[[^\]]*\]\s*,?(?:\s*//[^\n]*)?)+)\s*\]`,
    "g",
  );
  for (const [, what, values, colours] of script.matchAll(call)) {
    const v = values.split(",").map(Number);
    const c = [...colours.replace(/\/\/[^\n]*/g, "").matchAll(/\[([^\]]*)\]/g)].map(([, t]) =>
      t.split(",").map(quotient),
    );
    if (v.length >= 2 && v.length === c.length)
      ramps.push({ name: what.trim(), stops: v.map((value, i) => ({ value, color: rgb(c[i], 1) })) });
  }
  return ramps;
}

/** The classes of `script`: `// label (colour)` then `case n: return RGBToColor(r, g, b...)`; [{value, label, color}]. */
function classes(script) {
  const re = new RegExp(
    String.raw`//\s*([^\n(]+?)\s*(?:\([^\n]*\))?\s*\n\s*case\s+(\d+)\s*:\s*return\s+RGBToColor\s*\(\s*(${NUM})\s*,\s*(${NUM})\s*,\s*(${NUM})`,
    "g",
  );
  return [...script.matchAll(re)].map(([, label, value, r, g, b]) => ({
    value: Number(value),
    label,
    color: rgb([r, g, b].map(Number), 255),
  }));
}

/**
 * The legend `script` declares: {ramps: [{name, stops: [{value, color}]}]} for colour ramps, {classes: [{value,
 * label, color}]} for classes, or {none: reason} when it declares no colour map. Colours are '#rrggbb'.
 */
export function legendOf(script) {
  const cls = classes(script);
  if (cls.length >= 2) return { classes: cls };
  const ramps = [...hexRamps(script), ...blendRamps(script)];
  if (ramps.length) return { ramps };
  if (/sampleType\s*:\s*(["'])FLOAT32\1/.test(script))
    return { none: "none (FLOAT32 values, no colour map): a GeoTIFF result is drawn over a viridis ramp" };
  return { none: "none (the script declares no colour map: a band composite or stretched values)" };
}

/** Draws the legend of `script` into element `el` (a list of swatches, or a gradient per ramp with its stops). */
export function renderLegend(el, script) {
  const lg = legendOf(script);
  el.replaceChildren();
  el.dataset.kind = lg.classes ? "classes" : lg.ramps ? "ramp" : "none";
  if (lg.none)
    return void el.append(
      Object.assign(document.createElement("p"), { className: "legend-note", textContent: `Legend: ${lg.none}.` }),
    );
  if (lg.classes) {
    const ul = document.createElement("ul");
    for (const c of lg.classes) {
      const li = document.createElement("li");
      li.dataset.value = String(c.value);
      li.append(
        Object.assign(document.createElement("span"), { className: "swatch", style: `background:${c.color}` }),
        `${c.value} ${c.label}`,
      );
      ul.append(li);
    }
    return void el.append(ul);
  }
  for (const r of lg.ramps) el.append(...rampElements(`Legend (${r.name}):`, r.stops));
}

/**
 * The elements of a colour ramp's legend: a title, a gradient bar (stops at their values' positions; the stops in
 * its data-stops) and the values at its ends and middle. `stops`: [{value, color}], ascending values.
 */
export function rampElements(title, stops) {
  const [lo, hi] = [stops[0].value, stops.at(-1).value];
  const at = (v) => (hi === lo ? 0 : ((v - lo) / (hi - lo)) * 100).toFixed(1);
  const bar = Object.assign(document.createElement("div"), { className: "ramp", title });
  bar.style.background = `linear-gradient(to right, ${stops.map((s) => `${s.color} ${at(s.value)}%`).join(", ")})`;
  bar.dataset.stops = JSON.stringify(stops);
  const labels = Object.assign(document.createElement("div"), { className: "ramp-labels" });
  labels.append(
    ...[lo, (lo + hi) / 2, hi].map((v) =>
      Object.assign(document.createElement("span"), { textContent: String(+v.toPrecision(4)) }),
    ),
  );
  return [Object.assign(document.createElement("p"), { className: "legend-note", textContent: title }), bar, labels];
}
