/**
 * The per-invocation limits of Cloudflare's Workers Paid plan that shape a request's plan (figures from
 * developers.cloudflare.com/workers/platform/limits/ and /d1/platform/limits/, November 2026; design.md,
 * "Production on Cloudflare"). An invocation is one `fetch`, `queue` (a whole message batch) or `scheduled` event
 * of the Worker; a Durable Object's own requests and alarms are invocations of their own.
 * Local workerd enforces none of these: the counting wrapper of src/budget/bindings.ts does, everywhere (so a
 * regression fails in the tests first), and the plans of src/pipeline/budget.ts refuse a request up front when it
 * would not fit.
 */

/**
 * Subrequests per invocation (Workers Paid): every `fetch()` and every call of a binding (R2, D1, a Durable Object
 * stub, a Worker Loader entrypoint, a Queue producer, a service binding such as ASSETS).
 */
export const SUBREQUEST_LIMIT = 10_000;

/** D1 queries per invocation (Workers Paid; D1 limits, "Queries per Worker invocation"). Each statement of a batch counts. */
export const D1_QUERY_LIMIT = 1_000;

/**
 * Outgoing connections open at once per invocation (Workers limits, "Simultaneous open connections"): more wait
 * in the runtime's queue rather than fail, so this is measured (peak calls in flight) and reported, not enforced.
 */
export const CONNECTION_LIMIT = 6;

/**
 * The share of a limit a request's plan may take: the rest is kept for what the plan does not see (authentication,
 * the rate limiter, the registry, the processing-unit charge after the response) and for the estimates' slack.
 */
export const PLAN_SHARE = 0.9;
