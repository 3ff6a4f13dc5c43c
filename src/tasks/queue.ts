/**
 * The Queue consumer entry: every message body is `{kind, ...}` and goes to the handler registered for its kind
 * (./kinds.ts). Per message: ack when the handler resolves; retry with backoff when it throws; a body without a
 * known kind is retried at once. After `max_retries` (wrangler.toml) a message moves to the dead-letter queue,
 * which this Worker consumes too: the body is logged in full and the kind's `onDead` hook runs (e.g. mark a tile
 * FAILED in its task object), then the dead letter is acked.
 */
import type { Env } from "../env";

/** A task message: `kind` picks the handler; the rest is the handler's (JSON-serialisable). */
export interface TaskMessage {
  kind: string;
  [field: string]: unknown;
}

/**
 * Handles one message. `message.id` is stable across redeliveries: pass it to the task object's `applyMessage` so
 * a redelivered message is counted once. Throw to have the message retried.
 */
export type KindHandler = (body: TaskMessage, env: Env, message: Message<unknown>) => Promise<void>;

/** Queue names as in wrangler.toml (`[[queues.consumers]]`). */
export const TASK_QUEUE_NAME = "eo-edge-tasks";
export const DEAD_LETTER_QUEUE_NAME = "eo-edge-tasks-dlq";

/** How a kind is handled beyond its handler. */
export interface KindOptions {
  /** Runs once for a message of this kind that failed every attempt (from the dead-letter queue). */
  onDead?: KindHandler;
  /** Seconds before retry after failed attempt n (default {@link retryDelaySeconds}). */
  retryDelay?: (attempts: number) => number;
}

interface Kind extends KindOptions {
  handler: KindHandler;
}

/** Backoff before retry n (1-based `attempts` of the failed try): 2^attempts seconds, at most 5 minutes. */
export const retryDelaySeconds = (attempts: number): number => Math.min(2 ** Math.max(1, attempts), 300);

const kindOf = (body: unknown): string | undefined =>
  body !== null && typeof body === "object" && typeof (body as { kind?: unknown }).kind === "string" ? (body as TaskMessage).kind : undefined;

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
   * The Worker's `queue()` handler, for the task queue and its dead-letter queue (told apart by `batch.queue`):
   * one message after the other (a tile's memory is freed before the next).
   */
  async consume(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    const dead = batch.queue === DEAD_LETTER_QUEUE_NAME;
    for (const message of batch.messages) await (dead ? this.bury(message, env) : this.handle(message, env));
  }

  private kindEntry(body: unknown): { kind?: string; entry?: Kind } {
    const kind = kindOf(body);
    return { kind, entry: kind === undefined ? undefined : this.kinds.get(kind) };
  }

  private async handle(message: Message<unknown>, env: Env): Promise<void> {
    const { kind, entry } = this.kindEntry(message.body);
    if (!entry) {
      console.error(`queue: message ${message.id} has ${kind === undefined ? "no kind" : `unknown kind '${kind}'`}; retried, then dead-lettered`);
      message.retry({ delaySeconds: 0 });
      return;
    }
    try {
      await entry.handler(message.body as TaskMessage, env, message);
      message.ack();
    } catch (e) {
      console.error(`queue: ${kind} message ${message.id} failed (attempt ${message.attempts}):`, String(e).slice(0, 500));
      message.retry({ delaySeconds: (entry.retryDelay ?? retryDelaySeconds)(message.attempts) });
    }
  }

  /** A dead letter: logged with its body, handed to the kind's onDead (retried if that throws), then acked. */
  private async bury(message: Message<unknown>, env: Env): Promise<void> {
    const { kind, entry } = this.kindEntry(message.body);
    console.error(`queue: dead letter ${message.id} (${kind ?? "no kind"}):`, JSON.stringify(message.body)?.slice(0, 2000));
    try {
      await entry?.onDead?.(message.body as TaskMessage, env, message);
      message.ack();
    } catch (e) {
      console.error(`queue: onDead of ${kind} failed for ${message.id}:`, String(e).slice(0, 500));
      message.retry();
    }
  }
}
