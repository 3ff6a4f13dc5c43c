// The request builder's presets, grouped by the collection they are written for: the repository's
// data/evalscripts (Sentinel Hub custom-scripts for Sentinel-2 L2A, served from /vendor/evalscripts/) and short
// scripts of this console for Sentinel-2 L1C, Sentinel-1 GRD and the BYOC / Zarr samples (bands B02-B08).
// A preset fits a built-in collection of its group, and a BYOC / Zarr collection that has the bands it reads
// (the scripts written here name them); one that does not fit the selected collection switches it (request.js).
// A FLOAT32 script switches the format to GeoTIFF (PNG and JPEG carry 8/16-bit integers only); a script with several
// outputs is judged by its "default" output (the one the builder requests): EO Browser's scripts write a visual
// RGBA default beside FLOAT32 index outputs, and are drawn as images.
// The BYOC / Zarr scripts read the collection's values as they are stored: integer bands are digital numbers
// (reflectance x 10000 in the Sentinel-2 samples), float bands reflectance; their gain is divided accordingly.

const v3 = (input, body, extra = "") => `//VERSION=3
${extra}function setup() {
  return { input: [${input.map((b) => JSON.stringify(b)).join(", ")}], output: { bands: 4 } };
}
function evaluatePixel(s) {
  ${body}
}
`;
const NDVI_RAMP = `return [...colorBlend((s.B08 - s.B04) / (s.B08 + s.B04), [-0.2, 0, 0.2, 0.4, 0.6, 0.8],
    [[0.5, 0.5, 0.5], [0.75, 0.7, 0.55], [0.85, 0.85, 0.35], [0.5, 0.75, 0.25], [0.2, 0.55, 0.15], [0.05, 0.35, 0.05]]), s.dataMask];`;
const S1_NOTE =
  "// The Sentinel-1 GRD sample is uncalibrated amplitude (DN 0..~800, not sigma0): stretched over DN 0..400.\n";

/** The line of a BYOC / Zarr script that sets DN, the stored value of reflectance 1 (10000 for integer bands). */
const dnLine = (dn) =>
  dn === 1
    ? "// the bands are floats: reflectance as stored\nconst DN = 1;\n"
    : `// the bands are integer digital numbers: reflectance x ${dn} (Sentinel-2's quantification value)\nconst DN = ${dn};\n`;

/**
 * DN of a BYOC / Zarr collection from its bands (additionalData.bands: {name: {sampleFormat, bitDepth}}): 1 when
 * every band is FLOAT, else 10000 (digital numbers of Sentinel-2 reflectance, its products' quantification value).
 */
export const dnOf = (bands) =>
  Object.values(bands ?? {}).length && Object.values(bands).every((b) => b.sampleFormat === "FLOAT") ? 1 : 10000;

/** Presets written here: group -> [{ id, name, bands (the collection bands it reads), script }]. */
const OWN = {
  "sentinel-2-l1c": [
    {
      id: "l1c/true-colour",
      name: "True colour (TOA, gain 2.5)",
      bands: ["B02", "B03", "B04"],
      script: v3(["B02", "B03", "B04", "dataMask"], "return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask];"),
    },
    {
      id: "l1c/false-colour",
      name: "False colour infrared (B08, B04, B03)",
      bands: ["B03", "B04", "B08"],
      script: v3(["B03", "B04", "B08", "dataMask"], "return [2.5 * s.B08, 2.5 * s.B04, 2.5 * s.B03, s.dataMask];"),
    },
    {
      id: "l1c/ndvi",
      name: "NDVI (colour ramp)",
      bands: ["B04", "B08"],
      script: v3(["B04", "B08", "dataMask"], NDVI_RAMP),
    },
    {
      id: "l1c/ndvi-raw",
      name: "NDVI values (FLOAT32, GeoTIFF)",
      bands: ["B04", "B08"],
      script: `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [(s.B08 - s.B04) / (s.B08 + s.B04)]; }
`,
    },
  ],
  "sentinel-1-grd": [
    {
      id: "s1/vv",
      name: "VV amplitude (grey)",
      bands: ["VV"],
      script: v3(["VV", "dataMask"], "const v = s.VV / 400;\n  return [v, v, v, s.dataMask];", S1_NOTE),
    },
    {
      id: "s1/vv-vh",
      name: "VV / VH false colour",
      bands: ["VV", "VH"],
      script: v3(
        ["VV", "VH", "dataMask"],
        "return [s.VV / 400, s.VH / 160, s.VV / (s.VH + 1) / 8, s.dataMask];",
        S1_NOTE,
      ),
    },
    {
      id: "s1/vh",
      name: "VH amplitude (grey)",
      bands: ["VH"],
      script: v3(["VH", "dataMask"], "const v = s.VH / 160;\n  return [v, v, v, s.dataMask];", S1_NOTE),
    },
  ],
  "sentinel-2-l2a": [
    {
      id: "l2a/false-colour",
      name: "false colour infrared (B08, B04, B03)",
      script: v3(["B03", "B04", "B08", "dataMask"], "return [2.5 * s.B08, 2.5 * s.B04, 2.5 * s.B03, s.dataMask];"),
    },
  ],
  "byoc/zarr": [
    {
      id: "byoc/true-colour",
      name: "True colour (B02, B03, B04)",
      bands: ["B02", "B03", "B04"],
      script: (dn) =>
        v3(
          ["B02", "B03", "B04", "dataMask"],
          "return [2.5 * s.B04 / DN, 2.5 * s.B03 / DN, 2.5 * s.B02 / DN, s.dataMask];",
          dnLine(dn),
        ),
    },
    {
      id: "byoc/false-colour",
      name: "False colour infrared (B08, B04, B03)",
      bands: ["B03", "B04", "B08"],
      script: (dn) =>
        v3(
          ["B03", "B04", "B08", "dataMask"],
          "return [2.5 * s.B08 / DN, 2.5 * s.B04 / DN, 2.5 * s.B03 / DN, s.dataMask];",
          dnLine(dn),
        ),
    },
    {
      id: "byoc/ndvi",
      name: "NDVI (colour ramp; B04, B08)",
      bands: ["B04", "B08"],
      script: v3(["B04", "B08", "dataMask"], NDVI_RAMP),
    },
  ],
};

/**
 * The groups whose scripts read a custom collection's values as stored: the BYOC / Zarr scripts (scaled by DN) and
 * the Sentinel-1 ones (uncalibrated amplitude DN, as the Sentinel-1 BYOC sample stores it). The optical built-in
 * collections' scripts assume reflectance 0..1: on digital numbers they draw a white square.
 */
const STORED_VALUES = new Set(["byoc/zarr", "sentinel-1-grd"]);

/** Group labels; the data/evalscripts presets and the L2A false colour are the Sentinel-2 L2A group. */
const GROUPS = {
  "sentinel-2-l2a": "Sentinel-2 L2A",
  "sentinel-2-l1c": "Sentinel-2 L1C",
  "sentinel-1-grd": "Sentinel-1 GRD",
  "byoc/zarr": "BYOC / Zarr samples (S2 bands)",
};

/** Why a repository preset cannot render the sample data (upstream defects kept on purpose, data/SOURCES.md §3). */
const CANNOT_RUN = {
  "sentinel-2__burned_area__script.js":
    "keeps only the scenes of 2017-05-15 and 2017-06-24 (the Knysna fires, in preProcessScenes); the sample data has none, so evaluatePixel fails with a TypeError",
  "sentinel-2__ndyi__script.js":
    "its body is a version 1 script under a //VERSION=3 line (an upstream defect): the service refuses it",
};

/**
 * True when preset `p` can run with `collection`: a built-in collection of its group, or a BYOC / Zarr / batch
 * collection whose bands (`bands`, names; null when unknown) include every band the preset reads, for a preset of
 * a group in STORED_VALUES.
 */
export function fits(p, collection, bands) {
  if (!/^(byoc|zarr|batch)-/.test(collection)) return p.group === collection;
  return Boolean(STORED_VALUES.has(p.group) && p.bands && bands && p.bands.every((b) => bands.includes(b)));
}

const FLOAT32 = /sampleType\s*:\s*(["'])FLOAT32\1|SampleType\.FLOAT32/;

/**
 * True when the evalscript's requested output ("default") is FLOAT32 (only image/tiff carries it): the output
 * object with id "default" when the script declares one (several outputs), else any FLOAT32 sample type.
 */
export function isFloat32(script) {
  const named = /\{[^{}]*\bid\s*:\s*(["'])default\1[^{}]*\}/.exec(script);
  return FLOAT32.test(named ? named[0] : script);
}

/** The builder's first preset (request.js starts with it). */
export const DEFAULT_PRESET = "sentinel-2__true_color__script.js";
const texts = new Map();
/** Text of data/evalscripts file `f`, fetched once. */
const scriptText = (f) => {
  if (!texts.has(f))
    texts.set(
      f,
      fetch(`/vendor/evalscripts/${encodeURIComponent(f)}`)
        .then((r) => r.text())
        .catch((err) => (texts.delete(f), Promise.reject(err))),
    );
  return texts.get(f);
};
let index = null;
/**
 * The presets' index (file names), fetched once; also starts fetching the default preset's script. Static files
 * without a token: main.js calls it on the log-in page, so they are here when the builder opens.
 */
export const prefetchPresets = () => {
  scriptText(DEFAULT_PRESET).catch(() => {});
  return (index ??= fetch("/vendor/evalscripts/index.json")
    .then((r) => r.json())
    .catch((err) => ((index = null), Promise.reject(err))));
};

/**
 * Fills `select` with one optgroup per collection group; resolves to `preset(value)` -> {group, name, bands?,
 * cannotRun?, load(dn): Promise<script text>} (undefined for an unknown value); `dn` (dnOf) scales the BYOC / Zarr
 * scripts.
 */
export async function loadPresets(select) {
  const files = await prefetchPresets();
  const all = new Map();
  for (const f of files) {
    const name = f
      .replace(/^sentinel-2__/, "")
      .replace(/\.js$/, "")
      .replace(/__/g, " / ");
    all.set(f, {
      group: "sentinel-2-l2a",
      name,
      cannotRun: CANNOT_RUN[f],
      load: () => scriptText(f),
    });
  }
  for (const [group, list] of Object.entries(OWN))
    for (const p of list)
      all.set(p.id, {
        group,
        name: p.name,
        bands: p.bands,
        load: async (dn = 10000) => (typeof p.script === "function" ? p.script(dn) : p.script),
      });
  for (const [group, label] of Object.entries(GROUPS)) {
    const og = Object.assign(document.createElement("optgroup"), { label });
    for (const [value, p] of all)
      if (p.group === group)
        og.append(new Option(p.cannotRun ? `${p.name} (cannot run on the samples)` : p.name, value));
    select.append(og);
  }
  select.append(new Option("(custom script)", ""));
  return (value) => all.get(value);
}
