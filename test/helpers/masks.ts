/** Polygon mask references written by test/reference/ref_rasterize.py (gdal.RasterizeLayer on real cloud polygons). */
import type { MultiPolygon, Polygon } from "geojson";
import { crsFromEpsg } from "../../src/raster/crs";
import type { Grid } from "../../src/raster/types";
import { sampleFile } from "./seed";

export interface MaskFixture {
  what: string;
  grid: Grid;
  /** In the grid's CRS (lon, lat for EPSG:4326). */
  geometry: Polygon | MultiPolygon;
  /** 1 where GDAL burns the pixel (its centre is inside), row-major, row 0 north. */
  mask: Uint8Array;
  inside: number;
  /** Smallest distance (px) from a pixel centre to an edge on its row: no centre lies on an edge. */
  margin_px: number;
}

/** Loads test/fixtures/rasterize/<name>.json and unpacks its mask (np.packbits, most significant bit first). */
export async function maskFixture(name: string): Promise<MaskFixture> {
  const doc = JSON.parse(new TextDecoder().decode(await sampleFile(`fixtures/rasterize/${name}.json`)));
  const { epsg, bbox, width, height } = doc.grid;
  const packed = Uint8Array.from(atob(doc.mask), (c) => c.charCodeAt(0));
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = (packed[i >> 3]! >> (7 - (i & 7))) & 1;
  return { ...doc, grid: { crs: crsFromEpsg(epsg), bbox, width, height }, mask };
}

/** Indices where two masks differ. */
export function maskDiff(a: Uint8Array, b: Uint8Array): number[] {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}
