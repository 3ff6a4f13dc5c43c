/**
 * The engine object's storage (its SQLite, ./engine.ts), one truth per fact:
 * - table `task`, one row: the record (JSON: the task's own fields), the request (./records.ts: in R2 when large,
 *   without secret keys), the secret keys (until the task is terminal), state and when it changed, the counters
 *   (units done and failed, processing units), the timeout's deadline and the alarm's time, and whether the `ended`
 *   hook ran;
 * - table `units`, one row per unit: the plan's units (idx = their order) and the plan and assembly units (idx
 *   NULL), each with its lease (./lease.ts: status, attempts, owner, lease expiry, message), error (`cause`), memo,
 *   processing units and whether they are still to be charged (`owed`). A unit is counted by ONE conditional update
 *   of its row (PENDING -> DONE or FAILED) in the transaction that adds it to the task row's counters.
 * Rows stay far under the 2 MB a Durable Object SQLite row may hold: large values are R2 references (./records.ts).
 */
import { leaseSchema } from "./lease";
import { checkTransition, type TaskMachine } from "./machine";
import { leaseId, unitMessage, type QueueName } from "./messages";
import type { UserAction } from "./machines";
import type { Task } from "./plugin";
import type { Inspection, UnitState } from "./verbs";

export const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS task (k INTEGER PRIMARY KEY CHECK (k = 1), record TEXT NOT NULL, request TEXT NOT NULL, secrets TEXT,
     state TEXT NOT NULL, updated TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, pu REAL NOT NULL DEFAULT 0,
     deadline INTEGER, armed INTEGER, ended INTEGER NOT NULL DEFAULT 0)`,
  ...leaseSchema(
    "units",
    ", idx INTEGER, data TEXT, memo TEXT, pu REAL NOT NULL DEFAULT 0, owed INTEGER NOT NULL DEFAULT 0",
  ),
  "CREATE INDEX IF NOT EXISTS units_owed ON units (owed) WHERE owed = 1",
];

/** The stored record: the task's own fields besides request, state and counters; `version` orders listing mirrors. */
export type TaskRecord = Omit<Task, "request" | "state" | "lastUpdated" | "done" | "failed" | "pu"> & {
  version: number;
};

/** The task row. */
export interface TaskRow extends Record<string, SqlStorageValue> {
  record: string;
  request: string;
  secrets: string | null;
  state: string;
  updated: string;
  done: number;
  failed: number;
  pu: number;
  deadline: number | null;
  armed: number | null;
  ended: number;
}

/** A unit's row (its lease columns and the engine's). */
export interface UnitRow extends Record<string, SqlStorageValue> {
  id: string;
  status: string;
  attempts: number;
  owner: string | null;
  lease_until: number;
  cause: string | null;
  idx: number | null;
  data: string | null;
  memo: string | null;
  pu: number;
}

/** The unit row `row` as shown (its id without the lease prefix of ./messages.ts). */
export const unitState = (row: UnitRow): UnitState => ({
  id: row.idx === null ? row.id : row.id.slice(2),
  status: row.status,
  attempts: row.attempts,
  owner: row.owner,
  leaseUntil: row.lease_until,
  error: row.cause,
  memo: row.memo,
  pu: row.pu,
});

/** The task row and unit rows of one engine object (see the module docs). Every method is synchronous SQL. */
export class TaskRows {
  constructor(private readonly sql: SqlStorage) {
    for (const statement of SCHEMA) sql.exec(statement);
  }

  /** Stores a new task row (state `state`, the timeout's `deadline` or null). */
  insert(record: TaskRecord, request: string, secrets: string | null, state: string, deadline: number | null): void {
    this.sql.exec(
      "INSERT INTO task (k, record, request, secrets, state, updated, deadline) VALUES (1, ?, ?, ?, ?, ?, ?)",
      JSON.stringify(record),
      request,
      secrets,
      state,
      record.created,
      deadline,
    );
  }

  row(): TaskRow | undefined {
    return this.sql.exec<TaskRow>("SELECT * FROM task WHERE k = 1").toArray()[0];
  }

  record(): TaskRecord | null {
    const row = this.row();
    return row ? (JSON.parse(row.record) as TaskRecord) : null;
  }

  /** Stores record `r` under the next version. */
  save(r: TaskRecord): void {
    this.sql.exec("UPDATE task SET record = ? WHERE k = 1", JSON.stringify({ ...r, version: r.version + 1 }));
  }

  /** Sets task row columns (`deadline`, `armed`, `secrets`). */
  set(column: "deadline" | "armed" | "secrets", value: SqlStorageValue): void {
    this.sql.exec(`UPDATE task SET ${column} = ? WHERE k = 1`, value);
  }

  /** True once: the first call after the task became terminal (the `ended` hook's turn); the deadline is dropped. */
  markEnded(): boolean {
    return this.sql.exec("UPDATE task SET ended = 1, deadline = NULL WHERE k = 1 AND ended = 0").rowsWritten > 0;
  }

  /** A checked move of the task to `to`. @throws TransitionError when `machine` forbids it. */
  move(machine: TaskMachine<string>, to: string): void {
    checkTransition(machine, this.row()!.state, to);
    this.sql.exec("UPDATE task SET state = ?, updated = ? WHERE k = 1", to, new Date().toISOString());
  }

  /** Unit `unit` (a planned id, PLAN_UNIT or ASSEMBLE_UNIT). */
  unit(unit: string): UnitRow | undefined {
    return this.sql.exec<UnitRow>("SELECT * FROM units WHERE id = ?", leaseId(unit)).toArray()[0];
  }

  /** Planned units not yet counted. */
  pending(): number {
    const t = this.row()!;
    return ((JSON.parse(t.record) as TaskRecord).units ?? 0) - t.done - t.failed;
  }

  /** Replaces the planned units by none (a new plan). */
  dropPlanned(): void {
    this.sql.exec("DELETE FROM units WHERE idx IS NOT NULL");
  }

  /** Inserts [id, stored data] units IDLE, with the messages of `kind` on `queue` that will run them, numbered from `first`. */
  insertUnits(
    task: string,
    kind: string,
    queue: QueueName,
    rows: readonly (readonly [string, string])[],
    first: number,
  ): void {
    rows.forEach(([id, data], i) =>
      this.sql.exec(
        "INSERT INTO units (id, message, status, lease_until, idx, data) VALUES (?, ?, 'IDLE', 0, ?, ?)",
        leaseId(id),
        JSON.stringify(unitMessage(kind, task, id, queue)),
        first + i,
        data,
      ),
    );
  }

  /** The planned ids of the IDLE planned units, in order. */
  idle(): string[] {
    return this.sql
      .exec<{ id: string }>("SELECT id FROM units WHERE status = 'IDLE' AND idx IS NOT NULL ORDER BY idx")
      .toArray()
      .map((u) => u.id.slice(2));
  }

  /** Every leased unit back to IDLE (its owner's next renewal fails). */
  unlease(): void {
    this.sql.exec("UPDATE units SET status = 'IDLE', owner = NULL WHERE status = 'PENDING'");
  }

  /** Every unit still leased or idle CANCELLED with `cause` (its task ended). */
  cancelOpen(cause: string): void {
    this.sql.exec(
      "UPDATE units SET status = 'CANCELLED', owner = NULL, cause = ? WHERE status IN ('PENDING', 'IDLE')",
      cause,
    );
  }

  /** Keeps `memo` for `unit` unless one was kept before. */
  remember(unit: string, memo: string): void {
    this.sql.exec("UPDATE units SET memo = COALESCE(memo, ?) WHERE id = ?", memo, leaseId(unit));
  }

  /**
   * Counts planned unit `unit` once: ONE conditional update (PENDING -> DONE, or FAILED with `error`) with its
   * processing units owed, then the task row's counters. False (nothing changed) when it was counted before.
   */
  count(unit: string, error: string | undefined, pu: number): boolean {
    const failed = error !== undefined;
    const won = this.sql.exec(
      "UPDATE units SET status = ?, cause = ?, pu = ?, owed = ?, owner = NULL WHERE id = ? AND status = 'PENDING' AND idx IS NOT NULL",
      failed ? "FAILED" : "DONE",
      error?.slice(0, 2000) ?? null,
      pu,
      pu > 0 ? 1 : 0,
      leaseId(unit),
    ).rowsWritten;
    if (won)
      this.sql.exec(
        `UPDATE task SET ${failed ? "failed = failed + 1" : "done = done + 1"}, pu = pu + ?, updated = ? WHERE k = 1`,
        pu,
        new Date().toISOString(),
      );
    return won > 0;
  }

  /** The first planned unit's error, or null. */
  firstError(): string | null {
    return (
      this.sql
        .exec<{ cause: string | null }>(
          "SELECT cause FROM units WHERE cause IS NOT NULL AND idx IS NOT NULL ORDER BY idx LIMIT 1",
        )
        .toArray()[0]?.cause ?? null
    );
  }

  /** Units whose processing units are owed to the account (counted, not yet charged). */
  owed(): { id: string; pu: number }[] {
    return this.sql.exec<{ id: string; pu: number }>("SELECT id, pu FROM units WHERE owed = 1").toArray();
  }

  /** Unit row `id`'s processing units were charged. */
  paid(id: string): void {
    this.sql.exec("UPDATE units SET owed = 0 WHERE id = ?", id);
  }

  /** The task and its units as stored (diagnostics and tests), or null before the task. */
  inspect(): Inspection | null {
    const t = this.row();
    if (!t) return null;
    const rows = this.sql.exec<UnitRow>("SELECT * FROM units ORDER BY idx").toArray();
    const [units, phases] = [rows.filter((u) => u.idx !== null), rows.filter((u) => u.idx === null)].map((list) =>
      list.map(unitState),
    );
    return {
      state: t.state,
      done: t.done,
      failed: t.failed,
      pu: t.pu,
      deadline: t.deadline,
      units: units!,
      phases: phases!,
    };
  }
}

/** `r` after user action `action` (a STOPPED task's reason dropped). */
export function acted(r: TaskRecord, action: UserAction): TaskRecord {
  const { stoppedStatusReason: _reason, ...rest } = r;
  return { ...rest, userAction: action, userActionUpdated: new Date().toISOString() };
}
