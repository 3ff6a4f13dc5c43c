/**
 * The accounting of one Worker invocation: every subrequest by kind and every D1 query, counted by the binding
 * wrappers of src/budget/bindings.ts into the Meter of the invocation being served, which travels with the work in an
 * AsyncLocalStorage (node:async_hooks, nodejs_compat): code below the entry never passes it around, and work
 * another request started (a shared cache fill) is charged to the request that issued the call, as at the edge.
 * A call beyond a limit of src/budget/limits.ts throws {@link RequestBudgetError} (a 400 through src/http/errors.ts),
 * as the edge would throw on its own, so the tests (local workerd enforces nothing) fail where the edge would.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { CONNECTION_LIMIT, D1_QUERY_LIMIT, SUBREQUEST_LIMIT } from "./limits";

/** What a subrequest went to. */
export type SubrequestKind = "fetch" | "r2" | "d1" | "durable-object" | "worker-loader" | "queue" | "service";

/** The counts of one invocation. */
export interface MeterCounts {
  /** Subrequests by kind (a D1 batch is one subrequest). */
  calls: Record<SubrequestKind, number>;
  /** Sum of `calls`. */
  subrequests: number;
  /** D1 statements run (a batch counts each of its statements). */
  d1Queries: number;
  /** Most calls in flight at once (CONNECTION_LIMIT is the edge's cap on open connections; more wait there). */
  peakInFlight: number;
}

/** What a {@link RequestBudgetError} names (the envelope's `errors`): the limit, its maximum and what fits. */
export interface BudgetDetail {
  /** The limit's name, e.g. `subrequests per invocation`. */
  limit: string;
  max: number;
  /** What the request would need (an estimate when refused up front). */
  needed?: number;
  /** The largest request of its kind that fits, in words (e.g. `at most 412 intervals with data`). */
  fits?: string;
}

/**
 * A limit of the invocation would be or was passed (the subrequests or D1 queries of src/budget/limits.ts): the
 * request asks for more than one invocation may do. Kind `request-budget`: a 400 in the spec's envelope
 * (src/http/errors.ts) whose `errors` is the {@link BudgetDetail}.
 */
export class RequestBudgetError extends Error {
  override readonly name = "RequestBudgetError";
  readonly kind = "request-budget";
  readonly details: readonly BudgetDetail[];
  constructor(
    message: string,
    readonly detail: BudgetDetail,
  ) {
    super(message);
    this.details = [detail];
  }
}

/** The counter of one invocation (see the module docs). */
export class Meter {
  readonly calls: Record<SubrequestKind, number> = {
    fetch: 0,
    r2: 0,
    d1: 0,
    "durable-object": 0,
    "worker-loader": 0,
    queue: 0,
    service: 0,
  };
  subrequests = 0;
  d1Queries = 0;
  inFlight = 0;
  peakInFlight = 0;

  /**
   * @param label what the invocation serves (e.g. `POST /api/v1/statistics`, `queue heavy`), for logs and tests.
   * @param limits the limits enforced (default: the Paid plan's).
   */
  constructor(
    readonly label: string,
    readonly limits = { subrequests: SUBREQUEST_LIMIT, d1Queries: D1_QUERY_LIMIT, connections: CONNECTION_LIMIT },
  ) {}

  /**
   * Counts one subrequest of `kind` carrying `queries` D1 statements.
   * @throws RequestBudgetError when it goes past a limit (nothing is counted then: the call is not made).
   */
  charge(kind: SubrequestKind, queries = 0): void {
    if (this.subrequests + 1 > this.limits.subrequests)
      throw new RequestBudgetError(
        `The request needs more than ${this.limits.subrequests} subrequests (storage reads, database queries, sandbox calls) in one invocation, the most a Worker may make. Ask for fewer intervals, dates or pixels.`,
        { limit: "subrequests per invocation", max: this.limits.subrequests, needed: this.subrequests + 1 },
      );
    if (this.d1Queries + queries > this.limits.d1Queries)
      throw new RequestBudgetError(
        `The request needs more than ${this.limits.d1Queries} database queries in one invocation, the most a Worker may make. Ask for fewer intervals or a smaller area.`,
        { limit: "D1 queries per invocation", max: this.limits.d1Queries, needed: this.d1Queries + queries },
      );
    this.calls[kind]++;
    this.subrequests++;
    this.d1Queries += queries;
  }

  /** Runs `call` counted as one subrequest of `kind` (with `queries` D1 statements), tracking the calls in flight. */
  track<T>(kind: SubrequestKind, call: () => T, queries = 0): T {
    this.charge(kind, queries);
    const out = call();
    if (!(out instanceof Promise)) return out;
    this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
    const done = () => void this.inFlight--;
    out.then(done, done);
    return out;
  }

  /** A snapshot of the counts. */
  counts(): MeterCounts {
    return {
      calls: { ...this.calls },
      subrequests: this.subrequests,
      d1Queries: this.d1Queries,
      peakInFlight: this.peakInFlight,
    };
  }

  /** What is left of each limit. */
  remaining(): { subrequests: number; d1Queries: number } {
    return {
      subrequests: this.limits.subrequests - this.subrequests,
      d1Queries: this.limits.d1Queries - this.d1Queries,
    };
  }
}

const storage = new AsyncLocalStorage<Meter>();

/** The Meter of the invocation running this code; undefined outside one (module scope, a Durable Object's own work). */
export function currentMeter(): Meter | undefined {
  return storage.getStore();
}

/** Most recent invocations kept for {@link recentMeters} (their counters only). */
const RECENT = 32;
const recent: Meter[] = [];

/**
 * The meters of this isolate's most recent invocations, newest last (at most 32): what tests and benchmarks read
 * the counts of a request from. Counting goes on after the response (the work a request left to waitUntil).
 */
export function recentMeters(): readonly Meter[] {
  return recent;
}

/** Runs `fn` as an invocation counted by a new Meter labelled `label`. */
export function runMetered<T>(label: string, fn: () => T): T {
  const meter = new Meter(label);
  recent.push(meter);
  if (recent.length > RECENT) recent.shift();
  return storage.run(meter, fn);
}
