/**
 * Band values in the units evalscripts ask for, and the auxiliary bands (angles, CLM).
 *
 * Sentinel-2 reflectance: (DN + offset) / 10000, where offset = -1000 (BOA_ADD_OFFSET for L2A, RADIO_ADD_OFFSET
 * for L1C) for processing baseline 04.00 and later unless the item says the offset is already applied
 * (`earthsearch:boa_offset_applied`), else 0 (ESA S2 product specification, PB 04.00 of 2022-01-25).
 * harmonizeValues (default true, as in Sentinel Hub) clamps negative harmonized values to 0; with false the
 * offset is still applied but values are not clamped. DN units: harmonized -> max(0, DN + offset); not
 * harmonized -> the stored DN. AOT in OPTICAL_DEPTH: DN / 1000. Sentinel-1: values as stored.
 */
import * as SunCalc from "suncalc";
import type { StacItem } from "../storage/stac";
import type { BandDef, DataCollection } from "./collections";
import type { ValueScale } from "../raster/types";
import { applyScale } from "../raster/warp";

/**
 * The DN offset an upstream item's `raster:bands` declare for its reflectance bands (offset / scale of the red
 * band's asset, e.g. -0.1 / 0.0001 = -1000), or undefined when they declare none or a zero offset.
 */
function rasterBandsOffset(item: StacItem): number | undefined {
  const red = Object.values(item.assets).find((a) => a["eo:bands"]?.[0]?.name === "B04");
  const rb = (red?.["raster:bands"] as { offset?: unknown; scale?: unknown }[] | undefined)?.[0];
  if (typeof rb?.offset !== "number" || typeof rb.scale !== "number" || rb.offset === 0 || !(rb.scale > 0))
    return undefined;
  return Math.round(rb.offset / rb.scale);
}

/**
 * Offset added to Sentinel-2 DN before scaling: what the item's `raster:bands` declare (offset / scale, Earth
 * Search and STAC raster extension), else 0 when `earthsearch:boa_offset_applied` says the files already hold
 * harmonized values, else -1000 from processing baseline 04.00 on (ESA), else 0.
 */
export function s2Offset(item: StacItem): number {
  const p = item.properties;
  const declared = rasterBandsOffset(item);
  if (declared !== undefined) return declared;
  if (p["earthsearch:boa_offset_applied"] === true) return 0;
  const baseline = Number.parseFloat(String(p["s2:processing_baseline"] ?? "0"));
  return baseline >= 4 ? -1000 : 0;
}

/**
 * The conversion of a band's DN to the requested units (see the module comment), for readWarped to apply
 * (WarpOptions.scales) or convertUnits; null when the values stay as stored.
 */
export function unitsScale(
  def: BandDef,
  units: string,
  c: DataCollection,
  item: StacItem,
  harmonize: boolean,
): ValueScale | null {
  const declared = c.optical ? undefined : declaredScaling(item, def.name, units);
  if (declared) return { scale: declared.scale, add: declared.offset };
  const offset = c.optical && def.units.includes("REFLECTANCE") ? s2Offset(item) : 0;
  let scale = 1;
  if (units === "REFLECTANCE") scale = 1 / 10000;
  else if (units === "OPTICAL_DEPTH") scale = 1 / 1000;
  const applyOffset = units === "REFLECTANCE" || harmonize;
  if (!applyOffset && scale === 1) return null;
  return { ...(applyOffset ? { offset } : {}), ...(harmonize ? { min: 0 } : {}), scale };
}

/**
 * Converts DN (in place, returned) to the requested units (unitsScale). `valid` marks pixels with data; `dn` must be
 * 0 where it is 0 (as readWarped returns bands), and they stay 0.
 */
export function convertUnits(
  dn: Float32Array,
  valid: Uint8Array,
  def: BandDef,
  units: string,
  c: DataCollection,
  item: StacItem,
  harmonize: boolean,
): Float32Array {
  const s = unitsScale(def, units, c, item, harmonize);
  if (s) applyScale(dn, valid, s);
  return dn;
}

/**
 * Scale and offset of a non-Sentinel-2 band in REFLECTANCE or KELVIN, from its asset's `raster:bands` (STAC raster
 * extension, as Earth Search and the Planetary Computer publish Landsat Collection 2 Level-2: 0.0000275 / -0.2 for
 * surface reflectance, 0.00341802 / 149.0 for surface temperature); undefined for other units or without them.
 */
function declaredScaling(item: StacItem, band: string, units: string): { scale: number; offset: number } | undefined {
  if (units !== "REFLECTANCE" && units !== "KELVIN") return undefined;
  const rb = (item.assets[band]?.["raster:bands"] as { scale?: unknown; offset?: unknown }[] | undefined)?.[0];
  if (typeof rb?.scale !== "number") return undefined;
  return { scale: rb.scale, offset: typeof rb.offset === "number" ? rb.offset : 0 };
}

/** CLM derived from SCL: 1 for SCL 8, 9, 10 (clouds, cirrus), 255 where SCL is 0 (no data), else 0. */
export function clmFromScl(scl: Float32Array, valid: Uint8Array): Float32Array {
  const out = new Float32Array(scl.length);
  for (let i = 0; i < scl.length; i++) {
    const s = scl[i]!;
    out[i] = !valid[i] || s === 0 ? 255 : s >= 8 && s <= 10 ? 1 : 0;
  }
  return out;
}

/**
 * Scene-constant angles in degrees: sun zenith/azimuth from `view:sun_elevation`/`view:sun_azimuth`, else the
 * solar position at the item's centre and time (suncalc); view zenith/azimuth from `view:incidence_angle` /
 * `view:azimuth`, else nadir (0, 0). Sentinel Hub serves these on a 5 km grid; EO Edge uses one value per scene.
 */
export function sceneAngles(item: StacItem): Record<string, number> {
  const p = item.properties;
  let sunZenith: number;
  let sunAzimuth: number;
  if (typeof p["view:sun_elevation"] === "number" && typeof p["view:sun_azimuth"] === "number") {
    sunZenith = 90 - (p["view:sun_elevation"] as number);
    sunAzimuth = p["view:sun_azimuth"] as number;
  } else {
    const [minLon, minLat, maxLon, maxLat] =
      item.bbox.length === 6 ? [item.bbox[0]!, item.bbox[1]!, item.bbox[3]!, item.bbox[4]!] : item.bbox;
    // suncalc 2.x: apparent altitude and azimuth in DEGREES, azimuth clockwise from north (1.x gave radians from south)
    const pos = SunCalc.getPosition(new Date(p.datetime), (minLat! + maxLat!) / 2, (minLon! + maxLon!) / 2);
    sunZenith = 90 - pos.altitude;
    sunAzimuth = ((pos.azimuth % 360) + 360) % 360;
  }
  return {
    sunZenithAngles: sunZenith,
    sunAzimuthAngles: sunAzimuth,
    viewZenithMean: typeof p["view:incidence_angle"] === "number" ? (p["view:incidence_angle"] as number) : 0,
    viewAzimuthMean: typeof p["view:azimuth"] === "number" ? (p["view:azimuth"] as number) : 0,
  };
}

/** Processing units (Sentinel Hub): (w*h / 512^2) * (input bands / 3) * samples * (2 for FLOAT32), minimum `min`. */
export function processingUnits(
  width: number,
  height: number,
  inputBands: number,
  samples: number,
  float32: boolean,
  min = 0.005,
): number {
  const pu =
    ((width * height) / (512 * 512)) * (Math.max(1, inputBands) / 3) * Math.max(1, samples) * (float32 ? 2 : 1);
  return Math.max(min, Math.round(pu * 1e6) / 1e6);
}
