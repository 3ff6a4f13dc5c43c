-- Statistical Batch tasks (src/statbatch/): the account's task list. The task itself (request, features, counters)
-- lives in its Durable Object (StatisticalBatchTask); this table holds what listing sorts and pages by. `status` is
-- mirrored by the object on every state change; `version` (the object's change counter) keeps a late write from
-- putting an older status back.
CREATE TABLE statbatch_tasks (
  id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  created TEXT NOT NULL,
  status TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX statbatch_tasks_created ON statbatch_tasks (account, created, id);
CREATE INDEX statbatch_tasks_status ON statbatch_tasks (account, status, created, id);
