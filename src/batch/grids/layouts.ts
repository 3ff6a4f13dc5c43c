/**
 * Candidate tiles of each grid layout over an area (see ./index.ts for the rules): each layout lists the tiles of
 * its cells that meet the area, as {name, id, epsg, cell} with the cell (the tile without buffer) in the tile CRS;
 * more than `limit` tiles throw EngineError invalid-argument.
 */
import { crsFromEpsg, transformBounds } from "../../raster/crs";
import { EngineError } from "../../raster/errors";
import { areaBounds, boxToLonLat, cellRing, clipRing, ringMeetsArea, type Box, type LonLatArea } from "./geometry";
import {
  bandLetter,
  S2_SNAP,
  SQUARE,
  squareLetters,
  tileOrigin,
  utmZone,
  zoneLongitudes,
  zonesBetween,
  type UtmZone,
} from "./mgrs";

/** A tile before buffer and pixel size: its name, numeric id (unique within its grid), CRS and cell box. */
export interface GridCell {
  name: string;
  id: number;
  epsg: number;
  cell: Box;
}

/** Stops listing beyond this many tiles (the area is too large for the grid). */
export const MAX_TILES = 100_000;

/** Throws when `out` has grown past `limit` tiles. */
function checkCount(out: GridCell[], limit: number): void {
  if (out.length > limit) {
    throw new EngineError(
      "invalid-argument",
      `The area covers more than ${limit} tiles of the grid; split it or use a grid with larger tiles.`,
    );
  }
}

/** Tiles of a UTM grid (tile size `size` metres) over the area: per zone and hemisphere the area meets. */
export function utmCells(size: number, area: LonLatArea, limit = MAX_TILES): GridCell[] {
  const [west, south, east, north] = areaBounds(area);
  const out: GridCell[] = [];
  for (const zone of zonesBetween(west, east)) {
    const [zw, ze] = zoneLongitudes(zone);
    for (const hemisphere of [false, true]) {
      const strip: Box = [
        Math.max(west, zw),
        Math.max(south, hemisphere ? -80 : 0),
        Math.min(east, ze),
        Math.min(north, hemisphere ? 0 : 84),
      ];
      if (!(strip[0] < strip[2]) || !(strip[1] < strip[3])) continue;
      zoneCells(utmZone(zone, hemisphere), size, strip, area, out, limit);
    }
  }
  return out;
}

/** The cells of one zone and hemisphere meeting the part of the area inside `strip` (lon/lat box), added to `out`. */
function zoneCells(zone: UtmZone, size: number, strip: Box, area: LonLatArea, out: GridCell[], limit: number): void {
  const crs = crsFromEpsg(zone.epsg);
  const [x0, y0, x1, y1] = transformBounds(strip, crsFromEpsg(4326), crs, 41);
  // a square's tiles reach up to one tile beyond its east and south edges and up to 60 m beyond its west and north
  // edges: look at the squares whose tiles can reach the box
  for (
    let e = Math.max(0, Math.floor((x0 - size) / SQUARE) * SQUARE);
    e <= Math.min(x1 + S2_SNAP, 9 * SQUARE);
    e += SQUARE
  ) {
    for (
      let n = Math.max(0, Math.floor((y0 - S2_SNAP) / SQUARE) * SQUARE);
      n <= Math.min(y1 + size, 100 * SQUARE);
      n += SQUARE
    ) {
      const [ox, oy] = tileOrigin(e, n, size);
      const nx = Math.ceil((e + SQUARE - ox) / size),
        ny = Math.ceil((oy - n) / size);
      let prefix: string | undefined;
      for (let j = 0; j < ny; j++) {
        for (let i = 0; i < nx; i++) {
          const cell: Box = [ox + i * size, oy - (j + 1) * size, ox + (i + 1) * size, oy - j * size];
          if (cell[2] < x0 || cell[0] > x1 || cell[3] < y0 || cell[1] > y1) continue;
          const ring = cellRing(cell, crs);
          const part = ring && clipRing(ring, strip);
          if (!part || !ringMeetsArea(part, area)) continue;
          prefix ??= squarePrefix(zone, e, n);
          const id =
            ((((zone.zone * 2 + (zone.south ? 1 : 0)) * 16 + e / SQUARE) * 128 + n / SQUARE) * 12 + j) * 12 + i;
          out.push({ name: `${prefix}_${i}_${j}`, id, epsg: zone.epsg, cell });
          checkCount(out, limit);
        }
      }
    }
  }
}

/** `<zone><band><column><row>` of the square with south-west corner (e, n): the band of the square's centre. */
function squarePrefix(zone: UtmZone, e: number, n: number): string {
  const centre = boxToLonLat(
    [e + SQUARE / 2 - 1, n + SQUARE / 2 - 1, e + SQUARE / 2, n + SQUARE / 2],
    crsFromEpsg(zone.epsg),
  );
  const lat = centre ? centre[0]![1]! : zone.south ? -1 : 1;
  return `${String(zone.zone).padStart(2, "0")}${bandLetter(lat)}${squareLetters(zone.zone, e, n)}`;
}

const pad = (v: number, width: number) => String(Math.abs(v)).padStart(width, "0");

/** Tiles of the WGS84 grid (`size` degrees, integer-degree cells) over the area; names from the south-west corner. */
export function wgs84Cells(size: number, area: LonLatArea, limit = MAX_TILES): GridCell[] {
  const [west, south, east, north] = areaBounds(area);
  const wgs84 = crsFromEpsg(4326);
  const out: GridCell[] = [];
  for (let lat = Math.floor(Math.max(-90, south) / size) * size; lat < Math.min(90, north); lat += size) {
    for (let lon = Math.floor(Math.max(-180, west) / size) * size; lon < Math.min(180, east); lon += size) {
      const cell: Box = [lon, lat, lon + size, lat + size];
      if (!ringMeetsArea(cellRing(cell, wgs84)!, area)) continue;
      const name = `${lat < 0 ? "S" : "N"}${pad(lat, 2)}${lon < 0 ? "W" : "E"}${pad(lon, 3)}`;
      out.push({ name, id: (lat + 90) * 360 + (lon + 180), epsg: 4326, cell });
      checkCount(out, limit);
    }
  }
  return out;
}

/**
 * Tiles of a LAEA Europe grid (EPSG:3035, cells on multiples of `size` metres) over the area, named as the EEA
 * reference grid names its cells: `<size in km>kmE<x>N<y>` with x, y the cell's south-west corner divided by the
 * largest power of ten not above the cell size (100kmE38N31, 20kmE384N312).
 */
export function laeaCells(size: number, area: LonLatArea, limit = MAX_TILES): GridCell[] {
  const crs = crsFromEpsg(3035);
  const [x0, y0, x1, y1] = transformBounds(areaBounds(area), crsFromEpsg(4326), crs, 41);
  if (![x0, y0, x1, y1].every(Number.isFinite)) return [];
  const unit = 10 ** Math.floor(Math.log10(size));
  const out: GridCell[] = [];
  for (let y = Math.floor(y0 / size) * size; y <= y1; y += size) {
    for (let x = Math.floor(x0 / size) * size; x <= x1; x += size) {
      const cell: Box = [x, y, x + size, y + size];
      const ring = cellRing(cell, crs);
      if (!ring || !ringMeetsArea(ring, area)) continue;
      out.push({
        name: `${size / 1000}kmE${x / unit}N${y / unit}`,
        id: (y / size) * 10_000 + x / size,
        epsg: 3035,
        cell,
      });
      checkCount(out, limit);
    }
  }
  return out;
}
