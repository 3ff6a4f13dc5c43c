/** GET /api/v1/metadata/location and /api/v1/metadata/location/{locationId} (spec 4.14, Sentinel Hub `Location`). */
import type { IRequest } from "itty-router";
import type { Env } from "../env";
import { json } from "../http/base";
import { notFound } from "../http/errors";
import { findLocation, locations } from "./config";

/** The configured locations, the primary first (a JSON array of Location). */
export function listLocations(_request: IRequest, env: Env): Response {
  return json(locations(env));
}

/** One location by id; 404 COMMON_NOT_FOUND naming the known ids when it is not configured. */
export function getLocation(request: IRequest, env: Env): Response {
  const id = decodeURIComponent(request.params.locationId ?? "");
  const found = findLocation(env, id);
  if (!found)
    throw notFound(
      `Location '${id}' does not exist; known locations: ${locations(env)
        .map((l) => l.id)
        .join(", ")}.`,
    );
  return json(found);
}
