/**
 * The Durable Object class of one Async Processing request (/api/v1/async/process): its state machine
 * (src/tasks/machines.ts: RUNNING -> DONE | FAILED) on the {@link TaskDurableObject} base (atomic transitions,
 * counters, once-only message ids, timeout alarm), plus the request's record (table async_request: account,
 * the request with its evalscript resolved, creation time). Named by request id (`ASYNC_TASKS.idFromName(id)`).
 * The render is one leased unit ({@link RENDER_UNIT}, src/tasks/lease.ts): a render lost with its message or its
 * Worker is sent again by the lease watchdog, and after its last attempt the request FAILS with the cause.
 * A request still RUNNING after {@link ASYNC_TIMEOUT_MS} is FAILED by the alarm, with error.json written.
 */
import type { Env } from "../env";
import { TaskDurableObject, type MessageOutcome, type TaskSnapshot } from "../tasks/object";
import { ASYNC_MACHINE, type AsyncState } from "../tasks/machines";
import type { TransitionResult } from "../tasks/machine";
import type { AsyncRequest } from "./schema";
import { writeFailure } from "./record";
import { ApiError } from "../http/errors";
import { asyncMessage } from "./queue";

/** A request still running after this long is failed (12 hours). */
export const ASYNC_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/** What the object keeps of a request. */
export interface AsyncRecord {
  /** Request id (uuid). */
  id: string;
  /** Account of the token that submitted it: the only one that sees it. */
  account: string;
  /** ISO 8601 UTC. */
  created: string;
  /** Location id that accepted it (LOCATION_ID of the request's env); the queue consumer runs it as that location. */
  location?: string;
  /** The request as submitted, `evalscript` filled in from evalscriptReference when that was given. */
  request: AsyncRequest & { evalscript: string };
}

/** The counter holding the processing units charged (set when the request finishes). */
export const UNITS_COUNTER = "processingUnits";

/** The request's one unit of work: its render (and the once-only id of its end). */
export const RENDER_UNIT = "render";

const SCHEMA = "CREATE TABLE IF NOT EXISTS async_request (k INTEGER PRIMARY KEY CHECK (k = 1), record TEXT NOT NULL)";

export class AsyncTask extends TaskDurableObject<AsyncState> {
  protected readonly machine = ASYNC_MACHINE;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(SCHEMA);
  }

  /**
   * Stores the record of a new request with its render unit (leased; the caller sends its message, the watchdog
   * sends it if that is lost) and arms its timeout; false (nothing changed) when one exists already.
   */
  async create(record: AsyncRecord): Promise<boolean> {
    if (this.record()) return false;
    this.ctx.storage.sql.exec("INSERT INTO async_request (k, record) VALUES (1, ?)", JSON.stringify(record));
    this.leases.put([{ id: RENDER_UNIT, message: asyncMessage(record.id) }], Date.now());
    await this.scheduleTimeout(ASYNC_TIMEOUT_MS);
    return true;
  }

  /** The record, null before `create`. */
  record(): AsyncRecord | null {
    const row = this.ctx.storage.sql.exec<{ record: string }>("SELECT record FROM async_request WHERE k = 1").toArray()[0];
    return row ? (JSON.parse(row.record) as AsyncRecord) : null;
  }

  /**
   * Ends the request once, whoever asks first (its render, the dead-letter hook, the timeout): DONE or FAILED with
   * the processing units charged; its render unit ends with it. `applied` is false for every later call.
   */
  async finish(to: "DONE" | "FAILED", processingUnits = 0): Promise<TransitionResult<MessageOutcome<AsyncState>>> {
    this.leases.complete(RENDER_UNIT, to); // (a no-op when the request had ended: its move ended its units)
    const outcome = this.applyMessage(RENDER_UNIT, { to, counters: { [UNITS_COUNTER]: processingUnits } });
    if (outcome.ok && outcome.value.applied) await this.cancelTimeout();
    return outcome;
  }

  /** Timeout: a RUNNING request is FAILED and the failure written to the bucket. */
  protected override async onTimeout(task: TaskSnapshot<AsyncState>): Promise<void> {
    const record = this.record();
    if (task.state !== "RUNNING" || !record) return;
    const outcome = await this.finish("FAILED");
    if (outcome.ok && outcome.value.applied) await writeFailure(this.env, record, new ApiError(500, `The request did not finish within ${ASYNC_TIMEOUT_MS / 3600000} hours.`));
  }
}
