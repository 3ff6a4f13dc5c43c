// The "plain" variant of bench/profile-sandbox.mjs (`--plain`): what a real evalscript costs in V8 as its author
// wrote it, with none of EO Edge's runtime around it. The script's own text runs in node's realm (vm, no
// instrumentation, no budget, no hardening, no sandbox isolate), with the utility library (sandbox/lib.js) as its
// globals, over the same block of pixels: per pixel one reused sample object is filled with the band values and
// evaluatePixel(sample, scenes, inputMetadata, customData, outputMetadata) is called; the returned numbers are stored
// into one Float32Array per output (a number, an array of the output's bands, or an object of such arrays by output
// id), without the conversion to UINT8 / UINT16 that the runtime does after its loop. SIMPLE mosaicking only.
// It prices the script's own work: the runtime's column path and writers can beat it (no sample object, stores that
// V8 keeps monomorphic), the general path pays about it plus the sandbox's guards.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInThisContext } from "node:vm";

/**
 * The bands a normalized setup requests, per datasource id ("" without data fusion; first request order, each once),
 * and the units asked for each band name.
 * @returns {{ bandsBy: Record<string, string[]>, units: Record<string, string | undefined> }}
 */
export function inputBands(setup) {
  const bandsBy = {},
    units = {};
  for (const i of setup.inputs) {
    const list = (bandsBy[i.datasource ?? ""] ??= []);
    i.bands.forEach((b, k) => {
      if (!list.includes(b)) {
        list.push(b);
        units[b] = i.units?.[k];
      }
    });
  }
  return { bandsBy, units };
}

/**
 * setup and evaluatePixel of the evalscript text `source`, defined in this realm (the library's globals must be set).
 * @param {string} source
 */
function scriptFunctions(source) {
  const make = runInThisContext(`(function () {\n${source}\n;return { setup, evaluatePixel };\n})`);
  return make();
}

/**
 * Stores evaluatePixel's value `r` at pixel i into the outputs' values (outs: [{ id, bands, values }]).
 * @param {{ id: string, bands: number, values: Float32Array }[]} outs
 */
function storeAll(outs, r, i) {
  if (outs.length === 1 && (typeof r === "number" || Array.isArray(r))) return store(outs[0], r, i);
  for (const o of outs) store(o, r[o.id], i);
}
function store(o, r, i) {
  const nb = o.bands,
    v = o.values;
  if (typeof r === "number" || typeof r === "boolean") {
    v[i] = +r;
    return;
  }
  const base = i * nb;
  for (let k = 0; k < nb; k++) v[base + k] = r[k];
}

/**
 * Runs the plain variant in a child of profile-sandbox.mjs: `dir` holds lib.js (a plain copy, imported once) and
 * raw.js (the evalscript text); `bandsFor(names, units)` gives { bands, dataMask } for the setup's inputs.
 * @returns {Promise<{ ms: number[], hash: string }>} ms per timed evaluation (n of them, after one warm-up)
 */
export async function plainRun(dir, normalizeSetup, bandsFor, size, n, clock) {
  await import(pathToFileURL(join(dir, "lib.js")).href);
  const fns = scriptFunctions(readFileSync(join(dir, "raw.js"), "utf8"));
  const setup = normalizeSetup(fns.setup());
  if (setup.mosaicking !== "SIMPLE")
    throw new Error(`the plain variant runs SIMPLE mosaicking only, not ${setup.mosaicking}`);
  const { bandsBy, units } = inputBands(setup),
    names = bandsBy[""] ?? [];
  const { bands, dataMask } = bandsFor(names, units);
  const arrays = names.map((b) => (b === "dataMask" ? dataMask : bands[b]));
  const px = size * size,
    sample = Object.fromEntries(names.map((b) => [b, 0]));
  const scenes = [{ date: new Date("2020-02-19T11:34:25Z"), idx: 0 }],
    meta = { serviceVersion: "1.0.0", normalizationFactor: 0.0001 };
  const ms = [];
  for (let run = 0; run <= n; run++) {
    const outs = setup.outputs.map((o) => ({ id: o.id, bands: o.bands, values: new Float32Array(px * o.bands) }));
    const t0 = clock(),
      ep = fns.evaluatePixel;
    for (let i = 0; i < px; i++) {
      for (let k = 0; k < names.length; k++) sample[names[k]] = arrays[k][i];
      storeAll(outs, ep(sample, scenes, meta, {}, {}), i);
    }
    if (run > 0) ms.push(clock() - t0);
  }
  return { ms, hash: "plain" };
}
