/**
 * STAND-IN, deleted when wt/grids (src/batch/grids) is merged: one UTM grid (id 0, "UTM 20km grid", 20040 m tiles,
 * resolutions 10, 20, 60 m) in the UTM zone of the area's centre, tiles aligned on multiples of the tile size.
 */
import { badRequest } from "../http/errors";
import { crsFromEpsg, transformBounds } from "../raster/crs";
import type { Crs } from "../raster/types";

export interface StandinTile {
  name: string;
  epsg: number;
  /** [minX, minY, maxX, maxY] in the tile's CRS, without buffer. */
  bbox: [number, number, number, number];
}

const GRID = { id: 0, name: "UTM 20km grid", tileWidth: 20040, tileHeight: 20040, resolutions: [10, 20, 60], unit: "METRE" };

/** @throws ApiError 400 for another grid id or a resolution the grid does not offer. */
export function standinCheck(id: number, resolution: number): void {
  if (id !== GRID.id) throw badRequest(`Tiling grid ${id} does not exist; see /api/v2/batch/tilinggrids.`);
  if (!GRID.resolutions.includes(resolution))
    throw badRequest(`Tiling grid ${id} (${GRID.name}) does not offer resolution ${resolution}; it offers ${GRID.resolutions.join(", ")}.`);
}

/** Tiles of grid `id` whose bbox intersects `bbox` (in `crs`). */
export function standinTiles(id: number, resolution: number, bbox: [number, number, number, number], crs: Crs): StandinTile[] {
  standinCheck(id, resolution);
  const ll = transformBounds(bbox, crs, crsFromEpsg(4326));
  const zone = Math.floor(((ll[0] + ll[2]) / 2 + 180) / 6) + 1;
  const epsg = ((ll[1] + ll[3]) / 2 >= 0 ? 32600 : 32700) + zone;
  const [x0, y0, x1, y1] = transformBounds(bbox, crs, crsFromEpsg(epsg));
  const s = GRID.tileWidth;
  const out: StandinTile[] = [];
  for (let row = Math.floor(y0 / s); row * s < y1; row++)
    for (let col = Math.floor(x0 / s); col * s < x1; col++) out.push({ name: `${zone}_${col}_${row}`, epsg, bbox: [col * s, row * s, (col + 1) * s, (row + 1) * s] });
  return out;
}
