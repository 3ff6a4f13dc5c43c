/**
 * Time units of Zarr time coordinate arrays (Sentinel Hub: "<unit> since <instant>", unit days / hours / minutes /
 * seconds / millis / micros / nanos, instant ISO 8601 or CF `time:units` style), against instants computed by hand.
 */
import { describe, expect, it } from "vitest";
import { parseTimeUnits } from "../../src/zarr/inspect";

describe("parseTimeUnits", () => {
  it("reads ISO 8601 and CF-style instants and every unit", () => {
    expect(parseTimeUnits("seconds since 1970-01-01T00:00:00Z")).toEqual({ scale: 1000, epoch: 0 });
    expect(parseTimeUnits("days since 2000-01-01")).toEqual({ scale: 86_400_000, epoch: Date.UTC(2000, 0, 1) });
    expect(parseTimeUnits("hours since 2017-08-04 10:53:28")).toEqual({
      scale: 3_600_000,
      epoch: Date.UTC(2017, 7, 4, 10, 53, 28),
    });
    expect(parseTimeUnits("minutes since 2020-02-19T11:34:25+01:00")?.epoch).toBe(Date.UTC(2020, 1, 19, 10, 34, 25));
    expect(parseTimeUnits("nanos since 1970-01-01T00:00:00Z")?.scale).toBe(1e-6);
  });

  it("refuses other units, missing instants and non-strings", () => {
    for (const u of ["fortnights since 2000-01-01", "seconds", "seconds since yesterday", undefined, 3])
      expect(parseTimeUnits(u)).toBeNull();
  });
});
