/// <reference types="vite/client" />
/**
 * The supported CRSs: exactly Sentinel Hub's documented list, definitions identical to the epsg-index package,
 * and proj4's transforms equal to GDAL/PROJ's (scripts/ref_crs.py -> test/fixtures/crs/points.json).
 */
import { describe, expect, it } from "vitest";
import definitions from "../../../src/raster/crs/definitions.json";
import { CRS_DOCUMENTATION, SUPPORTED_EPSG, crsFromEpsg, transformer } from "../../../src/raster/crs";
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
  2154, 2180, 2193, 3003, 3004, 3005, 3006, 3031, 3035, 3161, 3346, 3413, 3416, 3578, 3580, 3765, 3794, 3844, 3912, 3995, 4026, 5514,
  28992, 32184,
];
const UTM = [...Array(60).keys()].flatMap((i) => [32601 + i, 32701 + i]);

/** CRSs on a datum other than WGS 84 whose epsg-index +towgs84 is not PROJ's choice of transformation. */
const DATUM_SHIFTED = ["3003", "3004", "3844", "3912", "5514", "28992"];

interface Points {
  in: number[][];
  epsg: number[][];
  proj4: number[][];
}

async function points(): Promise<Record<string, Points>> {
  return JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/crs/points.json"))) as Record<string, Points>;
}

/** Largest distance (CRS units) between proj4's forward transform of `p.in` and `expected`. */
function maxError(code: number, p: Points, expected: number[][]): number {
  const xs = Float64Array.from(p.in.map((q) => q[0]!));
  const ys = Float64Array.from(p.in.map((q) => q[1]!));
  transformer(crsFromEpsg(4326), crsFromEpsg(code))(xs, ys);
  return Math.max(...expected.map(([x, y], i) => Math.hypot(xs[i]! - x!, ys[i]! - y!)));
}

describe("supported CRS list", () => {
  it("is Sentinel Hub's documented list, no more, no less", () => {
    expect([...SUPPORTED_EPSG]).toEqual([4326, 3857, ...UTM, ...DOCUMENTED_OTHERS].sort((a, b) => a - b));
    expect(CRS_DOCUMENTATION).toBe("https://docs.sentinel-hub.com/api/latest/api/process/crs/");
  });

  it("every definition is epsg-index's own (proj4 string, name, kind, area of use)", () => {
    const crs = definitions.crs as Record<string, { name: string; kind: string; proj4: string; area: number[] }>;
    for (const code of SUPPORTED_EPSG) {
      const pkg = fromPackage(code);
      expect(pkg, `EPSG:${code} in epsg-index`).toBeDefined();
      const [north, west, south, east] = pkg!.bbox;
      expect(crs[code], `EPSG:${code}`).toEqual({ name: pkg!.name, kind: pkg!.kind, proj4: pkg!.proj4, area: [west, south, east, north] });
    }
    expect(crsFromEpsg(4326).geographic).toBe(true);
    expect(SUPPORTED_EPSG.filter((c) => crsFromEpsg(c).geographic)).toEqual([4326]);
  });
});

describe("proj4 with these definitions vs GDAL/PROJ", () => {
  it("forward: within 1 mm of PROJ with the same proj4 string, for every supported CRS", async () => {
    const pts = await points();
    for (const code of SUPPORTED_EPSG) expect(maxError(code, pts[code]!, pts[code]!.proj4), `EPSG:${code}`).toBeLessThan(1e-3);
  });

  it("forward: within 1 mm of PROJ with the EPSG code, except the CRSs on another datum (measured and bounded)", async () => {
    const pts = await points();
    const off = SUPPORTED_EPSG.filter((c) => maxError(c, pts[c]!, pts[c]!.epsg) >= 1e-3).map(String);
    expect(off).toEqual(DATUM_SHIFTED);
    // One +towgs84 Helmert (epsg-index) vs PROJ's regional choice; 28992: epsg-index carries the
    // Molodensky-Badekas parameters of "Amersfoort to WGS 84 (1)" as a Helmert, ~170 m off.
    const bounds: Record<string, number> = { "3003": 90, "3004": 75, "3844": 45, "3912": 10, "5514": 16, "28992": 190 };
    for (const c of DATUM_SHIFTED) expect(maxError(Number(c), pts[c]!, pts[c]!.epsg), `EPSG:${c}`).toBeLessThan(bounds[c]!);
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
