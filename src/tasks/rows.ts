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
import type { Task } from "./plugin";

export const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS task (k INTEGER PRIMARY KEY CHECK (k = 1), record TEXT NOT NULL, request TEXT NOT NULL, secrets TEXT,
     state TEXT NOT NULL, updated TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, pu REAL NOT NULL DEFAULT 0,
     deadline INTEGER, armed INTEGER, ended INTEGER NOT NULL DEFAULT 0)`,
  ...leaseSchema("units", ", idx INTEGER, data TEXT, memo TEXT, pu REAL NOT NULL DEFAULT 0, owed INTEGER NOT NULL DEFAULT 0"),
  "CREATE INDEX IF NOT EXISTS units_owed ON units (owed) WHERE owed = 1",
];

/** The stored record: the task's own fields besides request, state and counters; `version` orders listing mirrors. */
export type TaskRecord = Omit<Task, "request" | "state" | "lastUpdated" | "done" | "failed" | "pu"> & { version: number };

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

/** A unit as the engine shows it (diagnostics, tests): its planned id, lease and outcome. */
export interface UnitState {
  id: string;
  status: string;
  attempts: number;
  owner: string | null;
  leaseUntil: number;
  error: string | null;
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
