/**
 * Unit conversion of DN (src/pipeline/bands.ts unitsScale / convertUnits; src/raster/warp/values.ts applyScale and
 * the NEAREST gather's value tables) against the formulas it replaced, written out here as the oracle: Sentinel-2
 * `(DN + offset) / 10000` (offset applied for REFLECTANCE or harmonized, clamped at 0 when harmonized, masked to 0
 * where there is no data when 0 maps elsewhere), DN / 1000 for OPTICAL_DEPTH, and `DN * scale + offset` of a
 * non-Sentinel-2 band's `raster:bands`. Every UINT16 value, the same Float32 bits both ways.
 */
import { describe, expect, it } from "vitest";
import { convertUnits, unitsScale } from "../../src/pipeline/bands";
import type { BandDef, DataCollection } from "../../src/pipeline/collections";
import { valueTable } from "../../src/raster/warp/values";
import type { StacItem } from "../../src/storage/stac";

const N = 65536;
const dn = Float32Array.from({ length: N }, (_, i) => i);
/** No data at DN 0 and at every 7th value (a mask that is not the DN's). */
const valid = Uint8Array.from({ length: N }, (_, i) => (i === 0 || i % 7 === 3 ? 0 : 1));
const withoutData = (a: Float32Array) => a.map((v, i) => (valid[i] ? v : 0));

/** The former Sentinel-2 loop (convertUnits before unitsScale). */
function s2Oracle(offset: number, units: string, harmonize: boolean): Float32Array {
  const out = withoutData(dn);
  const scale = units === "REFLECTANCE" ? 1 / 10000 : units === "OPTICAL_DEPTH" ? 1 / 1000 : 1;
  const applyOffset = units === "REFLECTANCE" || harmonize;
  const check = (harmonize ? Math.max(0, offset) : applyOffset ? offset : 0) * scale !== 0;
  for (let i = 0; i < N; i++) {
    if (check && !valid[i]) {
      out[i] = 0;
      continue;
    }
    let v = applyOffset ? out[i]! + offset : out[i]!;
    if (harmonize && v < 0) v = 0;
    out[i] = v * scale;
  }
  return out;
}

const bits = (a: Float32Array) => new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));
/** DN values whose results differ in any bit (a count: a diff of 65536 values takes vitest minutes to print). */
const differing = (a: Float32Array, b: Float32Array) => {
  const [x, y] = [bits(a), bits(b)];
  return x.filter((v, i) => v !== y[i]).length;
};
const s2 = { optical: true } as unknown as DataCollection;
const landsat = { optical: false } as unknown as DataCollection;
const def = (units: string[], name = "B04") => ({ name, units }) as unknown as BandDef;
const s2Item = (baseline: string) =>
  ({ properties: { "s2:processing_baseline": baseline }, assets: {} }) as unknown as StacItem;

/** convertUnits and the gather's table (value per DN where valid, 0 elsewhere) give `expected`'s bits. */
function expectBoth(expected: Float32Array, d: BandDef, units: string, c: DataCollection, item: StacItem, h: boolean) {
  expect(differing(convertUnits(withoutData(dn), valid, d, units, c, item, h), expected)).toBe(0);
  const { table, bias } = valueTable("UINT16", 0, unitsScale(d, units, c, item, h))!;
  const gathered = Float32Array.from({ length: N }, (_, v) => (valid[v] ? table[v + bias]! : 0));
  gathered[0] = 0; // DN 0 is the nodata value: the table maps it to 0, the gather marks it invalid
  expect(differing(gathered, expected)).toBe(0);
}

describe("DN to the requested units, every UINT16 value", () => {
  it.each([
    ["REFLECTANCE", "04.00", true],
    ["REFLECTANCE", "04.00", false],
    ["REFLECTANCE", "02.09", true],
    ["REFLECTANCE", "02.09", false],
    ["DN", "04.00", true],
    ["DN", "04.00", false],
    ["DN", "02.09", true],
  ] as const)("Sentinel-2 %s, baseline %s, harmonizeValues %s", (units, baseline, harmonize) => {
    const offset = baseline === "04.00" ? -1000 : 0;
    expectBoth(s2Oracle(offset, units, harmonize), def(["REFLECTANCE", "DN"]), units, s2, s2Item(baseline), harmonize);
  });

  it("AOT in OPTICAL_DEPTH: DN / 1000", () => {
    for (const harmonize of [true, false])
      expectBoth(
        s2Oracle(0, "OPTICAL_DEPTH", harmonize),
        def(["OPTICAL_DEPTH", "DN"], "AOT"),
        "OPTICAL_DEPTH",
        s2,
        s2Item("04.00"),
        harmonize,
      );
  });

  it("a declared scale and offset (raster:bands, Landsat surface reflectance): DN * scale + offset where valid", () => {
    const item = {
      properties: {},
      assets: { red: { "raster:bands": [{ scale: 0.0000275, offset: -0.2 }] } },
    } as unknown as StacItem;
    const expected = dn.map((v, i) => (valid[i] ? v * 0.0000275 - 0.2 : 0));
    expectBoth(expected, def(["REFLECTANCE", "DN"], "red"), "REFLECTANCE", landsat, item, true);
  });
});
