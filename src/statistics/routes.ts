/** POST /api/v1/statistics (alias /statistics/v1): parse, compute, render JSON. */
import type { Env } from "../env";
import { json, serverTiming } from "../http/base";
import { readScriptRequest } from "../http/body";
import { validate } from "../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { computeStatistics } from "../stats/aggregate";
import { chargeLater } from "../accounts/units";
import { statisticalRequestSchema, type StatisticalRequest } from "../stats/schema";
import { SCRIPT_BODY } from "../openapi/meta";

/** Multipart: the `evalscript` part replaces aggregation.evalscript (OpenAPI `MultiPartStatisticalRequest`). */
const placeEvalscript = (body: Record<string, unknown>, evalscript: string): void => {
  body.aggregation = { ...(body.aggregation as Record<string, unknown> | undefined), evalscript };
};

/** Handles a Statistical API request; its processing units are charged after the response (chargeLater). */
export async function statisticsHandler(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const req: StatisticalRequest = validate(
    statisticalRequestSchema,
    await readScriptRequest(request, placeEvalscript),
    "statistical request",
  );
  const result = await computeStatistics(env, req, accountOf(request));
  // like Process: the charge (a Durable Object call) runs after the response, exactly once, if the limiter admitted it
  chargeLater(ctx, env, accountOf(request), result.processingUnits, request.admitted);
  return json(result.response, 200, {
    "x-processingunits-spent": String(result.processingUnits),
    "server-timing": serverTiming(result.timings),
  });
}

/** Registers the Statistical API routes. */
export function registerStatistics(api: Api): void {
  // speculative: may start before the limiter's decision (it only reads; the charge waits for the decision)
  const meta = {
    summary: "Statistics of an evalscript's outputs over a geometry and time intervals",
    tags: ["Statistics"],
    body: statisticalRequestSchema,
    bodyTypes: SCRIPT_BODY,
    metered: true,
    speculative: true,
  };
  api.on("POST", "/api/v1/statistics", statisticsHandler, meta).on("POST", "/statistics/v1", statisticsHandler, meta);
}
