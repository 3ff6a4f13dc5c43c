/**
 * The Queue consumer entry: every message body is `{kind, ...}` and goes to the handler registered for its kind
 * (src/tasks-registry.ts). Per message: ack when the handler resolves; retry with backoff when it throws; a body without a
 * known kind is retried at once. After `max_retries` (wrangler.toml) a message moves to its dead-letter queue,
 * which this Worker consumes too: the body is logged in full and the kind's `onDead` hook runs (e.g. mark a tile
 * FAILED in its task object), then the dead letter is acked.
 *
 * A kind with a `lease` option runs each message as a leased unit of a UnitObject (./lease.ts, ./runner.ts: BYOC and
 * Zarr ingestion, the probe; the engine's units run through their task's object, ./work.ts): claimed before the
 * handler runs (a unit another delivery is running, or that finished, is acked without work), kept alive by a
 * heartbeat, completed after it; a unit out of attempts, or a message the watchdog re-sent as dead (member
 * {@link DEAD_CAUSE}), goes to onDead with the cause, and the unit ends FAILED. A message whose unit its object
 * does not know (sent before the unit existed) runs as before, without a lease.
 */
import type { Env } from "../env";
import { DEAD_CAUSE } from "./lease";
import type { TaskMessage } from "./messages";
import { LeaseLostError, RunLater, runLeased, type UnitRef } from "./runner";

/**
 * Handles one message. `message.id` is stable across redeliveries (an id for what must happen once per message).
 * Throw to have the message retried. `signal` (leased kinds) is aborted
 * with a LeaseLostError when the unit's lease was lost: stop before writing more.
 */
export type KindHandler = (
  body: TaskMessage,
  env: Env,
  message: Message<unknown>,
  signal?: AbortSignal,
) => Promise<void>;

/** Queue names as in wrangler.toml (`[[queues.consumers]]`): the light queue and its dead-letter queue. */
export const TASK_QUEUE_NAME = "eo-edge-tasks";
export const DEAD_LETTER_QUEUE_NAME = "eo-edge-tasks-dlq";

/** True for a dead-letter queue: by wrangler.toml's convention (kept by `npm run deploy`'s renaming) `<queue>-dlq`. */
export const isDeadLetterQueue = (name: string): boolean => name.endsWith("-dlq");

/**
 * Runs for a message of this kind that failed every attempt (from the dead-letter queue), or whose unit is out of
 * attempts: then `cause` says why (the hook records it, e.g. as the tile's failure cause).
 */
export type DeadHandler = (body: TaskMessage, env: Env, message: Message<unknown>, cause?: string) => Promise<void>;

/** How a kind is handled beyond its handler. */
export interface KindOptions {
  /** Runs once for a message of this kind that failed every attempt; see {@link DeadHandler}. */
  onDead?: DeadHandler;
  /** Seconds before retry after failed attempt n (default {@link retryDelaySeconds}). */
  retryDelay?: (attempts: number) => number;
  /** The leased unit a message runs (see the module docs); null for a message without one. */
  lease?: (body: TaskMessage, env: Env) => UnitRef | null;
}

interface Kind extends KindOptions {
  handler: KindHandler;
}

/** Backoff before retry n (1-based `attempts` of the failed try): 2^attempts seconds, at most 5 minutes. */
export const retryDelaySeconds = (attempts: number): number => Math.min(2 ** Math.max(1, attempts), 300);

const kindOf = (body: unknown): string | undefined =>
  body !== null && typeof body === "object" && typeof (body as { kind?: unknown }).kind === "string"
    ? (body as TaskMessage).kind
    : undefined;

/** Dispatches a batch by `kind`. */
export class QueueRouter {
  private readonly kinds = new Map<string, Kind>();

  /** Registers the handler of a kind. @throws Error when the kind already has one (a wiring bug). */
  on(kind: string, handler: KindHandler, options: KindOptions = {}): this {
    if (this.kinds.has(kind)) throw new Error(`Queue kind '${kind}' is registered twice.`);
    this.kinds.set(kind, { handler, ...options });
    return this;
  }

  /**
   * The Worker's `queue()` handler, for every task queue and dead-letter queue (told apart by `batch.queue`):
   * one message after the other (a tile's memory is freed before the next).
   */
  async consume(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    const dead = isDeadLetterQueue(batch.queue);
    for (const message of batch.messages) await (dead ? this.bury(message, env) : this.handle(message, env));
  }

  private kindEntry(body: unknown): { kind?: string; entry?: Kind } {
    const kind = kindOf(body);
    return { kind, entry: kind === undefined ? undefined : this.kinds.get(kind) };
  }

  private async handle(message: Message<unknown>, env: Env): Promise<void> {
    const { kind, entry } = this.kindEntry(message.body);
    if (!entry) {
      console.error(
        `queue: message ${message.id} has ${kind === undefined ? "no kind" : `unknown kind '${kind}'`}; retried, then dead-lettered`,
      );
      message.retry({ delaySeconds: 0 });
      return;
    }
    const body = message.body as TaskMessage;
    if (typeof body[DEAD_CAUSE] === "string") return this.bury(message, env, body[DEAD_CAUSE]);
    const delay = (entry.retryDelay ?? retryDelaySeconds)(message.attempts);
    const unit = entry.lease?.(body, env) ?? null;
    try {
      const run = (signal?: AbortSignal) => entry.handler(body, env, message, signal);
      const outcome = unit
        ? await runLeased(unit, `${message.id}#${message.attempts}`, run, delay * 1000)
        : { ran: true as const, value: await run() };
      if (!outcome.ran && outcome.claim.reason === "exhausted") return this.bury(message, env, outcome.claim.cause);
      if (!outcome.ran && outcome.claim.reason === "unknown") await run(); // sent before its unit existed
      message.ack();
    } catch (e) {
      if (e instanceof LeaseLostError) return message.ack(); // the unit was re-sent: its new delivery does the work
      if (e instanceof RunLater) return message.ack(); // snoozed: its object re-sends it when due
      console.error(
        `queue: ${kind} message ${message.id} failed (attempt ${message.attempts}):`,
        String(e).slice(0, 500),
      );
      message.retry({ delaySeconds: delay });
    }
  }

  /**
   * A dead letter (or a unit out of attempts, with its `cause`): logged with its body, handed to the kind's onDead
   * (retried if that throws), its unit ended FAILED, then acked.
   */
  private async bury(message: Message<unknown>, env: Env, cause?: string): Promise<void> {
    const { kind, entry } = this.kindEntry(message.body);
    console.error(
      `queue: dead letter ${message.id} (${kind ?? "no kind"}${cause ? `: ${cause}` : ""}):`,
      JSON.stringify(message.body)?.slice(0, 2000),
    );
    try {
      await entry?.onDead?.(message.body as TaskMessage, env, message, cause);
      const unit = entry?.lease?.(message.body as TaskMessage, env);
      if (unit)
        await unit.stub.completeUnit(
          unit.unit,
          "FAILED",
          cause ?? `The message failed all ${message.attempts} delivery attempts (dead-lettered).`,
        );
      message.ack();
    } catch (e) {
      console.error(`queue: onDead of ${kind} failed for ${message.id}:`, String(e).slice(0, 500));
      message.retry();
    }
  }
}
