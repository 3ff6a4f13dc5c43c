/** GET /api/v1/metadata/location and /api/v1/metadata/location/{locationId}. */
import type { IRequest } from "itty-router";
import type { Env } from "../env";
import { json, publicBaseUrl } from "../http/base";
import { notFound } from "../http/errors";
import { locations } from "./config";

export function listLocations(_request: IRequest, env: Env): Response {
  return json(locations(env, publicBaseUrl(env)));
}

export function getLocation(request: IRequest, env: Env): Response {
  const id = decodeURIComponent(request.params.locationId ?? "");
  const found = locations(env, publicBaseUrl(env)).find((l) => l.id === id);
  if (!found) throw notFound(`Location '${id}' does not exist.`);
  return json(found);
}
