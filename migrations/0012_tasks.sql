-- One listing of the task engine's tasks (src/tasks/listing.ts) for every kind (batch, statbatch, async, ...): the
-- account-scoped index the list routes sort and page by. Each task's record and state live in its Durable Object
-- (src/tasks/engine.ts), which mirrors status and description here after every change; `version` (the object's
-- change counter) keeps a late write from putting an older status back. Replaces batch_tasks and statbatch_tasks.
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  account TEXT NOT NULL,
  created TEXT NOT NULL,              -- ISO 8601 UTC
  status TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tasks_created ON tasks (account, kind, created, id);
CREATE INDEX tasks_status ON tasks (account, kind, status, created, id);
INSERT INTO tasks (id, kind, account, created, status, description) SELECT id, 'batch', account_id, created, status, description FROM batch_tasks;
INSERT INTO tasks (id, kind, account, created, status, version) SELECT id, 'statbatch', account, created, status, version FROM statbatch_tasks;
DROP TABLE batch_tasks;
DROP TABLE statbatch_tasks;
