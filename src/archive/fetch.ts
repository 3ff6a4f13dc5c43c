/**
 * Upstream HTTP with the edge's rules: every attempt bounded by a timeout (never a hang), retries with exponential
 * backoff for what retrying can mend (network errors, timeouts, 5xx, 429), then an UpstreamError (502 / 503); a
 * caller-supplied `refresh` re-signs once after a 403 (an expired SAS token). Counts requests per isolate
 * (`upstreamStats`) for tests and the bench. Parallel work goes through `pooled`, at most CONNECTION_LIMIT
 * (src/budget/limits.ts) at a time (Workers keep at most 6 connections open per request; more would only queue
 * inside the runtime).
 */
import { CONNECTION_LIMIT } from "../budget/limits";
import { redact, UpstreamError } from "./errors";

/** Retry policy: attempts in all, the first backoff (doubled each time) and each attempt's timeout, in ms. */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, backoffMs: 100, timeoutMs: 10_000 };

/** Isolate-wide counters of upstream requests (all attempts) and bytes of ranged reads. */
export const upstreamStats = { requests: 0, retries: 0, bytes: 0 };

/** Options of upstreamFetch. */
export interface UpstreamOptions {
  /** Archive name for messages. */
  archive: string;
  retry?: RetryPolicy;
  /** Builds the request of an attempt (so a re-signed request carries a fresh signature / token). */
  request: (attempt: number, refreshed: boolean) => Promise<Request> | Request;
  /** Called once after a 403: true when new credentials were obtained (the request is sent again). */
  refresh?: () => Promise<boolean>;
  /** Statuses the caller handles itself (returned, not thrown), e.g. 404 or 416. */
  accept?: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const retryable = (status: number) => status >= 500 || status === 429;

/**
 * Sends the request `o.request` builds until a 2xx (or an `accept`ed status) comes back.
 * @throws UpstreamError upstream-unavailable after the last attempt timed out, failed on the network or answered
 *   5xx / 429; upstream-failed for any other status (403 after a refresh, 400, 404 not accepted, ...).
 */
export async function upstreamFetch(o: UpstreamOptions): Promise<Response> {
  const policy = o.retry ?? DEFAULT_RETRY;
  let refreshed = false;
  let last = "";
  let lastStatus: number | undefined;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) {
      upstreamStats.retries++;
      await sleep(policy.backoffMs * 2 ** (attempt - 1));
    }
    const request = await o.request(attempt, refreshed);
    let response: Response;
    try {
      upstreamStats.requests++;
      response = await fetch(request, { signal: AbortSignal.timeout(policy.timeoutMs) });
    } catch (e) {
      const timedOut = (e as Error).name === "TimeoutError" || (e as Error).name === "AbortError";
      last = timedOut ? `no answer within ${policy.timeoutMs} ms` : `network error (${(e as Error).message})`;
      lastStatus = undefined;
      continue;
    }
    if (response.ok || o.accept?.includes(response.status)) return response;
    await response.body?.cancel();
    lastStatus = response.status;
    if (response.status === 403 && o.refresh && !refreshed) {
      refreshed = await o.refresh();
      if (refreshed) {
        attempt--; // the re-signed request is not a retry of a failure
        continue;
      }
    }
    if (!retryable(response.status)) {
      throw new UpstreamError(
        "upstream-failed",
        `The ${o.archive} archive answered ${response.status} for ${redact(request.url)}.`,
        { archive: o.archive, status: response.status },
      );
    }
    last = `HTTP ${response.status}`;
  }
  throw new UpstreamError(
    "upstream-unavailable",
    `The ${o.archive} archive is not answering (${last} after ${policy.attempts} attempts); try again later.`,
    { archive: o.archive, ...(lastStatus !== undefined ? { status: lastStatus } : {}), attempts: policy.attempts },
  );
}

/** Runs `tasks` with at most `limit` running at once; results in task order; the first failure rejects. */
export async function pooled<T>(tasks: (() => Promise<T>)[], limit = CONNECTION_LIMIT): Promise<T[]> {
  const out = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}
