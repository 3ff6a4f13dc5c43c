-- OGC WMS configuration (src/configuration): instances and their layers, scoped to the account that made them.
-- The instance id (a random UUID) is the credential of the OGC endpoints (/ogc/wms/{id}, /ogc/wmts/{id}).
CREATE TABLE wms_instances (
  id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  name TEXT NOT NULL,
  -- the instance JSON as the Configuration API stores it (name, description, additionalData), without layers
  body TEXT NOT NULL,
  created TEXT NOT NULL,
  updated TEXT NOT NULL
);
CREATE INDEX wms_instances_account ON wms_instances (account, created, id);

CREATE TABLE wms_layers (
  instance_id TEXT NOT NULL REFERENCES wms_instances (id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  order_hint INTEGER NOT NULL,
  -- the layer JSON (title, description, styles[{name, evalScript}], datasourceDefaults{type, timeRange, mosaickingOrder, maxCloudCoverage})
  body TEXT NOT NULL,
  PRIMARY KEY (instance_id, id)
);
