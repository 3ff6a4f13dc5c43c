/** Batch GeoPackageInput features: identifier / width / height / resolution columns and the request's defaults. */
import { describe, expect, it } from "vitest";
import { batchFeatures } from "../../src/vector/batchfeatures";
import { readGeoPackage, type GeoPackageLayer } from "../../src/vector/geopackage";
import { engineErrorOf } from "../helpers/engine-error";
import { sampleFile } from "../helpers/seed";

const layerOf = async (name: string) => readGeoPackage(new Uint8Array(await sampleFile(`fixtures/vector/${name}`)));
const reference = async () =>
  JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/vector/reference.json"))) as Record<
    string,
    { layers: { features: { envelope: number[] }[] }[] }
  >;

const message = (fn: () => unknown): string => engineErrorOf(fn).message;

/** A copy of the layer with feature `index`'s properties replaced by `props` (merged). */
function withProps(
  layer: GeoPackageLayer,
  index: number,
  props: Record<string, number | string | null>,
): GeoPackageLayer {
  const features = layer.features.map((f, i) =>
    i === index ? { ...f, properties: { ...f.properties, ...props } } : f,
  );
  return { ...layer, features };
}

describe("batchFeatures", () => {
  it("takes identifier, width/height or resolution per feature, defaults where NULL, bbox as OGR's envelope", async () => {
    const layer = await layerOf("batch_features.gpkg");
    const ref = (await reference())["batch_features.gpkg"]!.layers[0]!.features;
    const features = batchFeatures(layer, { resolution: 5 });
    expect(features.map((f) => [f.identifier, f.fid, f.epsg, f.output])).toEqual([
      ["field-a", 1, 32631, { width: 64, height: 64 }],
      ["field-b", 2, 32631, { resx: 10, resy: 10 }],
      ["field-c", 3, 32631, { resx: 20, resy: 20 }],
      ["field-d", 4, 32631, { resx: 5, resy: 5 }],
    ]);
    features.forEach((f, i) => {
      const [minX, maxX, minY, maxY] = ref[i]!.envelope as [number, number, number, number];
      expect(f.bbox).toEqual([minX, minY, maxX, maxY]);
    });
    expect(batchFeatures(layer, { width: 32, height: 16 })[3]!.output).toEqual({ width: 32, height: 16 });
  });

  it("uses fids as identifiers when the layer has no identifier column", async () => {
    const fields = batchFeatures(await layerOf("westflanders_fields.gpkg"), { width: 20, height: 20 });
    expect(fields.map((f) => f.identifier)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
    expect(fields[13]!.geometry.type).toBe("MultiPolygon");
  });

  it("refuses missing sizes, mixed or half sizes, bad values, duplicate or unsafe identifiers", async () => {
    const layer = await layerOf("batch_features.gpkg");
    expect(message(() => batchFeatures(layer))).toBe(
      'Feature 4 ("field-d") has no width and height or resolution, and the request sets no defaults.',
    );
    expect(message(() => batchFeatures(layer, { width: 10, height: 10, resolution: 10 }))).toBe(
      "defaults: set either width and height or resolution, not both.",
    );
    expect(message(() => batchFeatures(layer, { width: 10 }))).toBe(
      "defaults: width and height must be set together (height is missing).",
    );
    expect(message(() => batchFeatures(layer, { width: 3501, height: 10 }))).toMatch(
      /width 3501 must be an integer from 1 to 3500/,
    );
    expect(message(() => batchFeatures(withProps(layer, 1, { width: 20 }), { resolution: 5 }))).toMatch(
      /Feature 2 \("field-b"\): set either width and height or resolution/,
    );
    expect(message(() => batchFeatures(withProps(layer, 1, { resolution: -1 }), { resolution: 5 }))).toMatch(
      /resolution -1 must be a number > 0/,
    );
    expect(message(() => batchFeatures(withProps(layer, 1, { resolution: "ten" }), { resolution: 5 }))).toMatch(
      /column resolution holds "ten", not a number/,
    );
    expect(message(() => batchFeatures(withProps(layer, 2, { identifier: "field-a" }), { resolution: 5 }))).toBe(
      'Feature 3 ("field-a"): identifier "field-a" is also used by feature 1; identifiers must be unique.',
    );
    expect(message(() => batchFeatures(withProps(layer, 0, { identifier: "a/b" }), { resolution: 5 }))).toMatch(
      /must not contain/,
    );
    expect(message(() => batchFeatures(withProps(layer, 0, { identifier: null }), { resolution: 5 }))).toMatch(
      /Feature 1: column identifier must be a non-empty text or integer/,
    );
    expect(message(() => batchFeatures({ ...layer, features: [] }, { resolution: 5 }))).toBe(
      'Layer "features" of the GeoPackage has no features.',
    );
  });
});
