// Place and coordinate search of the request builder, offline: decimal coordinates ("lat, lon" or a bbox
// "west, south, east, north") and a small gazetteer of the places where the sample data lies (data/SOURCES.md).
// There is no geocoding service behind it: other place names are not found.

/** The sample areas: name, words it is found by, WGS84 bbox [west, south, east, north] (the data's footprint). */
export const PLACES = [
  { name: "Western Sahara, MGRS tile 29RKH (Sentinel-2 L2A, 2020-02-19)", bbox: [-11.55, 24.72, -11.3, 24.88] },
  {
    name: "West Flanders, Belgium (Sentinel-2 L2A 2017-2018; BYOC and Zarr samples)",
    bbox: [3.019304, 50.813087, 3.028392, 50.818841],
  },
  { name: "Mol, Belgium (Sentinel-2 L2A, June 2023)", bbox: [5.069685, 51.214818, 5.080365, 51.220215] },
  {
    name: "Quebec and Maine, MGRS tile 19UDP (Sentinel-2 L1C, 2017-07-29)",
    bbox: [-70.3608, 47.7574, -68.8672, 48.7529],
  },
  { name: "Tamil Nadu and Kerala, India (Sentinel-1 GRD, 2018-07-16)", bbox: [75.6045, 9.2222, 78.2096, 11.1911] },
];

/**
 * Resolves a search text: four numbers -> {bbox: [w, s, e, n]}; two numbers "lat, lon" (swapped when the first is
 * beyond +-90) -> {point: [lon, lat]}; else the first gazetteer place whose name contains every word -> {bbox,
 * name}; null when nothing matches or coordinates are out of range.
 */
export function findPlace(text) {
  const nums = text
    .trim()
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map(Number);
  if (nums.length === 4 && nums.every(Number.isFinite)) {
    const [w, s, e, n] = nums;
    return Math.abs(s) <= 90 && Math.abs(n) <= 90 && s < n && w < e ? { bbox: nums } : null;
  }
  if (nums.length === 2 && nums.every(Number.isFinite)) {
    const [lat, lon] = Math.abs(nums[0]) > 90 ? [nums[1], nums[0]] : nums;
    return Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { point: [lon, lat] } : null;
  }
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return (words.length && PLACES.find((p) => words.every((w) => p.name.toLowerCase().includes(w)))) || null;
}
