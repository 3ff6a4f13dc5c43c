/** CQL2 text parsing through cql2-wasm (cql2-rs) and the guards around it. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors";
import { parseCql2Text } from "../../src/catalog/cql2/text";

const message = (text: string): string => {
  try {
    parseCql2Text(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    return e instanceof Error ? e.message : String(e);
  }
  throw new Error(`'${text}' parsed`);
};

describe("parseCql2Text", () => {
  it("parses the CQL2 text forms clients send into CQL2 JSON", () => {
    expect(parseCql2Text("eo:cloud_cover<10")).toEqual({ op: "<", args: [{ property: "eo:cloud_cover" }, 10] });
    expect(parseCql2Text("sar:instrument_mode='IW' AND s1:polarization='DV'")).toEqual({
      op: "and",
      args: [
        { op: "=", args: [{ property: "sar:instrument_mode" }, "IW"] },
        { op: "=", args: [{ property: "s1:polarization" }, "DV"] },
      ],
    });
    expect(parseCql2Text("eo:cloud_cover BETWEEN 1 AND 5")).toEqual({
      op: "between",
      args: [{ property: "eo:cloud_cover" }, 1, 5],
    });
    expect(parseCql2Text("platform IN ('a','b')")).toEqual({ op: "in", args: [{ property: "platform" }, ["a", "b"]] });
    expect(parseCql2Text("x IS NOT NULL")).toEqual({ op: "not", args: [{ op: "isNull", args: [{ property: "x" }] }] });
  });

  it("rewrites exponent numbers (which trap cql2-rs 0.5.0-rc1) but not inside strings", () => {
    expect(parseCql2Text("gsd = 1e1")).toEqual({ op: "=", args: [{ property: "gsd" }, 10] });
    expect(parseCql2Text("gsd > 2.5E-3")).toEqual({ op: ">", args: [{ property: "gsd" }, 0.0025] });
    expect(parseCql2Text("id = 'a 1e3 )'")).toEqual({ op: "=", args: [{ property: "id" }, "a 1e3 )"] });
    expect(parseCql2Text("B1e3 = 1")).toEqual({ op: "=", args: [{ property: "B1e3" }, 1] });
  });

  it("rejects trailing input that cql2-rs alone would drop", () => {
    expect(message("a = 1 AND")).toMatch(/column 10/);
    expect(message("a << 1")).toMatch(/column 4/);
    expect(message("foo bar")).toMatch(/column 5 .*near 'bar'/);
    expect(message("a = 1) OR (b = 2")).toMatch(/character 6/);
    expect(message("   ")).toMatch(/empty/);
    expect(message("a = 1 AND\n  b <")).toMatch(/line 2, column 6/);
  });

  it("deep nesting is a 400 before or from the parser, and the next filter still parses", () => {
    expect(message(`${"(".repeat(21)}id = 'x'${")".repeat(21)}`)).toMatch(/parentheses deeper than 20 levels/);
    expect(parseCql2Text(`${"(".repeat(20)}id = 'x'${")".repeat(20)}`)).toEqual({
      op: "=",
      args: [{ property: "id" }, "x"],
    });
    expect(message(`${"NOT ".repeat(3000)}id = 'x'`)).toMatch(/could not read it.*at most 20 levels/); // a trap in cql2-rs
    expect(parseCql2Text("NOT NOT id = 'x'")).toEqual({
      op: "not",
      args: [{ op: "not", args: [{ op: "=", args: [{ property: "id" }, "x"] }] }],
    });
  });

  it("recovers from a trap: a fresh instance parses the next filter", () => {
    for (let i = 0; i < 50; i++) expect(message("geometry || s_intersects")).toMatch(/could not read it/);
    expect(parseCql2Text("eo:cloud_cover < 10 AND platform = 'sentinel-2a'")).toEqual({
      op: "and",
      args: [
        { op: "<", args: [{ property: "eo:cloud_cover" }, 10] },
        { op: "=", args: [{ property: "platform" }, "sentinel-2a"] },
      ],
    });
  });
});
