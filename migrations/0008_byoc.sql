-- EO Edge: BYOC tiles (interface spec 4.7). A BYOC collection is a data_collections row of kind 'byoc' (type
-- byoc-<uuid>, owner = account, config JSON {s3Bucket, noData?}); its bands are collection_bands rows with
-- source / band_index (where each tile keeps the band) set. A tile is a byoc_tiles row; once INGESTED it is also an
-- item of the catalog (items.collection = byoc-<uuid>, items.id = tile id), written in the same D1 batch as the
-- status, so the catalog, the processing scene search and the tile list never disagree.
--
-- byoc_tiles:
--   id               uuid of the tile
--   collection       data_collections.id (the collection's uuid)
--   account          the owning account (the collection's owner)
--   path             path in the bucket, may hold (BAND); unique per collection
--   status           WAITING | QUEUED | INGESTING | INGESTED | FAILED (src/byoc/tiles.ts gives the moves)
--   sensing_time     ISO 8601 UTC, or NULL
--   cover_geometry   GeoJSON as given by the user, or NULL
--   tile_geometry    GeoJSON Polygon in CRS84 (computed at ingestion: the intersection of the files' boxes)
--   tile_epsg        EPSG code of the tile's files (set at ingestion)
--   native_bbox      JSON [minX, minY, maxX, maxY] of tile_geometry in the tile CRS (what the API returns)
--   meters_per_pixel finest pixel size of the tile's files in metres (set at ingestion)
--   failed_cause, warnings: additionalData of the tile
--   created          creation time, ISO 8601 UTC
CREATE TABLE byoc_tiles (
  id TEXT PRIMARY KEY,
  collection TEXT NOT NULL REFERENCES data_collections (id) ON DELETE CASCADE,
  account TEXT NOT NULL,
  path TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('WAITING', 'QUEUED', 'INGESTING', 'INGESTED', 'FAILED')),
  sensing_time TEXT,
  cover_geometry TEXT,
  tile_geometry TEXT,
  tile_epsg INTEGER,
  native_bbox TEXT,
  meters_per_pixel REAL,
  failed_cause TEXT,
  warnings TEXT,
  created TEXT NOT NULL,
  UNIQUE (collection, path)
);
CREATE INDEX byoc_tiles_list ON byoc_tiles (collection, created, id);
CREATE INDEX byoc_tiles_status ON byoc_tiles (collection, status, created, id);
