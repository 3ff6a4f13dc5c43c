-- Batch Processing v2: the account-scoped index of tasks (src/batch/routes.ts lists it; each task's record and
-- state live in its BatchTask Durable Object, which keeps status and description here in step).
CREATE TABLE batch_tasks (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  created TEXT NOT NULL,              -- ISO 8601 UTC
  status TEXT NOT NULL,               -- CREATED, ANALYSING, ANALYSIS_DONE, PROCESSING, DONE, FAILED, STOPPED
  description TEXT NOT NULL DEFAULT ''
);
CREATE INDEX batch_tasks_created ON batch_tasks (account_id, created, id);
CREATE INDEX batch_tasks_status ON batch_tasks (account_id, status, created, id);
