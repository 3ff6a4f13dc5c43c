-- EO Edge: Zarr collections (Sentinel Hub Zarr Import API, spec 4.8; src/zarr/).
-- One row per collection, owned by an account (another account never sees it). The processable collection
-- (type zarr-<id>, bands) is a data_collections row of kind 'zarr' (migration 0003) registered when ingestion
-- succeeds; its time steps are STAC items (items.collection = 'zarr-<id>').
--   s3_bucket, path   where the Zarr group lives (path ends with '/', does not start with it)
--   crs               the native CRS URI given at creation
--   status            CREATED | INGESTING | INGESTED | FAILED; ingestion_errors: the reasons when FAILED (else NULL)
--   envelope          GeoJSON Polygon of the group's extent in its CRS; width, height: pixels (NULL before ingestion)
--   zattrs            JSON of the group's .zattrs; arrays: JSON [{name, zarray, zattrs}] of its arrays
--   bands             JSON additionalData.bands; max_mpp: additionalData.maxMetersPerPixel
CREATE TABLE zarr_collections (
  id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  name TEXT NOT NULL,
  s3_bucket TEXT NOT NULL,
  path TEXT NOT NULL,
  crs TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('CREATED', 'INGESTING', 'INGESTED', 'FAILED')),
  ingestion_errors TEXT,
  envelope TEXT,
  width INTEGER,
  height INTEGER,
  zattrs TEXT,
  arrays TEXT NOT NULL DEFAULT '[]',
  bands TEXT,
  max_mpp REAL,
  created TEXT NOT NULL
);
CREATE INDEX zarr_collections_account ON zarr_collections (account, created, id);
