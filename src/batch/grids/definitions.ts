/**
 * The tiling grids of Sentinel Hub's Batch Processing API (`GET /api/v2/batch/tilinggrids`), as the live service
 * answers them: ids, names, tile sizes, chunk sizes, resolutions (in the service's order), units and `singleCrs`
 * copied from a captured response of services.sentinel-hub.com (2025); the OpenAPI `BatchV2TilingGridDescriptor`
 * documents tileWidth, tileHeight, resolutions and unit, the service adds chunkWidth, chunkHeight and singleCrs.
 *
 * How tiles are laid out (`layout`) is EO Edge's reading of Sentinel Hub's documentation (see ./index.ts):
 * - "utm": ids 0, 1, 2, UTM zone of the area (EPSG:326zz / 327zz), tiles inside the Sentinel-2 (MGRS) 100 km squares;
 * - "wgs84": id 3, EPSG:4326, 1 degree cells on integer degrees;
 * - "laea": ids 6, 7, EPSG:3035 (ETRS89-extended / LAEA Europe), cells on multiples of the tile size (EEA grid).
 */

/** Units of a grid (OpenAPI enum). */
export type GridUnit = "METRE" | "DEGREE";

/** How a grid's tiles are laid out and named (see ./index.ts). */
export type GridLayout = "utm" | "wgs84" | "laea";

/** The `properties` of a tiling grid descriptor, as Sentinel Hub serves them. */
export interface TilingGridProperties {
  /** Tile width in grid units (metres or degrees), without buffer. */
  tileWidth: number;
  tileHeight: number;
  /** Zarr chunk sizes Sentinel Hub uses for the grid (pixels; 0 = not applicable). */
  chunkWidth: number;
  chunkHeight: number;
  /** Offered output resolutions in grid units, in the order the service lists them. */
  resolutions: number[];
  /** True when all tiles share one CRS (WGS84 and LAEA grids), false for the per-zone UTM grids. */
  singleCrs: boolean;
  unit: GridUnit;
}

/** A tiling grid: the public descriptor (`id`, `name`, `properties`) and its layout. */
export interface TilingGrid {
  id: number;
  name: string;
  properties: TilingGridProperties;
  layout: GridLayout;
}

const grid = (
  id: number,
  name: string,
  layout: GridLayout,
  size: number,
  chunk: [number, number],
  resolutions: number[],
): TilingGrid => ({
  id,
  name,
  layout,
  properties: {
    tileWidth: size,
    tileHeight: size,
    chunkWidth: chunk[0],
    chunkHeight: chunk[1],
    resolutions,
    singleCrs: layout !== "utm",
    unit: layout === "wgs84" ? "DEGREE" : "METRE",
  },
});

/** Every grid, ascending id (the list order of the service). */
export const TILING_GRIDS: readonly TilingGrid[] = [
  grid(0, "20km grid", "utm", 20040, [334, 167], [10, 20, 60]),
  grid(1, "10km grid", "utm", 10000, [500, 500], [1, 10, 20, 1.4999]),
  grid(2, "100km grid", "utm", 100080, [278, 278], [360, 60, 120, 240]),
  grid(3, "WGS84 1 degree grid", "wgs84", 1, [500, 500], [0.0005, 0.001, 0.002, 0.005, 0.008, 0.0001, 0.0002, 0.0008]),
  grid(6, "LAEA 100km grid", "laea", 100000, [0, 0], [40, 50, 100]),
  grid(7, "LAEA 20km grid", "laea", 20000, [0, 0], [10, 20]),
];

/** The public descriptor of a grid (`BatchV2TilingGridDescriptor`): id, name, properties (copied). */
export function gridDescriptor(g: TilingGrid): { id: number; name: string; properties: TilingGridProperties } {
  return { id: g.id, name: g.name, properties: { ...g.properties, resolutions: [...g.properties.resolutions] } };
}
