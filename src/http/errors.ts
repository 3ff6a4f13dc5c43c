/**
 * The error envelope of the interface spec: `{"error":{"status","reason","message","code","errors"}}`.
 * Throw an ApiError anywhere below a route; the router renders it with the matching HTTP status. Layers without
 * HTTP (the raster engine) throw errors with a `kind` instead (KindedError); `renderError` maps them here.
 *
 * `errors` is always a JSON object, as in the spec ("errors: object") and Sentinel Hub's OpenAPI (schema `Boom`:
 * "Additional information about the error", `type: object`; QuotaExceededError fills it with named values):
 * `{}` when there is nothing to add, named facts otherwise (e.g. `{violatedPolicy}` on 429), and for an invalid
 * body one member per invalid field, `{"<dotted path>": "<what is wrong>"}` (zodIssues).
 */
import type { ZodError } from "zod";

/** HTTP reason phrases used in `error.reason`. */
const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  410: "Gone",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** Default `error.code` per status (Sentinel Hub codes). */
const CODES: Record<number, string> = {
  400: "COMMON_BAD_PAYLOAD",
  401: "COMMON_UNAUTHORIZED",
  403: "COMMON_FORBIDDEN",
  404: "COMMON_NOT_FOUND",
  405: "COMMON_METHOD_NOT_ALLOWED",
  406: "COMMON_NOT_ACCEPTABLE",
  409: "COMMON_CONFLICT",
  410: "COMMON_GONE",
  413: "COMMON_PAYLOAD_TOO_LARGE",
  414: "COMMON_URI_TOO_LONG",
  415: "COMMON_UNSUPPORTED_MEDIA_TYPE",
  416: "COMMON_RANGE_NOT_SATISFIABLE",
  429: "COMMON_TOO_MANY_REQUESTS",
  500: "COMMON_EXCEPTION",
  502: "COMMON_BAD_GATEWAY",
  503: "COMMON_SERVICE_UNAVAILABLE",
};

/** The envelope's `errors` member: named details of a failure (a JSON object, never an array or null). */
export type ErrorDetails = Readonly<Record<string, unknown>>;

/** A failure the client should see: HTTP status, a message saying what to fix, optional details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: ErrorDetails,
    readonly code: string = CODES[status] ?? "COMMON_EXCEPTION",
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 400 COMMON_BAD_PAYLOAD with a message; `errors` is optional detail (e.g. zod issues). */
export const badRequest = (message: string, errors?: ErrorDetails): ApiError => new ApiError(400, message, errors);

/** 404 for a missing resource. */
export const notFound = (message: string): ApiError => new ApiError(404, message);

/** Key of an issue about the whole value (an empty zod path) in zodIssues. */
export const ROOT_PATH = "body";

/**
 * Converts zod issues into the envelope's `errors` member: one member per invalid field, keyed by its dotted path
 * (`output.responses.0.format.type`; ROOT_PATH for the value itself), valued with zod's message; several issues of
 * one field are joined with "; ". Members keep the issues' order.
 */
export function zodIssues(err: ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of err.issues) {
    const path = i.path.map(String).join(".") || ROOT_PATH;
    out[path] = out[path] === undefined ? i.message : `${out[path]}; ${i.message}`;
  }
  return out;
}

/** Sentinel Hub's error code for evalscript failures. */
export const EXECUTION_ERROR = "EXECUTION_ERROR";

/**
 * A failure raised below the HTTP layer that names its kind instead of a status, e.g. the raster engine's
 * EngineError (src/raster/errors.ts, kinds in ENGINE_ERROR_KINDS). The http layer owns this shape and
 * recognises errors by it, so src/http imports nothing from the engine. Its one detail entry (engine failures
 * carry at most one: the script position, the hosting location) becomes the envelope's `errors` object.
 */
export interface KindedError extends Error {
  readonly kind: string;
  readonly details?: readonly ErrorDetails[];
  /** Seconds after which the request may be sent again (a 503): the Retry-After header and `errors.retryAfter`. */
  readonly retryAfterSeconds?: number;
}

/**
 * Status and code per kind. Every kind of the engine is the client's to fix (400); failures while the script
 * runs carry Sentinel Hub's EXECUTION_ERROR, the others COMMON_BAD_PAYLOAD. `not-found` (404 COMMON_NOT_FOUND):
 * something the request names is not here, e.g. a collection hosted in another location (src/locations/hosting.ts).
 * `forbidden` (403 COMMON_FORBIDDEN): the caller may not use what it names, e.g. another account's bucket
 * (src/buckets/owners.ts). `invalid-file` (400): a file of the caller's collection is corrupt or beyond a file
 * limit. `overloaded` (503 COMMON_SERVICE_UNAVAILABLE): the isolate's memory for requests in flight is taken
 * (src/pipeline/admission.ts); it carries Retry-After in seconds (RFC 9110; a 429's is in milliseconds, Sentinel
 * Hub's). `request-budget` (400): the request needs more subrequests or D1 queries than one Worker invocation may
 * make (src/budget); its detail names the limit and the largest request that fits. `upstream-failed` (502
 * COMMON_BAD_GATEWAY) and `upstream-unavailable` (503, Retry-After): the upstream archive a built-in collection is
 * read from answered wrongly, or not at all after retries (src/archive/errors.ts). A kind missing here is a 500.
 */
const KINDS: Record<string, { status: number; code?: string }> = {
  "invalid-argument": { status: 400 },
  unsupported: { status: 400 },
  "script-syntax": { status: 400 },
  "script-error": { status: 400, code: EXECUTION_ERROR },
  "budget-exceeded": { status: 400, code: EXECUTION_ERROR },
  "limit-exceeded": { status: 400, code: EXECUTION_ERROR },
  "invalid-file": { status: 400 },
  "not-found": { status: 404 },
  forbidden: { status: 403 },
  overloaded: { status: 503 },
  "request-budget": { status: 400 },
  "upstream-failed": { status: 502 },
  "upstream-unavailable": { status: 503 },
};

/**
 * The ApiError a KindedError renders as (same message, its first detail entry as `errors`); undefined for any
 * other value or a kind this layer does not know.
 */
export function kindedError(err: unknown): ApiError | undefined {
  if (!(err instanceof Error)) return undefined;
  const { kind, details, retryAfterSeconds: retry } = err as Partial<KindedError>;
  if (typeof kind !== "string" || !Object.hasOwn(KINDS, kind)) return undefined;
  const { status, code } = KINDS[kind]!;
  if (typeof retry !== "number") return new ApiError(status, err.message, details?.[0], code);
  return new ApiError(status, err.message, details?.[0] ?? { retryAfter: retry }, code, {
    "retry-after": String(retry),
  });
}

/** Renders the error envelope as a JSON Response (`errors`: `{}` when absent). */
export function errorResponse(
  status: number,
  message: string,
  errors?: ErrorDetails,
  code?: string,
  headers: Record<string, string> = {},
): Response {
  const body = {
    error: {
      status,
      reason: REASONS[status] ?? "Error",
      message,
      code: code ?? CODES[status] ?? "COMMON_EXCEPTION",
      errors: errors ?? {},
    },
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Longest text of an unexpected error written to the log. */
const LOG_CHARS = 2000;

/**
 * Renders any thrown value: ApiError as itself, a KindedError by its kind (kindedError), URIError as 400;
 * anything else as a logged 500 (never leaks a stack).
 */
export function renderError(err: unknown): Response {
  const api = err instanceof ApiError ? err : kindedError(err);
  if (api) return errorResponse(api.status, api.message, api.errors, api.code, api.headers);
  // decodeURIComponent of a path or query value with a malformed percent-escape (e.g. "%ZZ")
  if (err instanceof URIError) return errorResponse(400, `Malformed percent-encoding in the URL: ${err.message}`);
  // logged, never sent; cut so that a client-sized value inside an error message cannot flood the log
  console.error("unhandled error", String(err instanceof Error ? err.stack : err).slice(0, LOG_CHARS));
  return errorResponse(500, "Internal error while processing the request.");
}
