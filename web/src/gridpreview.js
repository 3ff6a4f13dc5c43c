// The tiling-grid preview of the batch page: the tiles a batch task over an AOI will produce, computed in the
// browser by the service's own tile selection (src/batch/grids, bundled by esbuild: the same tiles, names and
// order as the analysis) and drawn in longitude / latitude (tile edges densified: straight in UTM or LAEA).
import L from "leaflet";
import { areaOfBounds, tilesIntersecting, tilingGrid } from "../../src/batch/grids/index.ts";
import { cellRing } from "../../src/batch/grids/geometry.ts";
import { crsFromEpsg } from "../../src/raster/crs/index.ts";

/** At most this many tiles are drawn (the count is still given). */
const MAX_DRAWN = 2000;

/**
 * The tiles of grid `id` at `resolution` over `bounds` (a Process request's input.bounds) as
 * {tiles: [{name, width, height}], layers: Leaflet polygons (one per tile, up to MAX_DRAWN, tooltip = name)}.
 * @throws Error with the service's message for an unknown grid, a resolution it does not offer or too many tiles.
 */
export function gridTiles(id, resolution, bounds) {
  const tiles = tilesIntersecting(tilingGrid(id), resolution, areaOfBounds(bounds));
  const layers = tiles.slice(0, MAX_DRAWN).map((t) => {
    const ring = cellRing(t.bbox, crsFromEpsg(t.epsg)) ?? [];
    return L.polygon(
      ring.map(([lon, lat]) => [lat, lon]),
      { weight: 1, color: "#d95f02", fillOpacity: 0.05, className: "grid-tile" },
    ).bindTooltip(`${t.name}: ${t.width} x ${t.height} px`);
  });
  return { tiles, layers };
}
