/**
 * The up-front check of a plan against the Workers limit on subrequests (10,000 per request on the Paid plan, 50 on
 * the Free plan: developers.cloudflare.com/workers/platform/limits/): scenes read from an upstream archive cost
 * HTTP requests, and a request that would run out of them mid-way is refused before any is made, with a 400 that
 * names the limit. The estimate is a lower bound: per upstream scene, per asset file read, one open plus one ranged
 * read per strip (coalesced block ranges need at least that many); local scenes (R2) are not counted.
 */
import { EngineError } from "../raster/errors";
import { locateBand, type StacItem } from "../storage/items";
import type { Scene } from "./scenes";

/** Default subrequest limit per request (Workers Paid plan); the MAX_SUBREQUESTS variable sets another. */
export const DEFAULT_MAX_SUBREQUESTS = 10_000;

/** True for an item the upstream archive answered (asset hrefs are URLs, a `via` link names the upstream item). */
const upstream = (item: StacItem): boolean => (item.links as { rel?: string }[]).some((l) => l.rel === "via");

/** Distinct asset files of `item` that hold `bands`. */
function filesOf(item: StacItem, bands: string[]): number {
  return new Set(bands.map((b) => locateBand(item, b)?.key).filter((k) => k !== undefined)).size;
}

/** The limit in force: MAX_SUBREQUESTS when it is a positive integer, else DEFAULT_MAX_SUBREQUESTS. */
export function subrequestLimit(env: { MAX_SUBREQUESTS?: string }): number {
  const n = Number(env.MAX_SUBREQUESTS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_SUBREQUESTS;
}

/**
 * Throws when reading `sources` (each: its scenes and the file bands it reads) in `strips` strips would need more
 * upstream requests than `limit`.
 * @throws EngineError invalid-argument with `limit` {name: "subrequests", max} naming the estimate and the limit.
 */
export function checkSubrequests(sources: { scenes: Scene[]; bands: string[] }[], strips: number, limit: number): void {
  let needed = 0;
  for (const s of sources) for (const scene of s.scenes) if (upstream(scene.item)) needed += filesOf(scene.item, s.bands) * (1 + strips);
  if (needed <= limit) return;
  throw new EngineError(
    "invalid-argument",
    `This request would need at least ${needed} requests to the upstream archive, more than the limit of ${limit} subrequests per request (Cloudflare Workers). Ask for fewer bands, a shorter timeRange, a smaller area or a lower resolution.`,
    undefined,
    { name: "subrequests", max: limit },
  );
}
