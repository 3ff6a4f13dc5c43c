/**
 * Submitting an async request: everything the client can get wrong is checked before it is accepted, so a bad
 * request is a 400 now rather than an error.json later: the body (./schema.ts), the evalscript reference, the
 * bounds and size (./plan.ts), the script (compiled, setup() run), the responses against setup()'s outputs, and the
 * delivery URL; the buckets of the reference and the delivery must be the account's (or granted to it, 403).
 */
import type { Env } from "../env";
import { readScriptRequest } from "../http/body";
import { badRequest } from "../http/errors";
import { validate } from "../http/parse";
import { prepareEvalscript } from "../pipeline/pipeline";
import { resolveSources } from "../pipeline/sources";
import type { OutputRequest } from "../pipeline/output";
import type { EvalSetup } from "../raster/evalscript";
import type { Grid } from "../raster/types";
import { readScriptObject } from "../buckets/script";
import { deliveryTarget } from "./delivery";
import type { AsyncRecord } from "./schema";
import { fileName, MAX_WHOLE_PIXELS } from "./outputs";
import { asyncArea, responsesOf } from "./render";
import { asyncRequestSchema } from "./schema";

const FORMATS = ["image/tiff", "image/png", "image/jpeg", "application/json"];

/** Checks one response against the script's outputs and the grid. @throws ApiError 400 */
function checkResponse(r: OutputRequest, setup: EvalSetup, grid: Grid): void {
  const type = r.format.type;
  if (!FORMATS.includes(type))
    throw badRequest(
      `Unsupported output format '${type}' of response '${r.identifier}'. Supported: ${FORMATS.join(", ")}.`,
    );
  if ((r.identifier === "userdata") !== (type === "application/json"))
    throw badRequest(
      `Response '${r.identifier}': application/json is the format of the 'userdata' response and only of it.`,
    );
  if (r.identifier !== "userdata" && !setup.outputs.some((o) => o.id === r.identifier))
    throw badRequest(
      `Response identifier '${r.identifier}' matches no evalscript output (outputs: ${setup.outputs.map((o) => o.id).join(", ")}; or use 'userdata').`,
    );
  if ((type === "image/png" || type === "image/jpeg") && grid.width * grid.height > MAX_WHOLE_PIXELS)
    throw badRequest(
      `Response '${r.identifier}': ${type} async outputs are limited to ${MAX_WHOLE_PIXELS} px (2500 x 2500); this one is ${grid.width} x ${grid.height}. Use image/tiff, which is written strip by strip up to 10000 x 10000.`,
    );
}

/** Checks every response and that no two write the same file. @throws ApiError 400 */
function checkResponses(responses: OutputRequest[], setup: EvalSetup, grid: Grid): void {
  const names = new Set<string>();
  for (const r of responses) {
    checkResponse(r, setup, grid);
    if (names.has(fileName(r)))
      throw badRequest(`Two responses would both write '${fileName(r)}'; give each response its own identifier.`);
    names.add(fileName(r));
  }
}

/**
 * Parses and checks a submission of `account`; returns the record to store under a new id.
 * @throws ApiError 400 (envelope) for any of the checks in the module docs; 415 for a wrong content type;
 *   BucketAccessDenied (403) for a bucket of another account.
 */
export async function acceptAsync(request: Request, env: Env, account: string): Promise<AsyncRecord> {
  const body = await readScriptRequest(request, (b, script) => void (b.evalscript = script));
  const req = validate(asyncRequestSchema, body, "async process request");
  const evalscript =
    req.evalscript ?? (await readScriptObject(env, account, req.evalscriptReference!.s3, "evalscriptReference"));
  const plan = asyncArea(req);
  const { setup } = await prepareEvalscript(env, evalscript, account);
  await resolveSources({ env, account }, req.input.data, setup); // unknown collections, bands, units: 400 now
  const record: AsyncRecord = {
    id: crypto.randomUUID(),
    account,
    created: new Date().toISOString(),
    location: env.LOCATION_ID,
    request: { ...req, evalscript },
  };
  checkResponses(responsesOf(record), setup, plan.grid);
  await deliveryTarget(env, account, req.output.delivery.s3, record.id, "request.json"); // a bad URL is a 400 now, a bucket of another account a 403
  return record;
}
