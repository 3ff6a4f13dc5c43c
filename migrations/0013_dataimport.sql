-- EO Edge: third-party data import (interface spec 4.9-4.13, src/dataimport/). Deprecated area, kept for clients
-- of Sentinel Hub's /api/v1/dataimport API.
--
-- import_orders: orders and subscriptions (kind), one row each.
--   id, account        uuid of the record and its owning account
--   kind               'order' | 'subscription'
--   name               the record's name (also the name of the BYOC collection made at confirmation)
--   collection_id      the BYOC collection deliveries are ingested into: given at creation or made at confirmation
--   provider           PLANET | MAXAR | SAMPLE (src/dataimport/providers)
--   quota_collection   the quota it is charged to (PLANET_SCOPE, PLANET_SKYSAT, MAXAR_WORLDVIEW, SAMPLE_SENTINEL_2)
--   status             order: CREATED CANCELLED RUNNING DONE PARTIAL FAILED; subscription: CREATED RUNNING
--                      CANCELLED COMPLETED FAILED (src/dataimport/model.ts gives the moves)
--   sqkm               km2 charged at confirmation (orders: max(geodesic area, provider minimum); subscriptions:
--                      the area of input.bounds)
--   input              the request's input JSON without the provider API key
--   api_key            the provider API key (write-only: never returned, never logged; cleared when the record ends)
--   items              JSON array of the provider item ids the order resolved to (orders) or delivered (subscriptions)
--   charged            1 once sqkm was added to the quota's quota_used (exactly once per record)
--   deleted            1 once the user deleted a finished record (hidden unless deleted=true)
--   created            ISO 8601 UTC
CREATE TABLE import_orders (
  id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('order', 'subscription')),
  name TEXT NOT NULL,
  collection_id TEXT,
  provider TEXT NOT NULL,
  quota_collection TEXT NOT NULL,
  status TEXT NOT NULL,
  sqkm REAL NOT NULL,
  input TEXT NOT NULL,
  api_key TEXT,
  items TEXT NOT NULL DEFAULT '[]',
  charged INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL
);
CREATE INDEX import_orders_list ON import_orders (account, kind, deleted, created, id);

-- import_quotas: per account and quota collection, km2 purchased (quota_sqkm) and used (quota_used). A missing row
-- is the default quota of the collection (src/dataimport/quotas.ts), written on first use.
CREATE TABLE import_quotas (
  account TEXT NOT NULL,
  collection TEXT NOT NULL,
  quota_sqkm REAL NOT NULL,
  quota_used REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (account, collection)
);

-- import_deliveries: one per delivered provider item of an order or subscription (parent).
--   status   WAITING DELIVERED DELIVERY_FAILED PREPARING INGESTING DONE IMPORT_FAILED NON_INGESTIBLE
--   prefix   where its files are in the collection's bucket (<prefix><file>)
--   files    JSON array of the delivered file names (relative to prefix)
--   tile_id  the BYOC tile its files were ingested as
CREATE TABLE import_deliveries (
  id TEXT PRIMARY KEY,
  parent TEXT NOT NULL REFERENCES import_orders (id) ON DELETE CASCADE,
  account TEXT NOT NULL,
  provider TEXT NOT NULL,
  item_id TEXT NOT NULL,
  sqkm REAL,
  status TEXT NOT NULL,
  error_message TEXT,
  prefix TEXT,
  files TEXT NOT NULL DEFAULT '[]',
  tile_id TEXT,
  created TEXT NOT NULL,
  UNIQUE (parent, item_id)
);
CREATE INDEX import_deliveries_list ON import_deliveries (parent, created, id);

-- import_archives: zip archives of a delivery's files, made on request.
--   status  WAITING PREPARING DONE FAILED; size in bytes once DONE; key: the archive's object in the bucket
CREATE TABLE import_archives (
  delivery TEXT NOT NULL REFERENCES import_deliveries (id) ON DELETE CASCADE,
  format TEXT NOT NULL,
  account TEXT NOT NULL,
  requested TEXT NOT NULL,
  status TEXT NOT NULL,
  size INTEGER,
  key TEXT,
  PRIMARY KEY (delivery, format)
);
