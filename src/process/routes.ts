/** POST /api/v1/process (alias /process/v1): parse, plan, evaluate, render. */
import type { Env } from "../env";
import { serverTiming } from "../http/base";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { negotiate } from "./accept";
import { chargeLater } from "../accounts/units";
import { evaluatePlan, prepareEvalscript } from "../pipeline/pipeline";
import { ADMISSION_STALL_MS, admit, planBytes, type Permit } from "../pipeline/admission";
import type { BodyProgress } from "./stream";
import { planRequest, withSources } from "../pipeline/plan";
import { prefetchScenes } from "../pipeline/prefetch";
import { renderResponses } from "./render";
import { readProcessRequest } from "./request";
import type { ResponseRequest } from "./schema";
import { processRequestSchema } from "./schema";
import { SCRIPT_BODY } from "../openapi/meta";

const DEFAULT_RESPONSES: ResponseRequest[] = [{ identifier: "default", format: { type: "image/png" } }];

/**
 * Handles a Processing API request end to end. Evaluation and encoding run once the isolate's admission lets the
 * request's pixels in (src/pipeline/admission.ts: they wait for room, or the request is answered 503); they are
 * let out once the body is sent (a streamed GeoTIFF's strips are the evaluation's values), or when its client has
 * taken nothing for ADMISSION_STALL_MS (so a client that stops reading never holds the room), or at once for a
 * body in one array.
 */
export async function processHandler(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const p0 = Date.now();
  const req = await readProcessRequest(request);
  const parse = Date.now() - p0; // the body as it streams in, JSON and validation
  const responses = req.output?.responses ?? DEFAULT_RESPONSES;
  const packing = negotiate(responses, request.headers.get("accept"));
  const area = planRequest(req.input, req.output);
  prefetchScenes(env, accountOf(request), area, req.input.data); // travels while the evalscript is prepared
  const s0 = Date.now();
  const script = await prepareEvalscript(env, req.evalscript, accountOf(request));
  const s1 = Date.now();
  const plan = await withSources({ env, account: script.account }, area, req.input.data, script.setup);
  const s2 = Date.now();
  const permit = await admit(
    planBytes(
      plan,
      script.setup,
      "encode",
      responses.map((r) => r.format.type),
    ),
  );
  const s3 = Date.now();
  const hold = holdWhileRead(permit);
  const { evaluation, t0, body, contentType } = await (async () => {
    const outputs = responses.map((r) => r.identifier);
    const evaluation = await evaluatePlan(env, script, plan, { convert: true, outputs });
    const t0 = Date.now();
    return { evaluation, t0, ...(await renderResponses(evaluation.result, responses, packing, plan.grid, hold)) };
  })().catch((e: unknown) => {
    permit.release();
    throw e;
  });
  if (body instanceof ReadableStream)
    hold.wrote(); // its client's clock starts now
  else permit.release();
  // the charge (a Durable Object call) runs after the response, exactly once, if the rate limiter admitted it
  chargeLater(ctx, env, accountOf(request), evaluation.processingUnits, request.admitted);
  const timings = {
    parse,
    script: s1 - s0,
    sources: s2 - s1,
    admission: s3 - s2,
    ...evaluation.timings,
    encode: Date.now() - t0,
  };
  return new Response(body, {
    headers: {
      "content-type": contentType,
      "x-processingunits-spent": String(evaluation.processingUnits),
      "server-timing": `${serverTiming(timings)}, strips;desc="${evaluation.strips}"`,
    },
  });
}

/** Body progress that keeps `permit` while the client reads: released at the end, or after a stall of ADMISSION_STALL_MS. */
function holdWhileRead(permit: Permit): BodyProgress {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    wrote() {
      clearTimeout(timer);
      timer = setTimeout(permit.release, ADMISSION_STALL_MS);
    },
    sent() {
      clearTimeout(timer);
      permit.release();
    },
  };
}

/** Registers the Processing API routes. */
export function registerProcess(api: Api): void {
  // metered: spends processing units; speculative: may start before the limiter's decision (the charge waits for it)
  const meta = {
    summary: "Render an evalscript over a bbox or geometry",
    tags: ["Process"],
    body: processRequestSchema,
    bodyTypes: SCRIPT_BODY,
    metered: true,
    speculative: true,
  };
  api.on("POST", "/api/v1/process", processHandler, meta).on("POST", "/process/v1", processHandler, meta);
}
