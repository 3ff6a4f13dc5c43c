/// <reference types="vite/client" />
/**
 * The supported CRSs: exactly Sentinel Hub's documented list, definitions identical to the epsg-index package but
 * for the datum shift (PROJ's preferred transformation, scripts/crs-definitions.mjs), and proj4's transforms equal
 * to GDAL/PROJ's (test/reference/ref_crs.py -> test/fixtures/crs/points.json).
 */
import { describe, expect, it } from "vitest";
import definitions from "../../../src/raster/crs/definitions.json";
import { CRS_DOCUMENTATION, SUPPORTED_EPSG, crsFromEpsg, transformer } from "../../../src/raster/crs";
import type { EpsgDefinition } from "../../../src/raster/crs/epsg";
import { sampleFile } from "../../helpers/seed";

type Entry = { name: string; kind: string; proj4: string; bbox: number[] };
const PACKAGE = import.meta.glob<Entry>(
  [
    "../../../node_modules/epsg-index/s/{4326,3857,2154,2180,2193,3003,3004,3005,3006,3031,3035,3161,3346,3413,3416,3578,3580,3765,3794,3844,3912,3995,4026,5514,28992,32184}.json",
    "../../../node_modules/epsg-index/s/32[67][0-6][0-9].json",
  ],
  { eager: true, import: "default" },
);
const fromPackage = (code: number): Entry | undefined => PACKAGE[`../../../node_modules/epsg-index/s/${code}.json`];

/** docs.sentinel-hub.com/api/latest/api/process/crs/ ("CRS support"), read by hand: the oracle of the list. */
const DOCUMENTED_OTHERS = [
  2154, 2180, 2193, 3003, 3004, 3005, 3006, 3031, 3035, 3161, 3346, 3413, 3416, 3578, 3580, 3765, 3794, 3844, 3912,
  3995, 4026, 5514, 28992, 32184,
];
const UTM = [...Array(60).keys()].flatMap((i) => [32601 + i, 32701 + i]);

/**
 * CRSs where PROJ, left to choose per point, uses another (regional) transformation than the one the definition
 * carries at some points: Italy's mainland vs Sicily / Strait of Sicily / offshore ones and a ballpark outside them
 * all (3003, 3004), Czechia's and Slovakia's own vs S-JTSK to WGS 84 (3) for both (5514). One +towgs84 cannot follow.
 */
const REGIONAL = ["3003", "3004", "5514"];

/** Code -> the +towgs84 of a proj4 string, or undefined. */
const towgs84 = (proj4: string): string | undefined => /\+towgs84=([^ ]+)/.exec(proj4)?.[1];

interface Points {
  in: number[][];
  /** PROJ with the EPSG codes: its own choice of transformation, per point. */
  epsg: number[][];
  /** PROJ with the proj4 string of definitions.json. */
  proj4: number[][];
  /** PROJ through the transformation named in definitions.json `datumShift` (PROJ's own choice if none). */
  op: number[][];
}

async function points(): Promise<Record<string, Points>> {
  return JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/crs/points.json"))) as Record<string, Points>;
}

/** Distances (CRS units) between proj4's forward transform of each point of `p.in` and `expected`. */
function errors(code: number, p: Points, expected: number[][]): number[] {
  const xs = Float64Array.from(p.in.map((q) => q[0]!));
  const ys = Float64Array.from(p.in.map((q) => q[1]!));
  transformer(crsFromEpsg(4326), crsFromEpsg(code))(xs, ys);
  return expected.map(([x, y], i) => Math.hypot(xs[i]! - x!, ys[i]! - y!));
}

/** Largest distance (CRS units) between proj4's forward transform of `p.in` and `expected`. */
const maxError = (code: number, p: Points, expected: number[][]): number => Math.max(...errors(code, p, expected));

/** Distances between two lists of points. */
const distances = (a: number[][], b: number[][]): number[] =>
  a.map(([x, y], i) => Math.hypot(x! - b[i]![0]!, y! - b[i]![1]!));

describe("supported CRS list", () => {
  it("is Sentinel Hub's documented list, no more, no less", () => {
    expect([...SUPPORTED_EPSG]).toEqual([4326, 3857, ...UTM, ...DOCUMENTED_OTHERS].sort((a, b) => a - b));
    expect(CRS_DOCUMENTATION).toBe("https://docs.sentinel-hub.com/api/latest/api/process/crs/");
  });

  it("every definition is epsg-index's own (name, kind, area of use, proj4 but for the recorded +towgs84)", () => {
    const crs = definitions.crs as unknown as Record<string, EpsgDefinition>;
    for (const code of SUPPORTED_EPSG) {
      const pkg = fromPackage(code);
      expect(pkg, `EPSG:${code} in epsg-index`).toBeDefined();
      const [north, west, south, east] = pkg!.bbox;
      const { datumShift, ...rest } = crs[code]!;
      const ours = towgs84(rest.proj4);
      const proj4 =
        ours === undefined ? rest.proj4 : rest.proj4.replace(`+towgs84=${ours}`, `+towgs84=${towgs84(pkg!.proj4)}`);
      expect({ ...rest, proj4 }, `EPSG:${code}`).toEqual({
        name: pkg!.name,
        kind: pkg!.kind,
        proj4: pkg!.proj4,
        area: [west, south, east, north],
      });
      expect(datumShift?.epsgIndex, `EPSG:${code} epsg-index's towgs84 recorded`).toBe(towgs84(pkg!.proj4));
      if (datumShift) expect(datumShift.source).toMatch(/^PROJ \d+\.\d+\.\d+$/);
    }
    expect(crs[28992]!.datumShift).toMatchObject({ operation: "EPSG:4833", name: "Amersfoort to WGS 84 (4)" });
    expect(crsFromEpsg(4326).geographic).toBe(true);
    expect(SUPPORTED_EPSG.filter((c) => crsFromEpsg(c).geographic)).toEqual([4326]);
  });
});

describe("proj4 with these definitions vs GDAL/PROJ", () => {
  it("forward: within 1 mm of PROJ with the same proj4 string, for every supported CRS", async () => {
    const pts = await points();
    for (const code of SUPPORTED_EPSG)
      expect(maxError(code, pts[code]!, pts[code]!.proj4), `EPSG:${code}`).toBeLessThan(1e-3);
  });

  it("forward: within 1 mm of PROJ through the transformation each definition names, for every supported CRS", async () => {
    const pts = await points();
    for (const code of SUPPORTED_EPSG)
      expect(maxError(code, pts[code]!, pts[code]!.op), `EPSG:${code}`).toBeLessThan(1e-3);
  });

  it("forward: within 1 mm of PROJ's own choice with the EPSG codes wherever PROJ chooses the same transformation", async () => {
    const pts = await points();
    const regional = new Set<string>();
    for (const code of SUPPORTED_EPSG) {
      const p = pts[code]!;
      // Where PROJ's free choice differs from the named transformation (fixture only: PROJ vs PROJ), it chose another.
      const other = distances(p.op, p.epsg).map((d) => d >= 0.01);
      errors(code, p, p.epsg).forEach((e, i) => {
        if (other[i]) regional.add(String(code));
        expect(e, `EPSG:${code} point ${i}`).toBeLessThan(other[i] ? 100 : 1e-3);
      });
    }
    expect([...regional]).toEqual(REGIONAL);
  });

  it("inverse: PROJ's projected points come back to their lon/lat within 1e-7 degrees (about 1 cm)", async () => {
    const pts = await points();
    for (const code of SUPPORTED_EPSG) {
      const p = pts[code]!;
      const xs = Float64Array.from(p.proj4.map((q) => q[0]!));
      const ys = Float64Array.from(p.proj4.map((q) => q[1]!));
      transformer(crsFromEpsg(code), crsFromEpsg(4326))(xs, ys);
      p.in.forEach(([lon, lat], i) => {
        expect(Math.abs(xs[i]! - lon!), `EPSG:${code} lon ${i}`).toBeLessThan(1e-7);
        expect(Math.abs(ys[i]! - lat!), `EPSG:${code} lat ${i}`).toBeLessThan(1e-7);
      });
    }
  });
});
