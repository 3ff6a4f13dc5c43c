-- Accounts with a plan: plans as data, per-account overrides, OAuth client lifecycle and SPA origins.
-- Rate-limit policies are JSON arrays of {"samplingPeriod": <ISO 8601 duration>, "limit": <integer>}; a request must
-- satisfy every policy of its account (src/ratelimit/). pu_quota: processing units per calendar month (UTC), NULL = none.
CREATE TABLE plans (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  max_clients INTEGER NOT NULL,       -- active OAuth clients per account
  policies TEXT NOT NULL,             -- request policies of every authenticated API call
  token_policies TEXT NOT NULL,       -- token requests, per OAuth client
  pu_quota REAL                       -- processing units per month, NULL = unlimited
);

INSERT INTO plans (id, name, max_clients, policies, token_policies, pu_quota) VALUES
  ('trial', 'Trial', 2,
   '[{"samplingPeriod":"PT1S","limit":5},{"samplingPeriod":"PT1M","limit":100}]',
   '[{"samplingPeriod":"PT1M","limit":10}]', 30000),
  ('basic', 'Basic', 10,
   '[{"samplingPeriod":"PT1S","limit":20},{"samplingPeriod":"P1D","limit":10000}]',
   '[{"samplingPeriod":"PT1M","limit":30}]', 100000),
  ('enterprise', 'Enterprise', 100,
   '[{"samplingPeriod":"PT1S","limit":1000}]',
   '[{"samplingPeriod":"PT1M","limit":600}]', NULL);

-- Every account (the demo account too) starts on the generous enterprise plan; `policies`, `token_policies` and
-- `pu_quota` override the plan's values for one account when not NULL (see README, "Accounts and rate limits").
-- No REFERENCES plans(id) here: SQLite refuses to add a REFERENCES column with a non-NULL default to a table
-- that has rows (an existing local state); an unknown plan id fails loudly in src/accounts/plans.ts (accountLimits).
ALTER TABLE accounts ADD COLUMN plan TEXT NOT NULL DEFAULT 'enterprise';
ALTER TABLE accounts ADD COLUMN policies TEXT;
ALTER TABLE accounts ADD COLUMN token_policies TEXT;
ALTER TABLE accounts ADD COLUMN pu_quota REAL;

-- Deleted clients stay (inactive list) with the time of deletion; spa_origins: JSON array of allowed web origins
-- of a single-page-application client (["*"] = all domains), NULL for a confidential client.
ALTER TABLE oauth_clients ADD COLUMN deleted TEXT;
ALTER TABLE oauth_clients ADD COLUMN spa_origins TEXT;
CREATE INDEX oauth_clients_account ON oauth_clients (account_id, created);
