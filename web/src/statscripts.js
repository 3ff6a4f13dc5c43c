// Evalscripts of the statistics page: spectral indices of Sentinel-2 (and Sentinel-1 backscatter), optionally with
// a cloud mask from the Sentinel-2 L2A scene classification (SCL) folded into dataMask, so the Statistical API
// leaves masked pixels out of every statistic (their count is noDataCount).
// Index formulas: Sentinel Hub custom-scripts repository (sentinel-2/ndvi, ndwi, ndmi, nbr, evi; sentinel-1).
// SCL classes (ESA Sentinel-2 L2A product definition, table "Scene classification values"): 0 no data,
// 1 saturated or defective, 2 dark area pixels, 3 cloud shadows, 4 vegetation, 5 not vegetated, 6 water,
// 7 unclassified, 8 cloud medium probability, 9 cloud high probability, 10 thin cirrus, 11 snow or ice.

/** Index presets: id (the script's output id), label, bands read, expression over sample `s`. */
export const INDICES = [
  { id: "ndvi", label: "NDVI (B08, B04)", bands: ["B04", "B08"], expr: "(s.B08 - s.B04) / (s.B08 + s.B04)" },
  { id: "ndwi", label: "NDWI (B03, B08)", bands: ["B03", "B08"], expr: "(s.B03 - s.B08) / (s.B03 + s.B08)" },
  { id: "ndmi", label: "NDMI (B08, B11)", bands: ["B08", "B11"], expr: "(s.B08 - s.B11) / (s.B08 + s.B11)" },
  { id: "nbr", label: "NBR (B08, B12)", bands: ["B08", "B12"], expr: "(s.B08 - s.B12) / (s.B08 + s.B12)" },
  {
    id: "evi",
    label: "EVI (B02, B04, B08)",
    bands: ["B02", "B04", "B08"],
    expr: "2.5 * (s.B08 - s.B04) / (s.B08 + 6 * s.B04 - 7.5 * s.B02 + 1)",
  },
  { id: "red", label: "Red reflectance (B04)", bands: ["B04"], expr: "s.B04" },
  { id: "vv_db", label: "Sentinel-1 VV backscatter (dB)", bands: ["VV"], expr: "10 * Math.log(s.VV) / Math.LN10" },
];

/** Cloud-mask presets: SCL classes whose pixels are left out (empty: no mask). */
export const MASKS = [
  { id: "none", label: "No cloud mask", excluded: [] },
  { id: "clouds", label: "SCL: clouds, shadows, cirrus (3, 8, 9, 10)", excluded: [3, 8, 9, 10] },
  { id: "strict", label: "SCL: also no data, defective, snow (0, 1, 3, 8-11)", excluded: [0, 1, 3, 8, 9, 10, 11] },
];

/**
 * The evalscript of index `indexId` with mask `maskId`: outputs `<index id>` (1 band, FLOAT32) and dataMask (1 for a
 * pixel with data that the mask keeps). The mask needs the SCL band (Sentinel-2 L2A only).
 */
export function statsScript(indexId, maskId) {
  const index = INDICES.find((i) => i.id === indexId) ?? INDICES[0];
  const mask = MASKS.find((m) => m.id === maskId) ?? MASKS[0];
  const masked = mask.excluded.length > 0;
  const bands = [...index.bands, ...(masked ? ["SCL"] : []), "dataMask"];
  return `//VERSION=3
// ${index.label}${masked ? `; ${mask.label} left out` : ""}
function setup() {
  return {
    input: [{ bands: ${JSON.stringify(bands)} }],
    output: [{ id: "${index.id}", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }],
  };
}
${masked ? `const EXCLUDED = ${JSON.stringify(mask.excluded)};\n` : ""}function evaluatePixel(s) {
  const keep = s.dataMask${masked ? " && !EXCLUDED.includes(s.SCL)" : ""};
  return { ${index.id}: [${index.expr}], dataMask: [keep ? 1 : 0] };
}`;
}
