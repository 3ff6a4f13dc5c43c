/**
 * The D1 listing of the engine's tasks (table `tasks`, migrations/0012_tasks.sql): one row per task with the status
 * and description its Durable Object mirrors (the account's paged lists: src/taskapi/list.ts).
 */
import type { Env } from "../env";

/** Adds a new task (CREATED) to its account's list; a second call changes nothing. */
export async function insertListed(
  env: Pick<Env, "DB">,
  row: { id: string; kind: string; account: string; created: string; description?: string },
): Promise<void> {
  await env.DB.prepare(
    "INSERT OR IGNORE INTO tasks (id, kind, account, created, status, description) VALUES (?, ?, ?, ?, 'CREATED', ?)",
  )
    .bind(row.id, row.kind, row.account, row.created, row.description ?? "")
    .run();
}

/** Mirrors a task's status and description when `version` (the object's change counter) is newer than the row's. */
export async function mirrorListed(
  env: Pick<Env, "DB">,
  id: string,
  status: string,
  description: string,
  version: number,
): Promise<void> {
  await env.DB.prepare("UPDATE tasks SET status = ?1, description = ?2, version = ?3 WHERE id = ?4 AND version < ?3")
    .bind(status, description, version, id)
    .run();
}
