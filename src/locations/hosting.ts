/**
 * Which location serves a request and whether it hosts a collection.
 *
 * Sentinel Hub answers a request for a collection hosted in another deployment with 404 Not Found: the Catalog
 * API with "Collection not found." (sentinel-hub/sentinelhub-py#450: Landsat searched on
 * services.sentinel-hub.com, hosted in aws-us-west-2), the Processing API with COMMON_NOT_FOUND "BYOC collection
 * <id> not found." (sentinel-hub/sentinelhub-py#133: a collection hosted on Mundi). EO Edge keeps that status and code
 * and names the location that hosts the collection and its URL in the message and in `errors`.
 */
import { findLocation, parseLocations, primaryLocation, type Location, type LocationEnv } from "./config";
import { bucketLocation, type RegionEnv } from "./regions";
import { urlOf } from "../http/base";

/** What a hosting check needs of a registry collection (src/storage/registry.ts DataCollection). */
export interface Hosted {
  /** Processing type / catalog id. */
  id: string;
  /** Location id it is hosted in; null = the primary location. Not read for BYOC collections (see hostOf). */
  location: string | null;
  /** Registry kind: `byoc` collections are hosted by their bucket's region. */
  kind?: string;
  /** Kind-specific settings: a BYOC collection's `s3Bucket`. */
  config?: Record<string, unknown>;
}

/**
 * The location id a collection is hosted in: for a BYOC collection the location of its bucket's region
 * (./regions.ts), for the others its registry location; else the primary location.
 */
export const hostOf = (env: RegionEnv, c: Hosted): string =>
  (c.kind === "byoc" ? bucketLocation(env, String(c.config?.s3Bucket ?? "")) : c.location) ?? primaryLocation(env);

/** True when this deployment (LOCATION_ID) hosts collection `c`. */
export const hostedHere = (env: RegionEnv, c: Hosted): boolean =>
  hostOf(env, c) === (env.LOCATION_ID || primaryLocation(env));

/**
 * A collection hosted in another location, as a failure with kind `not-found` that the HTTP layer renders as
 * 404 COMMON_NOT_FOUND (src/http/errors.ts recognises the kind by shape; this module imports no HTTP).
 * `details` (the envelope's `errors`): one entry `{collection, location}` with the location record (spec 4.14).
 */
export class NotHostedError extends Error {
  override readonly name = "NotHostedError";
  readonly kind = "not-found";
  constructor(
    message: string,
    readonly details: readonly [{ collection: string; location: Location | { id: string } }],
  ) {
    super(message);
  }
}

/**
 * The failure for collection `c` hosted in another location: the message names that location and the URL to send
 * the request to (see NotHostedError).
 */
export function elsewhere(env: RegionEnv, c: Hosted): NotHostedError {
  const id = hostOf(env, c);
  const at: Location | undefined = findLocation(env, id);
  const here = env.LOCATION_ID || primaryLocation(env);
  const where = at
    ? `it is hosted in location '${id}': send the request to ${at.url} (GET ${at["@id"]} lists its endpoints).`
    : `it is hosted in location '${id}', which this deployment does not list (GET /api/v1/metadata/location).`;
  return new NotHostedError(`Collection ${c.id} not found in location '${here}'; ${where}`, [
    { collection: c.id, location: at ?? { id } },
  ]);
}

/**
 * Throws for the first collection of `list` this deployment does not host (Processing, Statistical, Async and
 * Batch requests go through withSources, which calls this once the sources are resolved).
 * @throws NotHostedError (404 COMMON_NOT_FOUND) from `elsewhere`.
 */
export function assertHosted(env: RegionEnv, list: Hosted[]): void {
  const away = list.find((c) => !hostedHere(env, c));
  if (away) throw elsewhere(env, away);
}

/**
 * `env` as location `location` sees it (LOCATION_ID replaced; unchanged when `location` is absent or already it):
 * the queue consumer runs a task as the location that accepted it (the id stored in the task's record).
 */
export function asLocation<E extends LocationEnv>(env: E, location: string | undefined): E {
  return location && location !== env.LOCATION_ID ? { ...env, LOCATION_ID: location } : env;
}

/**
 * `env` as the location a request was sent to sees it: with LOCATIONS configured, a request whose URL origin is a
 * listed location's URL is served as that location (LOCATION_ID replaced); otherwise `env` unchanged. Only listed
 * URLs select a location, the Host header cannot name another; links and the token issuer stay PUBLIC_BASE_URL's.
 */
export function atLocation<E extends LocationEnv>(request: Request, env: E): E {
  if (!env.LOCATIONS) return env;
  const origin = urlOf(request).origin;
  const hit = parseLocations(env.LOCATIONS).find((l) => new URL(l.url).origin === origin);
  return asLocation(env, hit?.id);
}
