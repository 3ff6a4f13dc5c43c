/**
 * Running one leased unit of work (./lease.ts) from the Worker's side: claim it in its Durable Object, keep the
 * lease alive with a heartbeat while the work runs, and complete it; or say why it must not run. The queue
 * consumer (./queue.ts) runs every unit of a leased kind this way; a request that does the work itself (Zarr
 * ingestion) uses it too, so a killed request is resumed by the watchdog like a lost message.
 * Also the Worker-side helpers of units: UnitObject stubs and sending unit messages. This module does not import
 * cloudflare:workers (the areas importing it are also run by Node scripts, e.g. the seed).
 */
import type { Env } from "../env";
import type { Claim } from "./lease";
import type { QueueName, TaskMessage } from "./queue";

/** Messages per Queue sendBatch call (the Queues limit). */
const SEND_BATCH = 100;

/** The producer binding of each queue (wrangler.toml). */
const PRODUCERS = { light: "TASK_QUEUE", heavy: "HEAVY_QUEUE", ingest: "INGEST_QUEUE" } as const satisfies Record<QueueName, keyof Env>;

/** The queue producers. */
export type Producers = Pick<Env, (typeof PRODUCERS)[QueueName]>;

/**
 * Sends task messages, each on the queue its `queue` member names (light when none), in batches of 100; delivered
 * after `delaySeconds` when given (Queues allow up to 43 200 s).
 */
export async function sendMessages(env: Producers, messages: readonly TaskMessage[], delaySeconds?: number): Promise<void> {
  for (const [queue, binding] of Object.entries(PRODUCERS)) {
    const on = messages.filter((m) => (m.queue ?? "light") === queue).map((body) => ({ body, ...(delaySeconds ? { delaySeconds } : {}) }));
    for (let i = 0; i < on.length; i += SEND_BATCH) await env[binding].sendBatch(on.slice(i, i + SEND_BATCH));
  }
}

/** The UnitObject (./unit-object.ts) named `name`. */
export const unitsStub = (env: Pick<Env, "UNITS">, name: string) => env.UNITS.get(env.UNITS.idFromName(name));

/** The RPC surface of an object holding leased units (LeasedObject, ./leased.ts), as the Worker calls it. */
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
  constructor(message: string, readonly delayMs: number) {
    super(message);
  }
}

/**
 * Claims `ref` for `owner` and runs `work` under a heartbeat that renews the lease every third of it; completes the
 * unit DONE when the work resolves. When the work throws RunLater, the unit is snoozed for its delay; other errors
 * release it for a retry in `retryMs`; the error is rethrown (a LeaseLostError instead when the lease was lost meanwhile: nothing to retry). `work` gets a signal aborted with a LeaseLostError when a
 * renewal finds the lease gone: the unit is someone else's now, the work should stop writing.
 */
export async function runLeased<T>(ref: UnitRef, owner: string, work: (signal: AbortSignal) => Promise<T>, retryMs = 0): Promise<LeasedRun<T>> {
  const claim = await ref.stub.claimUnit(ref.unit, owner);
  if (!claim.run) return { ran: false, claim };
  const lost = new AbortController();
  const renew = () =>
    ref.stub.renewUnit(ref.unit, owner).then(
      (ok) => ok || lost.abort(new LeaseLostError(`The lease of unit ${ref.unit} was lost.`)),
      (e: unknown) => console.error(`lease: renewal of ${ref.unit} failed:`, String(e).slice(0, 300)),
    );
  const heartbeat = setInterval(() => void renew(), claim.leaseMs / 3);
  try {
    const value = await work(lost.signal);
    await ref.stub.completeUnit(ref.unit, "DONE");
    return { ran: true, value };
  } catch (e) {
    if (lost.signal.aborted) throw lost.signal.reason;
    if (e instanceof RunLater) await ref.stub.snoozeUnit(ref.unit, owner, e.delayMs);
    else await ref.stub.releaseUnit(ref.unit, owner, retryMs).catch(() => {});
    throw e;
  } finally {
    clearInterval(heartbeat);
  }
}
