/** Aggregation intervals: ISO 8601 periods, calendar months, SKIP / SHORTEN / EXTEND, limits. */
import { describe, expect, it } from "vitest";
import { EngineError } from "../../src/raster/errors";
import { isoTime, MAX_INTERVALS, parsePeriod, splitIntervals } from "../../src/stats/intervals";

const t = (s: string) => Date.parse(s);
const show = (ivs: { from: number; to: number }[]) => ivs.map((i) => `${isoTime(i.from)}/${isoTime(i.to)}`);

describe("aggregation intervals", () => {
  it("parses periods of days, weeks, months and years", () => {
    expect(parsePeriod("P1D")).toEqual({ years: 0, months: 0, days: 1 });
    expect(parsePeriod("P2W")).toEqual({ years: 0, months: 0, days: 14 });
    expect(parsePeriod("P1Y2M10D")).toEqual({ years: 1, months: 2, days: 10 });
    for (const bad of ["PT1H", "P0D", "P", "1D", "P1.5D", "monthly", "P1DT12H"])
      expect(() => parsePeriod(bad), bad).toThrow(EngineError);
  });

  it("P5D over 12 days: SKIP drops, SHORTEN cuts, EXTEND keeps the last interval", () => {
    const [from, to] = [t("2020-06-01T00:00:00Z"), t("2020-06-13T00:00:00Z")];
    expect(show(splitIntervals(from, to, "P5D", "SKIP"))).toEqual([
      "2020-06-01T00:00:00Z/2020-06-06T00:00:00Z",
      "2020-06-06T00:00:00Z/2020-06-11T00:00:00Z",
    ]);
    expect(show(splitIntervals(from, to, "P5D", "SHORTEN")).at(-1)).toBe("2020-06-11T00:00:00Z/2020-06-13T00:00:00Z");
    expect(show(splitIntervals(from, to, "P5D", "EXTEND")).at(-1)).toBe("2020-06-11T00:00:00Z/2020-06-16T00:00:00Z");
    expect(splitIntervals(from, to, "P5D")).toHaveLength(2); // SKIP is the default
  });

  it("an exact multiple has no partial interval; from == to has none", () => {
    expect(splitIntervals(t("2020-06-01T00:00:00Z"), t("2020-06-11T00:00:00Z"), "P5D", "EXTEND")).toHaveLength(2);
    expect(splitIntervals(t("2020-06-01T00:00:00Z"), t("2020-06-01T00:00:00Z"), "P1D")).toEqual([]);
  });

  it("P1M steps calendar months from the start, clamping to the month's last day", () => {
    expect(show(splitIntervals(t("2020-01-31T00:00:00Z"), t("2020-05-01T00:00:00Z"), "P1M"))).toEqual([
      "2020-01-31T00:00:00Z/2020-02-29T00:00:00Z",
      "2020-02-29T00:00:00Z/2020-03-31T00:00:00Z",
      "2020-03-31T00:00:00Z/2020-04-30T00:00:00Z",
    ]);
    expect(show(splitIntervals(t("2019-03-15T06:00:00Z"), t("2021-03-15T06:00:00Z"), "P1Y"))).toEqual([
      "2019-03-15T06:00:00Z/2020-03-15T06:00:00Z",
      "2020-03-15T06:00:00Z/2021-03-15T06:00:00Z",
    ]);
  });

  it("rejects from > to and more than MAX_INTERVALS intervals, naming the limit", () => {
    expect(() => splitIntervals(t("2020-02-01T00:00:00Z"), t("2020-01-01T00:00:00Z"), "P1D")).toThrow(
      /must not be after/,
    );
    expect(() => splitIntervals(t("2000-01-01T00:00:00Z"), t("2020-01-01T00:00:00Z"), "P1D")).toThrow(
      new RegExp(`at most ${MAX_INTERVALS}`),
    );
  });
});
