/**
 * The raster engine's typed failures: every client-caused failure under src/raster throws an EngineError with a
 * `kind`, never an HTTP error. The HTTP layer turns kinds into the error envelope in one place
 * (src/http/errors.ts, `kindedError`), recognising the error by its shape (`kind` + `details`), so neither layer
 * imports the other; areas (statistics, processing) decide by `kind` (e.g. budget-exceeded is an interval TIMEOUT).
 * A stored file that is malformed, corrupt or beyond a file limit is invalid-file (the file is a user's: a BYOC
 * or Zarr collection); storage faults (a failed or short read) stay plain Errors.
 */

/**
 * What went wrong:
 * - invalid-argument: a value the caller sent is malformed or out of range (grid, bbox, quality, setup(), script text).
 * - unsupported: a well-formed value the engine does not implement (a CRS, an output format, a sample type).
 * - script-syntax: the evalscript does not parse, or uses a refused construct (details carry line/column).
 * - script-error: the evalscript threw while running (details carry stage, function, line/column, pixel).
 * - budget-exceeded: the evalscript ran out of its execution ticks (per call or per request).
 * - limit-exceeded: the running evalscript hit a sandbox or output limit (memory, CPU time, output size).
 * - invalid-file: a stored file the request reads (a COG, a Zarr array) is malformed, corrupt, or declares sizes
 *   beyond the engine's file limits (src/raster/cog/limits.ts, src/raster/zarr/limits.ts); `limit` names the limit.
 */
export const ENGINE_ERROR_KINDS = [
  "invalid-argument",
  "unsupported",
  "script-syntax",
  "script-error",
  "budget-exceeded",
  "limit-exceeded",
  "invalid-file",
] as const;

/** One of ENGINE_ERROR_KINDS. */
export type EngineErrorKind = (typeof ENGINE_ERROR_KINDS)[number];

/**
 * One structured detail of a failure (rendered as an entry of the envelope's `errors`, keys in insertion order).
 * Positions are 1-based and refer to the user's evalscript.
 */
export interface EngineErrorDetail {
  stage?: string;
  function?: string;
  line?: number;
  column?: number;
  message?: string;
  pixel?: { col: number; row: number };
}

/** The limit a limit-exceeded (or limit-style invalid-argument) failure broke: its name and maximum, in its own unit. */
export interface EngineLimit {
  name: string;
  max: number;
}

/** A typed engine failure: `kind` says what went wrong, `message` what to fix, `details` where. */
export class EngineError extends Error {
  override readonly name = "EngineError";

  /**
   * @param kind what went wrong (see ENGINE_ERROR_KINDS).
   * @param message a sentence for the user naming the value and how to fix it.
   * @param details structured detail entries (e.g. line/column in the script); undefined when none.
   * @param limit the limit that was broken, when one was.
   */
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    readonly details?: readonly EngineErrorDetail[],
    readonly limit?: EngineLimit,
  ) {
    super(message);
  }
}

/** An invalid-argument EngineError. */
export const invalidArgument = (message: string, details?: readonly EngineErrorDetail[]): EngineError =>
  new EngineError("invalid-argument", message, details);

/** An unsupported EngineError (a value the engine does not implement). */
export const unsupported = (message: string): EngineError => new EngineError("unsupported", message);

/** An invalid-file EngineError: a stored file is malformed or corrupt, or breaks `limit` (a file limit). */
export const invalidFile = (message: string, limit?: EngineLimit): EngineError =>
  new EngineError("invalid-file", message, undefined, limit);

/** A script-syntax EngineError with one detail: the user's 1-based line and column and what is wrong there. */
export const scriptSyntax = (message: string, at: EngineErrorDetail): EngineError =>
  new EngineError("script-syntax", message, [at]);
