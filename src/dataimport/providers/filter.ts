/**
 * Planet's Data API search filters (developers.planet.com "Search filters": AndFilter, OrFilter, NotFilter,
 * GeometryFilter, DateRangeFilter, RangeFilter, StringInFilter, each `{type, field_name, config}`): built from a
 * process-like search input (what Sentinel Hub's /dataimport/search sends to Planet's quick-search), and evaluated
 * over features by the sample provider, whose native search takes the same language.
 */
import booleanIntersects from "@turf/boolean-intersects";
import { badRequest } from "../../http/errors";
import { lonLatPolygons } from "../area";
import type { SearchBody } from "../schema";

export interface PlanetFilter {
  type: string;
  field_name?: string;
  config?: unknown;
}

/** The quick-search filter of a process-like input: footprint, acquisition window, cloud cover (0..1), nativeFilter. */
export function filterOf(input: SearchBody): PlanetFilter {
  const polys = lonLatPolygons(input.bounds);
  const geometry =
    polys.length === 1 ? { type: "Polygon", coordinates: polys[0] } : { type: "MultiPolygon", coordinates: polys };
  const f = input.data[0]!.dataFilter ?? {};
  const config: PlanetFilter[] = [{ type: "GeometryFilter", field_name: "geometry", config: geometry }];
  const t = f.timeRange;
  if (t?.from || t?.to)
    config.push({
      type: "DateRangeFilter",
      field_name: "acquired",
      config: {
        ...(t.from ? { gte: new Date(t.from).toISOString() } : {}),
        ...(t.to ? { lte: new Date(t.to).toISOString() } : {}),
      },
    });
  if (f.maxCloudCoverage !== undefined)
    config.push({ type: "RangeFilter", field_name: "cloud_cover", config: { lte: f.maxCloudCoverage / 100 } });
  if (f.nativeFilter) config.push(f.nativeFilter as unknown as PlanetFilter);
  return { type: "AndFilter", config };
}

type Range = { gt?: unknown; gte?: unknown; lt?: unknown; lte?: unknown };

function inRange(v: unknown, r: Range, parse: (x: unknown) => number): boolean {
  if (v === undefined || v === null) return false;
  const x = parse(v);
  return (
    (r.gt === undefined || x > parse(r.gt)) &&
    (r.gte === undefined || x >= parse(r.gte)) &&
    (r.lt === undefined || x < parse(r.lt)) &&
    (r.lte === undefined || x <= parse(r.lte))
  );
}

const time = (x: unknown): number => {
  const t = Date.parse(String(x));
  if (!Number.isFinite(t)) throw badRequest(`Invalid date '${String(x).slice(0, 40)}' in a DateRangeFilter.`);
  return t;
};

/**
 * Whether `feature` (GeoJSON with `properties`) passes `filter`.
 * @throws ApiError 400 for a filter type this evaluator does not know or a malformed config.
 */
export function matches(
  filter: PlanetFilter,
  feature: { geometry: unknown; properties: Record<string, unknown> },
): boolean {
  const field = filter.field_name === "geometry" ? feature.geometry : feature.properties[filter.field_name ?? ""];
  const list = () => {
    if (!Array.isArray(filter.config)) throw badRequest(`${filter.type}.config must be an array of filters.`);
    return filter.config as PlanetFilter[];
  };
  switch (filter.type) {
    case "AndFilter":
      return list().every((f) => matches(f, feature));
    case "OrFilter":
      return list().some((f) => matches(f, feature));
    case "NotFilter":
      return !matches(filter.config as PlanetFilter, feature);
    case "GeometryFilter":
      try {
        return booleanIntersects(feature.geometry as never, filter.config as never);
      } catch {
        throw badRequest("GeometryFilter.config must be a GeoJSON geometry in longitude/latitude.");
      }
    case "DateRangeFilter":
      return inRange(field, (filter.config ?? {}) as Range, time);
    case "RangeFilter":
      return inRange(field, (filter.config ?? {}) as Range, Number);
    case "StringInFilter":
      return Array.isArray(filter.config) && filter.config.includes(field);
    default:
      throw badRequest(
        `Unknown filter type '${String(filter.type).slice(0, 40)}': AndFilter, OrFilter, NotFilter, GeometryFilter, DateRangeFilter, RangeFilter or StringInFilter.`,
      );
  }
}
