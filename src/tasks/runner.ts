/**
 * Running one leased unit of work (./lease.ts) of a UnitObject from the Worker's side: claim it, keep the lease
 * alive with a heartbeat while the work runs, and complete it; or say why it must not run. The queue consumer
 * (./queue.ts) runs every unit of a leased kind this way; a request that does the work itself (Zarr ingestion) uses
 * it too, so a killed request is resumed by the watchdog like a lost message. (The engine's units run through its own
 * begin / end, ./work.ts, with the same {@link heartbeat}.)
 * Also the Worker-side helpers of units: UnitObject stubs and sending unit messages. This module does not import
 * cloudflare:workers (the areas importing it are also run by Node scripts, e.g. the seed).
 */
import type { Env } from "../env";
import type { Claim } from "./lease";
import type { QueueName, TaskMessage } from "./messages";

/** Messages per Queue sendBatch call (the Queues limit). */
const SEND_BATCH = 100;

/** The producer binding of each queue (wrangler.toml). */
const PRODUCERS = { light: "TASK_QUEUE", heavy: "HEAVY_QUEUE", ingest: "INGEST_QUEUE" } as const satisfies Record<
  QueueName,
  keyof Env
>;

/** The queue producers. */
export type Producers = Pick<Env, (typeof PRODUCERS)[QueueName]>;

/**
 * Sends task messages, each on the queue its `queue` member names (light when none), in batches of 100; delivered
 * after `delaySeconds` when given (Queues allow up to 43 200 s).
 */
export async function sendMessages(
  env: Producers,
  messages: readonly TaskMessage[],
  delaySeconds?: number,
): Promise<void> {
  for (const [queue, binding] of Object.entries(PRODUCERS)) {
    const on = messages
      .filter((m) => (m.queue ?? "light") === queue)
      .map((body) => ({ body, ...(delaySeconds ? { delaySeconds } : {}) }));
    for (let i = 0; i < on.length; i += SEND_BATCH) await env[binding].sendBatch(on.slice(i, i + SEND_BATCH));
  }
}

/** The UnitObject (./unit-object.ts) named `name`. */
export const unitsStub = (env: Pick<Env, "UNITS">, name: string) => env.UNITS.get(env.UNITS.idFromName(name));

/** The RPC surface of a UnitObject (./unit-object.ts), as the Worker calls it. */
export interface LeaseStub {
  claimUnit(id: string, owner: string): Promise<Claim>;
  renewUnit(id: string, owner: string): Promise<boolean>;
  releaseUnit(id: string, owner: string, retryMs: number): Promise<void>;
  snoozeUnit(id: string, owner: string, ms: number): Promise<void>;
  completeUnit(id: string, status: "DONE" | "FAILED", cause?: string): Promise<boolean>;
}

/** A unit: the object that holds it and its id there. */
export interface UnitRef {
  stub: LeaseStub;
  unit: string;
}

/** The outcome of {@link runLeased}: the work's value, or the claim that did not let it run. */
export type LeasedRun<T> = { ran: true; value: T } | { ran: false; claim: Exclude<Claim, { run: true }> };

/** Thrown into the work's signal when its lease was lost (expired and re-sent, or the unit finished elsewhere). */
export class LeaseLostError extends Error {
  override readonly name = "LeaseLostError";
}

/**
 * Thrown by a unit's work that cannot go on yet and should run again in `delayMs` (a provider still preparing an
 * order): not a failure, so it consumes none of the unit's attempts; the unit's object re-sends it then (its alarm).
 * The message is acked.
 */
export class RunLater extends Error {
  override readonly name = "RunLater";
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/**
 * A lease's heartbeat: calls `renew` every third of `leaseMs` until stopped; `signal` is aborted with a LeaseLostError
 * when a renewal answers false (the lease is lost: the unit is someone else's now, the work should stop writing). A
 * renewal that fails (the object unreachable) is logged, and the next one tries again.
 */
export function heartbeat(
  renew: () => Promise<boolean>,
  leaseMs: number,
  unit: string,
): { signal: AbortSignal; stop: () => void } {
  const lost = new AbortController();
  const beat = () =>
    renew().then(
      (ok) => ok || lost.abort(new LeaseLostError(`The lease of unit ${unit} was lost.`)),
      (e: unknown) => console.error(`lease: renewal of ${unit} failed:`, String(e).slice(0, 300)),
    );
  const timer = setInterval(() => void beat(), leaseMs / 3);
  return { signal: lost.signal, stop: () => clearInterval(timer) };
}

/**
 * Claims `ref` for `owner` and runs `work` under a {@link heartbeat}; completes the unit DONE when the work resolves.
 * When the work throws RunLater, the unit is snoozed for its delay; other errors release it for a retry in
 * `retryMs`; the error is rethrown (a LeaseLostError instead when the lease was lost meanwhile: nothing to retry).
 */
export async function runLeased<T>(
  ref: UnitRef,
  owner: string,
  work: (signal: AbortSignal) => Promise<T>,
  retryMs = 0,
): Promise<LeasedRun<T>> {
  const claim = await ref.stub.claimUnit(ref.unit, owner);
  if (!claim.run) return { ran: false, claim };
  const beat = heartbeat(() => ref.stub.renewUnit(ref.unit, owner), claim.leaseMs, ref.unit);
  try {
    const value = await work(beat.signal);
    await ref.stub.completeUnit(ref.unit, "DONE");
    return { ran: true, value };
  } catch (e) {
    if (beat.signal.aborted) throw beat.signal.reason;
    if (e instanceof RunLater) await ref.stub.snoozeUnit(ref.unit, owner, e.delayMs);
    else await ref.stub.releaseUnit(ref.unit, owner, retryMs).catch(() => {});
    throw e;
  } finally {
    beat.stop();
  }
}
