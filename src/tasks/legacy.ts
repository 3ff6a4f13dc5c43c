/**
 * Moves a task stored by the engine before its one-row-per-unit storage (tables engine_task, engine_secrets,
 * task_state, task_counters, task_messages, task_alarm, engine_units, task_units) into the task and units tables
 * (./rows.ts), once, when the object first runs this code; then drops the old tables. A unit keeps its data, status,
 * error, memo and lease; one its task no longer needs is CANCELLED (terminal task) or IDLE (not PROCESSING: START
 * leases it, with its message, again); a PROCESSING task's unit whose lease ended uncounted is leased as expired (the
 * alarm sends it again). Processing units were charged by the old engine when counted: nothing is owed.
 */

const OLD_TABLES = [
  "engine_task",
  "engine_secrets",
  "task_state",
  "task_counters",
  "task_messages",
  "task_alarm",
  "engine_units",
  "task_units",
];

/** Runs inside the engine's constructor (synchronous SQL; the caller wraps it in one transaction). */
export function migrateOldTask(sql: SqlStorage): void {
  const old = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (" + OLD_TABLES.map(() => "?").join(", ") + ")",
      ...OLD_TABLES,
    )
    .toArray()
    .map((t) => t.name);
  if (!old.includes("engine_task") || old.length < OLD_TABLES.length) return;
  if (sql.exec("SELECT 1 FROM task").toArray().length === 0) {
    const counter = (name: string) => `COALESCE((SELECT value FROM task_counters WHERE name = '${name}'), 0)`;
    sql.exec(
      `INSERT INTO task (k, record, request, secrets, state, updated, done, failed, pu, deadline, armed, ended)
       SELECT 1, t.record, t.request, (SELECT secrets FROM engine_secrets WHERE k = 1), COALESCE(s.state, 'CREATED'),
         COALESCE(s.updated, json_extract(t.record, '$.created')), ${counter("done")}, ${counter("failed")}, ${counter("pu")},
         (SELECT deadline FROM task_alarm WHERE k = 1), (SELECT armed FROM task_alarm WHERE k = 1),
         EXISTS (SELECT 1 FROM task_messages WHERE id = 'ended')
       FROM engine_task t LEFT JOIN task_state s ON s.k = 1 WHERE t.k = 1`,
    );
    const state = sql.exec<{ state: string }>("SELECT state FROM task WHERE k = 1").toArray()[0]?.state ?? "CREATED";
    const terminal = ["DONE", "FAILED", "PARTIAL"].includes(state) ? 1 : 0;
    const processing = state === "PROCESSING" ? 1 : 0;
    sql.exec(
      `INSERT INTO units (id, message, status, attempts, sends, owner, lease_until, cause, idx, data, memo)
       SELECT 'u:' || e.id, COALESCE(l.message, json_set((SELECT message FROM task_units WHERE id LIKE 'u:%' LIMIT 1), '$.unit', e.id), '{}'),
         CASE WHEN e.status <> 'PENDING' THEN e.status WHEN ?1 THEN 'CANCELLED' WHEN ?2 THEN 'PENDING' ELSE 'IDLE' END,
         COALESCE(l.attempts, 0), COALESCE(l.sends, 1), l.owner, CASE WHEN l.status = 'PENDING' THEN l.lease_until ELSE 0 END,
         e.error, e.idx, e.data, e.memo
       FROM engine_units e LEFT JOIN task_units l ON l.id = 'u:' || e.id`,
      terminal,
      processing,
    );
    sql.exec(
      `INSERT INTO units (id, message, status, attempts, sends, owner, lease_until, cause)
       SELECT id, message, CASE WHEN status = 'PENDING' AND ?1 THEN 'CANCELLED' ELSE status END, attempts, sends, owner, lease_until, cause
       FROM task_units WHERE id IN ('plan', 'assemble')`,
      terminal,
    );
  }
  for (const table of OLD_TABLES) sql.exec(`DROP TABLE ${table}`);
}
