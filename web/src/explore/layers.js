// The exploration view's layer sets, one per collection, as EO Browser offers them: each layer is an evalscript in
// the style of Sentinel Hub's custom-scripts repository (custom-scripts.sentinel-hub.com): EO Browser's own
// scripts of data/evalscripts where the repository has them (NDVI, NDWI, moisture index: ColorRampVisualizer
// ramps; scene classification: RGBToColor classes), short scripts written here for the band composites, Sentinel-1,
// Landsat and the DEM (colorBlend ramps). Legends come from the scripts' own colour stops (../legend.js); a band
// composite has none and says which bands it shows. The DEM hillshade is computed in the page (hillshade.js) from the
// DEM's FLOAT32 elevations: an evalscript sees one pixel at a time and cannot compute a slope.
// A user's BYOC / Zarr collection gets a layer set from its bands: a true colour composite when it has B02-B04,
// else each of its first bands stretched in grey (the stored values scaled by DN, ../presets.js).
import { dnOf } from "../presets.js";

const v3 = (input, body, extra = "") => `//VERSION=3
${extra}function setup() {
  return { input: [${[...input, "dataMask"].map((b) => JSON.stringify(b)).join(", ")}], output: { bands: 4 } };
}
function evaluatePixel(s) {
  ${body}
}
`;
/** A layer of a script file of data/evalscripts (served from /vendor/evalscripts/). */
const file = (id, title, name) => ({ id, title, file: `sentinel-2__${name}.js` });
/** A band composite `r, g, b` (reflectance x gain). */
const rgb = (id, title, [r, g, b], gain = 2.5) => ({
  id,
  title,
  bands: `${r}, ${g}, ${b}`,
  script: v3([...new Set([r, g, b])], `return [${gain} * s.${r}, ${gain} * s.${g}, ${gain} * s.${b}, s.dataMask];`),
});
/** A colorBlend ramp of expression `expr` over `stops` with [r, g, b] 0..1 `colours`. */
const ramp = (id, title, input, expr, stops, colours) => ({
  id,
  title,
  script: v3(
    input,
    `return [...colorBlend(${expr}, ${JSON.stringify(stops)},\n    ${JSON.stringify(colours)}), s.dataMask];`,
  ),
});
const NDVI_STOPS = [-0.2, 0, 0.2, 0.4, 0.6, 0.8];
const NDVI_COLOURS = [
  [0.5, 0.5, 0.5],
  [0.75, 0.7, 0.55],
  [0.85, 0.85, 0.35],
  [0.5, 0.75, 0.25],
  [0.2, 0.55, 0.15],
  [0.05, 0.35, 0.05],
];
const S1_NOTE =
  "// The Sentinel-1 GRD sample is uncalibrated amplitude (DN 0..~800, not sigma0): stretched over DN 0..400.\n";

/** The built-in collections' layer sets: collection -> [{id, title, script | file, bands?, hillshade?}]. */
export const LAYER_SETS = {
  "sentinel-2-l2a": [
    rgb("TRUE_COLOR", "True colour", ["B04", "B03", "B02"]),
    rgb("FALSE_COLOR", "False colour (NIR)", ["B08", "B04", "B03"]),
    file("NDVI", "NDVI", "ndvi__eob"),
    file("NDWI", "NDWI (water)", "ndwi__eob"),
    file("MOISTURE", "Moisture index (NDMI)", "ndmi__eob"),
    rgb("SWIR", "SWIR", ["B12", "B8A", "B04"]),
    file("SCL", "Scene classification (SCL)", "scene-classification__script"),
  ],
  "sentinel-2-l1c": [
    rgb("TRUE_COLOR", "True colour (TOA)", ["B04", "B03", "B02"]),
    rgb("FALSE_COLOR", "False colour (NIR)", ["B08", "B04", "B03"]),
    file("NDVI", "NDVI", "ndvi__eob"),
    file("MOISTURE", "Moisture index (NDMI)", "ndmi__eob"),
    rgb("SWIR", "SWIR", ["B12", "B8A", "B04"]),
  ],
  "sentinel-1-grd": [
    {
      id: "VV",
      title: "VV (grey)",
      bands: "VV",
      script: v3(["VV"], "const v = s.VV / 400;\n  return [v, v, v, s.dataMask];", S1_NOTE),
    },
    {
      id: "VH",
      title: "VH (grey)",
      bands: "VH",
      script: v3(["VH"], "const v = s.VH / 160;\n  return [v, v, v, s.dataMask];", S1_NOTE),
    },
    {
      id: "FALSE_COLOR",
      title: "False colour (VV, VH, VV/VH)",
      bands: "VV, VH, VV/VH",
      script: v3(["VV", "VH"], "return [s.VV / 400, s.VH / 160, s.VV / (s.VH + 1) / 8, s.dataMask];", S1_NOTE),
    },
  ],
  "landsat-ot-l2": [
    rgb("TRUE_COLOR", "True colour", ["B04", "B03", "B02"]),
    rgb("FALSE_COLOR", "False colour (NIR)", ["B05", "B04", "B03"]),
    ramp("NDVI", "NDVI", ["B04", "B05"], "(s.B05 - s.B04) / (s.B05 + s.B04)", NDVI_STOPS, NDVI_COLOURS),
    ramp(
      "THERMAL",
      "Thermal (B10, kelvin)",
      ["B10"],
      "s.B10",
      [263, 283, 293, 303, 318],
      [
        [0, 0, 0.5],
        [0, 0.6, 1],
        [1, 1, 0.3],
        [1, 0.45, 0],
        [0.6, 0, 0],
      ],
    ),
  ],
  dem: [
    ramp(
      "GRAYSCALE",
      "Elevation (grey)",
      ["DEM"],
      "s.DEM",
      [0, 3000],
      [
        [0, 0, 0],
        [1, 1, 1],
      ],
    ),
    ramp(
      "COLOR",
      "Elevation (colour ramp)",
      ["DEM"],
      "s.DEM",
      [-10, 0, 200, 500, 1000, 2000, 4000],
      [
        [0.1, 0.3, 0.7],
        [0.2, 0.55, 0.3],
        [0.55, 0.75, 0.35],
        [0.9, 0.85, 0.5],
        [0.7, 0.5, 0.3],
        [0.55, 0.45, 0.4],
        [1, 1, 1],
      ],
    ),
    { id: "HILLSHADE", title: "Hillshade (sun 315°, 45°)", hillshade: true, script: hillshadeSource() },
  ],
};

/** The DEM elevations as FLOAT32 (metres): the input of the hillshade (hillshade.js). */
function hillshadeSource() {
  return `//VERSION=3
// DEM elevations (m); the console shades them (Horn's slope, sun azimuth 315°, altitude 45°)
function setup() {
  return { input: ["DEM", "dataMask"], output: { bands: 1, sampleType: "FLOAT32" } };
}
function evaluatePixel(s) {
  return [s.dataMask ? s.DEM : NaN];
}
`;
}

/** Collections with a cloud cover (Sentinel-2, Landsat); Sentinel-1, the DEM and BYOC have none in their requests. */
export const cloudy = (collection) => /^sentinel-2|^landsat/.test(collection);
/** The DEM has no dates (one elevation model). */
export const timeless = (collection) => collection === "dem";

/**
 * The layer set of a BYOC / Zarr collection from its bands ({name: {sampleFormat, bitDepth}}): true colour when it
 * has B02, B03 and B04, then each of its first four bands in grey, stretched over 0..0.4 reflectance x DN (radar
 * amplitudes over 0..400, as the Sentinel-1 layers).
 */
export function ownLayers(bands) {
  const names = Object.keys(bands ?? {});
  const dn = dnOf(bands);
  // radar amplitudes (VV, VH, HH, HV: Sentinel-1 DN 0..~800) over 0..400, reflectance over 0..0.4
  const scale = (b) => (/^(VV|VH|HH|HV)$/.test(b) ? `s.${b} / 400` : `s.${b} / ${0.4 * dn}`);
  const layers = [];
  if (["B02", "B03", "B04"].every((b) => names.includes(b)))
    layers.push({
      id: "TRUE_COLOR",
      title: "True colour",
      bands: "B04, B03, B02",
      script: v3(["B02", "B03", "B04"], `return [${scale("B04")}, ${scale("B03")}, ${scale("B02")}, s.dataMask];`),
    });
  for (const b of names.filter((n) => /^[A-Za-z_]\w*$/.test(n)).slice(0, 4))
    layers.push({
      id: `BAND_${b}`,
      title: `${b} (grey)`,
      bands: b,
      script: v3([b], `const v = ${scale(b)};\n  return [v, v, v, s.dataMask];`),
    });
  return layers;
}

/** The evalscript text of `layer` (fetched once for a file layer). */
export async function scriptOf(layer) {
  if (!layer.script) layer.script = await (await fetch(`/vendor/evalscripts/${layer.file}`)).text();
  return layer.script;
}
