/**
 * The GeoPackage reader against what GDAL/OGR and python's sqlite3 read from the same files
 * (test/fixtures/vector/reference.json, written by test/reference/make_geopackages.py).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Geometry } from "geojson";
import {
  listGeoPackageLayers,
  readGeoPackage,
  readGeoPackageObject,
  type GeoPackageLayer,
} from "../../src/vector/geopackage";
import { resolveBucket } from "../../src/buckets";
import { EngineError } from "../../src/raster/errors";
import { sampleFile } from "../helpers/seed";
import type { Env } from "../../src/env";

interface RefLayer {
  name: string;
  geometryColumn: string;
  fidColumn: string;
  epsg: number;
  featureCount: number;
  features: {
    fid: number;
    geometry: Geometry | null;
    envelope: number[] | null;
    properties: Record<string, unknown>;
  }[];
}
type Reference = Record<string, { layers: RefLayer[] }>;

const bytes = async (name: string) => new Uint8Array(await sampleFile(`fixtures/vector/${name}`));
const reference = async () =>
  JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/vector/reference.json"))) as Reference;

/** All coordinates of a geometry, flattened. */
function flat(g: unknown): number[] {
  return Array.isArray(g) ? g.flatMap(flat) : typeof g === "number" ? [g] : [];
}

/** Expects the layer read to equal OGR's: ids, attributes, header envelopes (exact) and coordinates (to 1e-12 relative). */
function expectSameLayer(layer: GeoPackageLayer, ref: RefLayer) {
  expect(layer.name).toBe(ref.name);
  expect(layer.geometryColumn).toBe(ref.geometryColumn);
  expect(layer.fidColumn).toBe(ref.fidColumn);
  expect(layer.epsg).toBe(ref.epsg);
  expect(layer.features.length).toBe(ref.featureCount);
  layer.features.forEach((f, i) => {
    const r = ref.features[i]!;
    expect(f.fid).toBe(r.fid);
    expect(f.properties).toEqual(r.properties);
    const env = r.envelope!;
    expect(f.envelope).toEqual([env[0], env[2], env[1], env[3]]);
    expect(f.geometry!.type).toBe(r.geometry!.type);
    const mine = flat((f.geometry as { coordinates: unknown }).coordinates);
    const theirs = flat((r.geometry as { coordinates: unknown }).coordinates);
    expect(mine.length).toBe(theirs.length);
    const worst = Math.max(...mine.map((v, k) => Math.abs(v - theirs[k]!) / Math.max(1, Math.abs(theirs[k]!))));
    expect(worst).toBeLessThan(1e-12);
  });
}

async function rejection(p: Promise<unknown>): Promise<EngineError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(EngineError);
  expect((e as EngineError).kind).toBe("invalid-argument");
  return e as EngineError;
}

describe("readGeoPackage", () => {
  it("reads the 20 West Flanders fields in EPSG:32631 as OGR does (holes, multipolygons, attributes)", async () => {
    const ref = (await reference())["westflanders_fields.gpkg"]!;
    const layer = await readGeoPackage(await bytes("westflanders_fields.gpkg"));
    expectSameLayer(layer, ref.layers[0]!);
    expect(layer.columns).toEqual(["name", "crop", "area_ha", "sown"]);
    expect(layer.features.filter((f) => f.geometry!.type === "MultiPolygon").map((f) => f.fid)).toEqual([14]);
    expect(
      layer.features
        .filter((f) => f.geometry?.type === "Polygon" && f.geometry.coordinates.length === 2)
        .map((f) => f.fid),
    ).toEqual([7]);
  });

  it("reads the same fields in EPSG:4326 (lon, lat) and a layer chosen by name", async () => {
    const refs = await reference();
    expectSameLayer(
      await readGeoPackage(await bytes("westflanders_fields_4326.gpkg")),
      refs["westflanders_fields_4326.gpkg"]!.layers[0]!,
    );
    const footprint = await readGeoPackage(await bytes("westflanders_fields.gpkg"), { layer: "footprint" });
    expectSameLayer(footprint, refs["westflanders_fields.gpkg"]!.layers[1]!);
  });

  it("reads the batch feature columns identifier/width/height/resolution, NULL as null", async () => {
    const ref = (await reference())["batch_features.gpkg"]!;
    const layer = await readGeoPackage(await bytes("batch_features.gpkg"));
    expectSameLayer(layer, ref.layers[0]!);
    expect(layer.features.map((f) => f.properties)).toEqual([
      { identifier: "field-a", width: 64, height: 64, resolution: null },
      { identifier: "field-b", width: null, height: null, resolution: 10 },
      { identifier: "field-c", width: null, height: null, resolution: 20 },
      { identifier: "field-d", width: null, height: null, resolution: null },
    ]);
  });

  it("reads a GeoPackage left in write-ahead-log mode (QGIS) like the same file in rollback mode", async () => {
    const wal = await bytes("batch_features_wal.gpkg");
    expect([wal[18], wal[19]]).toEqual([2, 2]);
    expect(await readGeoPackage(wal)).toEqual(await readGeoPackage(await bytes("batch_features.gpkg")));
  });

  it("lists the feature layers in gpkg_contents order", async () => {
    const layers = await listGeoPackageLayers(await bytes("westflanders_fields.gpkg"));
    expect(layers.map((l) => [l.name, l.epsg, l.geometryType])).toEqual([
      ["fields", 32631, "GEOMETRY"],
      ["footprint", 32631, "POLYGON"],
      ["curves", 32631, "CURVEPOLYGON"],
    ]);
  });

  it("refuses non-GeoPackages, unknown layers, refused and unreadable geometry types with invalid-argument", async () => {
    expect(
      (await rejection(readGeoPackage(new TextEncoder().encode("hello, not sqlite at all ".repeat(50))))).message,
    ).toMatch(/not a GeoPackage/);
    const truncated = (await bytes("westflanders_fields.gpkg")).slice(0, 4096);
    expect((await rejection(readGeoPackage(truncated))).message).toMatch(/not a readable GeoPackage/);
    expect((await rejection(readGeoPackage(await bytes("plain.sqlite")))).message).toMatch(
      /gpkg_spatial_ref_sys, gpkg_contents, gpkg_geometry_columns missing/,
    );
    expect(
      (await rejection(readGeoPackage(await bytes("westflanders_fields.gpkg"), { layer: "roads" }))).message,
    ).toMatch(/no feature layer "roads"; its feature layers: fields, footprint, curves/);
    expect(
      (await rejection(readGeoPackage(await bytes("westflanders_fields.gpkg"), { layer: "curves" }))).message,
    ).toMatch(/Feature 1 of layer "curves": the WKB geometry cannot be read/);
    const points = await rejection(
      readGeoPackage(await bytes("westflanders_fields.gpkg"), { geometryTypes: ["Point"] }),
    );
    expect(points.message).toMatch(/Feature 1 of layer "fields" is a Polygon; accepted geometry types: Point/);
  });

  it("reads only ordinary tables: views, virtual tables and generated columns are refused before SQLite runs them", async () => {
    // test/reference/make_hostile_geopackages.py: batch_features.gpkg with one hostile change each (a view over an endless
    // recursive CTE hung the isolate before; a 900 MB generated string per row would exhaust its memory)
    const cases = [
      ["hostile_view_columns.gpkg", /GeoPackage's table gpkg_geometry_columns is a view, not an ordinary table/],
      ["hostile_view_layer.gpkg", /GeoPackage's feature layer features is a view, not an ordinary table/],
      ["hostile_virtual_layer.gpkg", /GeoPackage's feature layer features is a virtual table, not an ordinary table/],
      [
        "hostile_generated.gpkg",
        /GeoPackage's feature layer features has generated column\(s\) heavy: only stored columns are read/,
      ],
    ] as const;
    for (const [file, reason] of cases) {
      const e = await rejection(readGeoPackage(await bytes(file)));
      expect([e.kind, e.message], file).toEqual(["invalid-argument", expect.stringMatching(reason)]);
    }
    expect((await rejection(listGeoPackageLayers(await bytes("hostile_view_columns.gpkg")))).message).toMatch(
      /is a view/,
    );
    const steps = await rejection(readGeoPackage(await bytes("batch_features.gpkg"), { maxSteps: 12 }));
    expect(steps.message).toMatch(/needs more than 12 SQLite steps/);
    // the unchanged file still reads, rtree virtual tables and triggers beside its layer included
    expect((await readGeoPackage(await bytes("batch_features.gpkg"))).features.length).toBeGreaterThan(0);
  });
});

describe("readGeoPackageObject", () => {
  it("reads a GeoPackage from a bucket and names a missing object", async () => {
    const bucket = await resolveBucket(env as unknown as Env, crypto.randomUUID(), { url: "s3://gpkg-test/inputs" });
    await bucket.store.put(bucket.key("fields.gpkg"), await bytes("westflanders_fields.gpkg"));
    const layer = await readGeoPackageObject(bucket.store, bucket.key("fields.gpkg"));
    expect(layer.features.length).toBe(20);
    expect((await rejection(readGeoPackageObject(bucket.store, bucket.key("nope.gpkg")))).message).toBe(
      "GeoPackage s3://gpkg-test/inputs/nope.gpkg does not exist.",
    );
  });
});
