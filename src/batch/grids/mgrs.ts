/**
 * UTM zones and MGRS 100 km squares (NGA.STND.0037 "Universal Grids and Grid Reference Systems", WGS 84 "AA"
 * lettering), as the Sentinel-2 tiling uses them, for the UTM batch grids.
 *
 * - Zone z (1..60) covers longitudes -180 + 6 (z - 1) .. -180 + 6 z; its CRS is EPSG:326zz north of the equator and
 *   EPSG:327zz south of it (false northing 10 000 km). The Norway / Svalbard zone exceptions are not applied.
 * - A square is named by its column letter (easting / 100 km = 1..8; letter sets A-H, J-R, S-Z for zones
 *   1, 2, 0 mod 3, I and O omitted) and row letter (northing / 100 km mod 20 over A-V without I and O, starting at
 *   A in odd zones and at F in even zones), prefixed by the zone and the latitude band letter (C..X, 8 degrees from
 *   -80, X spanning 72..84, I and O omitted) of the square's centre.
 * - The Sentinel-2 tile of a square starts at its west edge rounded down and its north edge rounded up to a
 *   multiple of 60 m (real tile 29RKH: square 200000..300000 E, 2700000..2800000 N, tile origin 199980, 2800020);
 *   see tileOrigin.
 */

/** Column letter sets by zone mod 3 (1, 2, 0). */
const COLUMN_SETS = ["STUVWXYZ", "ABCDEFGH", "JKLMNPQR"];
const ROW_LETTERS = "ABCDEFGHJKLMNPQRSTUV";
const BAND_LETTERS = "CDEFGHJKLMNPQRSTUVWX";

/** Size of an MGRS square (metres). */
export const SQUARE = 100_000;
/** Sentinel-2 tiles and the UTM batch grids snap to this pixel grid (metres, the 60 m bands). */
export const S2_SNAP = 60;

/** A UTM zone in one hemisphere: its number, hemisphere and EPSG code. */
export interface UtmZone {
  zone: number;
  south: boolean;
  epsg: number;
}

/** The zone-and-hemisphere of a zone number. */
export function utmZone(zone: number, south: boolean): UtmZone {
  return { zone, south, epsg: (south ? 32700 : 32600) + zone };
}

/** West and east longitude of a zone. */
export function zoneLongitudes(zone: number): [number, number] {
  return [-180 + 6 * (zone - 1), -180 + 6 * zone];
}

/** Zone numbers whose longitudes meet [west, east] (degrees), west to east. */
export function zonesBetween(west: number, east: number): number[] {
  const first = Math.max(1, Math.floor((west + 180) / 6) + 1);
  const last = Math.min(60, Math.floor((Math.min(east, 179.999999999) + 180) / 6) + 1);
  const zones: number[] = [];
  for (let z = first; z <= last; z++) zones.push(z);
  return zones;
}

/** Latitude band letter of a latitude (clamped to -80..84). */
export function bandLetter(lat: number): string {
  const i = Math.floor((Math.min(83.999, Math.max(-80, lat)) + 80) / 8);
  return BAND_LETTERS[Math.min(i, BAND_LETTERS.length - 1)]!;
}

/**
 * The two letters of the 100 km square whose south-west corner is (`east`, `north`) in the zone's CRS (northing as
 * the CRS has it: + 10 000 km in the south).
 */
export function squareLetters(zone: number, east: number, north: number): string {
  const column = Math.floor(east / SQUARE);
  const columns = COLUMN_SETS[zone % 3]!;
  const col = columns[(((column - 1) % 8) + 8) % 8]!;
  const offset = zone % 2 === 0 ? 5 : 0;
  const row = ROW_LETTERS[(((Math.floor(north / SQUARE) + offset) % 20) + 20) % 20]!;
  return col + row;
}

/**
 * Where the tiles of a square with south-west corner (east, north) start (north-west corner, metres): for tile sizes
 * that are a multiple of 60 m, the Sentinel-2 tile origin (the corner snapped outward to 60 m, so the tiles keep
 * Sentinel-2's 60 m pixel grid); for other sizes (the 10 km grid) the square's own corner, so its tiles are the
 * MGRS 10 km squares.
 */
export function tileOrigin(east: number, north: number, size: number): [number, number] {
  const snap = size % S2_SNAP === 0 ? S2_SNAP : 1;
  return [Math.floor(east / snap) * snap, Math.ceil((north + SQUARE) / snap) * snap];
}
