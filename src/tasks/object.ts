/**
 * The Durable Object base for work that outlives a request: one object holds one task (an async request, a batch
 * task, a statistical batch task), addressed by name (`env.TASKS.idFromName(taskId)`), in its own SQLite storage
 * (wrangler.toml `new_sqlite_classes`).
 *
 * What it guarantees: the state moves only along the subclass's {@link TaskMachine} edges, atomically (each RPC
 * method runs its reads and writes synchronously, without an await, so no other call interleaves: the Durable
 * Object input gate); progress counters change together with the state; a queue message id (`Message.id`,
 * stable across redeliveries) is applied at most once, so at-least-once delivery never double-counts; the alarm
 * hook handles timeouts; units of work run under leases re-sent by the alarm when lost (the base, ./leased.ts).
 * Storage: tables task_state (one row), task_counters, task_messages, and the base's task_units and task_alarm.
 */
import type { Env } from "../env";
import { LeasedObject } from "./leased";
import { TransitionError, checkTransition, isTerminal, type TaskMachine, type TransitionResult } from "./machine";

/** A task as stored: state, when it last changed (ISO 8601 UTC), progress counters by name. */
export interface TaskSnapshot<S extends string> {
  state: S;
  updated: string;
  counters: Record<string, number>;
}

/** What one message does to a task: counter increments (may be negative) and optionally a move to `to`. */
export interface TaskChange<S extends string> {
  counters?: Record<string, number>;
  to?: S;
}

/** The outcome of {@link TaskDurableObject.applyMessage}: `applied` false when the message id was seen before. */
export interface MessageOutcome<S extends string> {
  applied: boolean;
  snapshot: TaskSnapshot<S>;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS task_state (k INTEGER PRIMARY KEY CHECK (k = 1), state TEXT NOT NULL, updated TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS task_counters (name TEXT PRIMARY KEY, value REAL NOT NULL)",
  "CREATE TABLE IF NOT EXISTS task_messages (id TEXT PRIMARY KEY, at TEXT NOT NULL)",
];

/** Runs `f`, turning a TransitionError into the RPC-safe failed result (other errors propagate). */
function asResult<T>(f: () => T): TransitionResult<T> {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    if (!(e instanceof TransitionError)) throw e;
    return { ok: false, error: { machine: e.machine, from: e.from, to: e.to, expected: e.expected } };
  }
}

/**
 * Base class: a subclass gives `machine` (and may override {@link onTimeout}). Public methods are the RPC surface
 * (`stub.transition("ANALYSING")`); illegal moves come back as `{ok: false, error}` (wrap with `unwrap` from
 * ./machine.ts to get a thrown TransitionError on the caller's side).
 */
export abstract class TaskDurableObject<S extends string> extends LeasedObject {
  protected abstract readonly machine: TaskMachine<S>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    for (const statement of [...SCHEMA, ...this.tables()]) this.sql.exec(statement);
  }

  /** The subclass's own `CREATE TABLE IF NOT EXISTS` statements, run at construction after the base tables. */
  protected tables(): readonly string[] {
    return [];
  }

  /** The task now (the machine's initial state, no counters, `updated` "" before anything was stored). */
  snapshot(): TaskSnapshot<S> {
    const row = this.sql.exec<{ state: string; updated: string }>("SELECT state, updated FROM task_state WHERE k = 1").toArray()[0];
    const counters: Record<string, number> = {};
    for (const c of this.sql.exec<{ name: string; value: number }>("SELECT name, value FROM task_counters ORDER BY name")) counters[c.name] = c.value;
    return { state: (row?.state ?? this.machine.initial) as S, updated: row?.updated ?? "", counters };
  }

  /** Moves the task to `to`, only if that is an edge from its state and (when given) its state is `expected`. */
  transition(to: S, expected?: S): TransitionResult<TaskSnapshot<S>> {
    return asResult(() => this.ctx.storage.transactionSync(() => (this.move(to, expected), this.snapshot())));
  }

  /**
   * Applies a queue message's change once: the first call with `messageId` records it and applies `change`
   * (counters and move together, all or nothing); later calls with the same id change nothing (`applied: false`).
   * An illegal move rolls everything back, the id included, so a fixed retry can still apply.
   */
  applyMessage(messageId: string, change: TaskChange<S>): TransitionResult<MessageOutcome<S>> {
    return asResult(() =>
      this.ctx.storage.transactionSync(() => {
        if (this.processed(messageId)) return { applied: false, snapshot: this.snapshot() };
        this.sql.exec("INSERT INTO task_messages (id, at) VALUES (?, ?)", messageId, new Date().toISOString());
        for (const [name, by] of Object.entries(change.counters ?? {}))
          this.sql.exec("INSERT INTO task_counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value", name, by);
        if (change.to !== undefined) this.move(change.to);
        else this.touch(this.snapshot().state);
        return { applied: true, snapshot: this.snapshot() };
      }),
    );
  }

  /** True when a message with this id was applied. */
  processed(messageId: string): boolean {
    return this.sql.exec("SELECT 1 FROM task_messages WHERE id = ?", messageId).toArray().length > 0;
  }

  /** The base's timeout hook (scheduleTimeout's deadline reached): calls {@link onTimeout} with the task as it is. */
  protected override async deadlineReached(): Promise<void> {
    await this.onTimeout(this.snapshot());
  }

  /** Timeout hook; by default moves a task that is not terminal to `machine.timeoutTo` (when the machine has one). */
  protected async onTimeout(task: TaskSnapshot<S>): Promise<void> {
    const to = this.machine.timeoutTo;
    if (to !== undefined && !isTerminal(this.machine, task.state) && this.machine.transitions[task.state].includes(to)) this.transition(to);
  }

  /** Checks and stores a move (inside a transaction); a terminal state ends the task's pending units. @throws TransitionError */
  private move(to: S, expected?: S): void {
    checkTransition(this.machine, this.snapshot().state, to, expected);
    this.touch(to);
    if (isTerminal(this.machine, to)) this.leases.completeAll("DONE", `The ${this.machine.name} ended ${to}.`);
  }

  private touch(state: S): void {
    this.sql.exec(
      "INSERT INTO task_state (k, state, updated) VALUES (1, ?, ?) ON CONFLICT(k) DO UPDATE SET state = excluded.state, updated = excluded.updated",
      state,
      new Date().toISOString(),
    );
  }
}
