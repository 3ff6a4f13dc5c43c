/**
 * The computed members of a BYOC collection's additionalData (OpenAPI BYOCCollectionAdditionalData), read from its
 * ingested tiles: maxMetersPerPixel (the coarsest tile's finest pixel size, m), extent (CRS84 Polygon of the
 * union of the tiles' boxes), hasSensingTimes (YES / PARTIALLY / NO) and from/toSensingTime.
 */
import type { Env } from "../env";
import { byocType } from "../storage/byoc/model";

interface Stats {
  n: number;
  timed: number;
  mpp: number | null;
  t0: string | null;
  t1: string | null;
}

/** The summary members; {} for a collection without ingested tiles. */
export async function collectionSummary(env: Pick<Env, "DB">, id: string): Promise<Record<string, unknown>> {
  const [tiles, box] = await env.DB.batch([
    env.DB.prepare(
      `SELECT count(*) AS n, count(sensing_time) AS timed, max(meters_per_pixel) AS mpp, min(sensing_time) AS t0, max(sensing_time) AS t1
       FROM byoc_tiles WHERE collection = ? AND status = 'INGESTED'`,
    ).bind(id),
    env.DB.prepare(
      "SELECT min(min_lon) AS w, min(min_lat) AS s, max(max_lon) AS e, max(max_lat) AS n FROM items WHERE collection = ?",
    ).bind(byocType(id)),
  ]);
  const s = (tiles!.results as Stats[])[0]!;
  if (!s.n) return {};
  const b = (box!.results as { w: number; s: number; e: number; n: number }[])[0]!;
  const out: Record<string, unknown> = {
    maxMetersPerPixel: s.mpp,
    extent: {
      type: "Polygon",
      coordinates: [
        [
          [b.w, b.s],
          [b.e, b.s],
          [b.e, b.n],
          [b.w, b.n],
          [b.w, b.s],
        ],
      ],
    },
    hasSensingTimes: s.timed === s.n ? "YES" : s.timed ? "PARTIALLY" : "NO",
  };
  if (s.t0) Object.assign(out, { fromSensingTime: s.t0, toSensingTime: s.t1 });
  return out;
}
