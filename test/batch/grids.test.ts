/**
 * Tiling grids: the descriptors Sentinel Hub serves, resolution checks, and tiles over real areas (the footprint of
 * the Sentinel-2 tile 29RKH, a West Flanders field) against an independent GDAL/OGR computation
 * (test/fixtures/grids/reference.json, written by test/reference/ref_tiling_grids.py).
 */
import { describe, expect, it } from "vitest";
import type { MultiPolygon, Polygon } from "geojson";
import {
  areaOfBounds,
  checkResolution,
  tileGrid,
  findTilingGrid,
  gridDescriptor,
  tilesIntersecting,
  tilingGrid,
  TILING_GRIDS,
} from "../../src/batch/grids";
import { crsFromEpsg } from "../../src/raster/crs";
import { engineErrorOf } from "../helpers/engine-error";
import { sampleFile } from "../helpers/seed";

interface RefTile {
  name: string;
  epsg: number;
  bbox: number[];
  width: number;
  height: number;
}
interface RefCase {
  what: string;
  grid: number;
  resolution: number;
  buffer: [number, number];
  area: Polygon | MultiPolygon;
  crs: number;
  tiles: RefTile[];
}
interface Reference {
  cases: RefCase[];
  s2: { item: { zone: number; band: string; square: string; origin: number[] } };
}

const reference = async () =>
  JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/grids/reference.json"))) as Reference;

describe("tiling grid descriptors", () => {
  it("are the grids of Sentinel Hub's tilinggrids endpoint: ids, names, sizes, resolutions, units", () => {
    expect(TILING_GRIDS.map(gridDescriptor)).toEqual([
      {
        id: 0,
        name: "20km grid",
        properties: {
          tileWidth: 20040,
          tileHeight: 20040,
          chunkWidth: 334,
          chunkHeight: 167,
          resolutions: [10, 20, 60],
          singleCrs: false,
          unit: "METRE",
        },
      },
      {
        id: 1,
        name: "10km grid",
        properties: {
          tileWidth: 10000,
          tileHeight: 10000,
          chunkWidth: 500,
          chunkHeight: 500,
          resolutions: [1, 10, 20, 1.4999],
          singleCrs: false,
          unit: "METRE",
        },
      },
      {
        id: 2,
        name: "100km grid",
        properties: {
          tileWidth: 100080,
          tileHeight: 100080,
          chunkWidth: 278,
          chunkHeight: 278,
          resolutions: [360, 60, 120, 240],
          singleCrs: false,
          unit: "METRE",
        },
      },
      {
        id: 3,
        name: "WGS84 1 degree grid",
        properties: {
          tileWidth: 1,
          tileHeight: 1,
          chunkWidth: 500,
          chunkHeight: 500,
          resolutions: [0.0005, 0.001, 0.002, 0.005, 0.008, 0.0001, 0.0002, 0.0008],
          singleCrs: true,
          unit: "DEGREE",
        },
      },
      {
        id: 6,
        name: "LAEA 100km grid",
        properties: {
          tileWidth: 100000,
          tileHeight: 100000,
          chunkWidth: 0,
          chunkHeight: 0,
          resolutions: [40, 50, 100],
          singleCrs: true,
          unit: "METRE",
        },
      },
      {
        id: 7,
        name: "LAEA 20km grid",
        properties: {
          tileWidth: 20000,
          tileHeight: 20000,
          chunkWidth: 0,
          chunkHeight: 0,
          resolutions: [10, 20],
          singleCrs: true,
          unit: "METRE",
        },
      },
    ]);
  });

  it("names unknown grids and resolutions that are not offered, listing what is", () => {
    expect(findTilingGrid(4)).toBeUndefined();
    expect(engineErrorOf(() => tilingGrid(4)).message).toBe(
      "Tiling grid 4 does not exist; the tiling grids are 0 (20km grid), 1 (10km grid), 2 (100km grid), 3 (WGS84 1 degree grid), 6 (LAEA 100km grid), 7 (LAEA 20km grid).",
    );
    expect(checkResolution(tilingGrid(2), 120.0000000001)).toBe(120);
    expect(checkResolution(tilingGrid(3), 0.0001)).toBe(0.0001);
    expect(engineErrorOf(() => checkResolution(tilingGrid(0), 30)).message).toBe(
      "Resolution 30 is not offered by tiling grid 0 (20km grid); offered resolutions (m): 10, 20, 60.",
    );
    expect(engineErrorOf(() => checkResolution(tilingGrid(3), 0.01)).message).toMatch(
      /offered resolutions \(degrees\): 0.0001, 0.0002, 0.0005, 0.0008, 0.001, 0.002, 0.005, 0.008\.$/,
    );
  });
});

describe("tilesIntersecting", () => {
  it("names the real Sentinel-2 tile 29RKH and its origin as the item says (MGRS letters, 60 m snapping)", async () => {
    const { s2 } = await reference();
    const [x0, y1] = s2.item.origin as [number, number];
    // the 100 km grid tile of a point in the middle of 29RKH is the square's only tile, at the S2 tile origin
    const point: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [250000, 2750000],
          [250010, 2750000],
          [250010, 2750010],
          [250000, 2750000],
        ],
      ],
    };
    const [tile] = tilesIntersecting(tilingGrid(2), 60, { geometry: point, crs: crsFromEpsg(32629) });
    expect(tile!.name).toBe(`${s2.item.zone}${s2.item.band}${s2.item.square}_0_0`);
    expect([tile!.bbox[0], tile!.bbox[3], tile!.epsg]).toEqual([x0, y1, 32629]);
  });

  it("lists the tiles GDAL/OGR lists for every reference case (names, CRS, bbox, size, order)", async () => {
    const { cases } = await reference();
    expect(cases.length).toBeGreaterThanOrEqual(15);
    for (const c of cases) {
      const tiles = tilesIntersecting(
        tilingGrid(c.grid),
        c.resolution,
        { geometry: c.area, crs: crsFromEpsg(c.crs) },
        { x: c.buffer[0], y: c.buffer[1] },
      );
      expect(
        tiles.map((t) => t.name),
        c.what,
      ).toEqual(c.tiles.map((t) => t.name));
      tiles.forEach((t, i) => {
        const r = c.tiles[i]!;
        expect([t.epsg, t.width, t.height], `${c.what} ${t.name}`).toEqual([r.epsg, r.width, r.height]);
        t.bbox.forEach((v, k) => expect(Math.abs(v - r.bbox[k]!), `${c.what} ${t.name} bbox[${k}]`).toBeLessThan(1e-6));
      });
      expect(new Set(tiles.map((t) => t.id)).size, c.what).toBe(tiles.length);
    }
  });

  it("tiles a request's bounds: a bbox in a CRS URI equals the same box as geometry; no bounds is refused", () => {
    const bbox = [501360, 5629040, 502000, 5629680];
    const crs = "http://www.opengis.net/def/crs/EPSG/0/32631";
    const fromBbox = tilesIntersecting(tilingGrid(1), 10, areaOfBounds({ bbox, properties: { crs } }));
    const geometry: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [501360, 5629040],
          [502000, 5629040],
          [502000, 5629680],
          [501360, 5629680],
          [501360, 5629040],
        ],
      ],
    };
    expect(fromBbox).toEqual(tilesIntersecting(tilingGrid(1), 10, areaOfBounds({ geometry, properties: { crs } })));
    expect(fromBbox.map((t) => t.name)).toEqual(["31UES_0_7"]);
    const grid = tileGrid(fromBbox[0]!);
    expect([grid.crs.epsg, grid.crs.geographic, grid.width, grid.height]).toEqual([32631, false, 1000, 1000]);
    expect(grid.bbox).toEqual([500000, 5620000, 510000, 5630000]);
    expect(areaOfBounds({ bbox: [3, 50, 4, 51] }).crs!.epsg).toBe(4326);
    expect(engineErrorOf(() => areaOfBounds({})).message).toMatch(/needs a bbox/);
  });

  it("refuses negative or fractional buffers and areas needing too many tiles", () => {
    const wf: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [3.02, 50.81],
          [3.03, 50.81],
          [3.03, 50.82],
          [3.02, 50.81],
        ],
      ],
    };
    expect(engineErrorOf(() => tilesIntersecting(tilingGrid(0), 10, { geometry: wf }, { x: -1 })).message).toMatch(
      /non-negative integers/,
    );
    expect(engineErrorOf(() => tilesIntersecting(tilingGrid(0), 10, { geometry: wf }, { y: 1.5 })).message).toMatch(
      /non-negative integers/,
    );
    const europe: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [-10, 35],
          [30, 35],
          [30, 70],
          [-10, 70],
          [-10, 35],
        ],
      ],
    };
    expect(tilesIntersecting(tilingGrid(3), 0.001, { geometry: europe }, {}, 1400).length).toBe(40 * 35);
    expect(engineErrorOf(() => tilesIntersecting(tilingGrid(3), 0.001, { geometry: europe }, {}, 1399)).message).toBe(
      "The area covers more than 1399 tiles of the grid; split it or use a grid with larger tiles.",
    );
  });
});
