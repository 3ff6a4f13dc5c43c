-- The third-party import recovery sweep (src/dataimport/store.ts stalledRecords, every 5 minutes) reads the RUNNING
-- records oldest first: a partial index keeps that a walk of the RUNNING rows, not a scan of every order ever made.
CREATE INDEX import_orders_running ON import_orders (created, id) WHERE status = 'RUNNING';
