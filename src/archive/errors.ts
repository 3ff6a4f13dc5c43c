/**
 * Failures of the upstream archive, as kinded errors the HTTP layer maps (src/http/errors.ts, by shape):
 * - `upstream-failed` (502 Bad Gateway): the archive answered, but wrongly (a 4xx it should not send, an answer
 *   that is not what a STAC API or an object store answers, a short read), after retries where retrying helps;
 * - `upstream-unavailable` (503, with Retry-After): the archive did not answer in time or answered 5xx / 429 on
 *   every attempt.
 * Messages name the archive and the HTTP status, never a URL's query (SAS tokens live there) nor a signature.
 */

/** The kinds of UpstreamError. */
export type UpstreamKind = "upstream-failed" | "upstream-unavailable";

/** An upstream archive failure; `details` (the envelope's `errors`) names the archive and, when known, the status. */
export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  readonly details: readonly Record<string, unknown>[];
  /** Seconds before a retry may help (503 only). */
  readonly retryAfterSeconds?: number;
  constructor(
    readonly kind: UpstreamKind,
    message: string,
    facts: { archive: string; status?: number; attempts?: number },
  ) {
    super(message);
    this.details = [{ ...facts }];
    if (kind === "upstream-unavailable") this.retryAfterSeconds = 30;
  }
}

/** `url` without its query and fragment (they may hold a SAS token): safe for messages and logs. */
export function redact(url: string): string {
  const cut = url.search(/[?#]/);
  return cut < 0 ? url : url.slice(0, cut);
}
