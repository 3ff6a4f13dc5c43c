/**
 * The Queue consumer entry: every message body is `{kind, ...}` and goes to the handler registered for its kind
 * (./kinds.ts). Per message: ack when the handler resolves; retry with exponential backoff when it throws; a
 * body without a known kind is retried at once, so after `max_retries` (wrangler.toml) it lands in the
 * dead-letter queue instead of being lost (a newer deployment may know the kind).
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

/** Backoff before retry n (1-based `attempts` of the failed try): 2^attempts seconds, at most 5 minutes. */
export const retryDelaySeconds = (attempts: number): number => Math.min(2 ** Math.max(1, attempts), 300);

const kindOf = (body: unknown): string | undefined =>
  body !== null && typeof body === "object" && typeof (body as { kind?: unknown }).kind === "string" ? (body as TaskMessage).kind : undefined;

/** Dispatches a batch by `kind`. */
export class QueueRouter {
  private readonly handlers = new Map<string, KindHandler>();

  /** Registers the handler of a kind. @throws Error when the kind already has one (a wiring bug). */
  on(kind: string, handler: KindHandler): this {
    if (this.handlers.has(kind)) throw new Error(`Queue kind '${kind}' is registered twice.`);
    this.handlers.set(kind, handler);
    return this;
  }

  /** The Worker's `queue()` handler: one message after the other (a tile's memory is freed before the next). */
  async consume(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    for (const message of batch.messages) await this.handle(message, env);
  }

  private async handle(message: Message<unknown>, env: Env): Promise<void> {
    const kind = kindOf(message.body);
    const handler = kind === undefined ? undefined : this.handlers.get(kind);
    if (!handler) {
      console.error(`queue: message ${message.id} has ${kind === undefined ? "no kind" : `unknown kind '${kind}'`}; retried, then dead-lettered`);
      message.retry({ delaySeconds: 0 });
      return;
    }
    try {
      await handler(message.body as TaskMessage, env, message);
      message.ack();
    } catch (e) {
      console.error(`queue: ${kind} message ${message.id} failed (attempt ${message.attempts}):`, String(e).slice(0, 500));
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
