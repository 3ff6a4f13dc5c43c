/** The bearer-token middleware registered first in src/routes.ts. */
import type { Middleware } from "../http/router";
import { authenticate } from "./tokens";

/**
 * Verifies the bearer token of every route not registered public and stores its claims on the request
 * (`request.claims`, read by `accountOf`). Throws the 401 ApiError of {@link authenticate} (missing, malformed,
 * expired, foreign or wrongly signed token). Public routes (token endpoint, JWKS, OIDC configuration) pass untouched.
 */
export const bearerAuth: Middleware = async (request, env, _ctx, next, route) => {
  if (!route.isPublic) request.claims = await authenticate(request, env);
  return next();
};
