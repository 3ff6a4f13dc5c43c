/**
 * Data collections the Processing API serves, with their bands and units (Sentinel Hub data documentation:
 * docs.sentinel-hub.com/api/latest/data/sentinel-2-l2a, -l1c, sentinel-1-grd).
 *
 * Band kinds:
 * - `file`: read from the item's assets (DN in the file).
 * - `derived`: computed from other bands (CLM from SCL for L2A, documented below).
 * - `angle`: per-scene constant angles from item metadata (or the solar position when the item has none).
 */
import { badRequest } from "../http/errors";

export type Units = "REFLECTANCE" | "DN" | "DEGREES" | "OPTICAL_DEPTH" | "LINEAR_POWER";

export interface BandDef {
  name: string;
  kind: "file" | "derived" | "angle";
  /** Units accepted, the first is the default. */
  units: Units[];
  /** Source band for derived bands. */
  from?: string;
}

export interface DataCollection {
  /** Processing type id, also the catalog collection id. */
  id: string;
  aliases: string[];
  bands: Map<string, BandDef>;
  /** True for Sentinel-2 DN -> reflectance conversion with BOA/TOA offsets. */
  optical: boolean;
}

const refl = (name: string): BandDef => ({ name, kind: "file", units: ["REFLECTANCE", "DN"] });
const dn = (name: string): BandDef => ({ name, kind: "file", units: ["DN"] });
const angle = (name: string): BandDef => ({ name, kind: "angle", units: ["DEGREES"] });
const S2_BANDS = ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12"];
const ANGLES = ["sunZenithAngles", "sunAzimuthAngles", "viewZenithMean", "viewAzimuthMean"].map(angle);

function collection(id: string, aliases: string[], bands: BandDef[], optical: boolean): DataCollection {
  return { id, aliases, bands: new Map(bands.map((b) => [b.name, b])), optical };
}

export const COLLECTIONS: DataCollection[] = [
  collection(
    "sentinel-2-l2a",
    ["S2L2A"],
    [
      ...S2_BANDS.map(refl),
      dn("SCL"),
      { name: "AOT", kind: "file", units: ["OPTICAL_DEPTH", "DN"] },
      { name: "WVP", kind: "file", units: ["DN"] },
      // CLM is derived from SCL (classes 8, 9, 10 = cloud medium/high probability and thin cirrus -> 1;
      // SCL 0 no data -> 255; other classes -> 0). Sentinel Hub's CLM comes from s2cloudless instead.
      { name: "CLM", kind: "derived", units: ["DN"], from: "SCL" },
      ...ANGLES,
    ],
    true,
  ),
  collection("sentinel-2-l1c", ["S2L1C"], [...[...S2_BANDS, "B10"].map(refl), ...ANGLES], true),
  // Sentinel-1 GRD: the sample scene holds raw GRD amplitude DN (not calibrated); served as stored.
  collection("sentinel-1-grd", ["S1GRD"], [
    { name: "VV", kind: "file", units: ["LINEAR_POWER", "DN"] },
    { name: "VH", kind: "file", units: ["LINEAR_POWER", "DN"] },
  ], false),
];

/** Looks a collection up by type id or alias (case-sensitive ids, aliases as Sentinel Hub spells them). */
export function collectionForType(type: string): DataCollection {
  const c = COLLECTIONS.find((x) => x.id === type || x.aliases.includes(type) || x.id === type.toLowerCase());
  if (!c)
    throw badRequest(
      `Unknown data collection type '${type}'. Supported: ${COLLECTIONS.map((x) => [x.id, ...x.aliases].join(" / ")).join(", ")}.`,
    );
  return c;
}

/** Checks requested bands and units against the collection; throws 400 naming the unknown band. */
export function checkBands(c: DataCollection, bands: string[], units: (string | undefined)[]): void {
  bands.forEach((b, i) => {
    if (b === "dataMask") return;
    const def = c.bands.get(b);
    if (!def) throw badRequest(`Unknown band '${b}' for collection ${c.id}. Available: ${[...c.bands.keys(), "dataMask"].join(", ")}.`);
    const u = units[i];
    if (u && !def.units.includes(u as Units))
      throw badRequest(`Band ${b} of ${c.id} does not support units '${u}'. Supported: ${def.units.join(", ")}.`);
  });
}
