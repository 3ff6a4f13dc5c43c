-- EO Edge: a BYOC tile's tileGeometry given at creation (the spec's BYOC tile: optional, any CRS,
-- stored in CRS84). 1 when tile_geometry holds the user's geometry, which ingestion and reingest then keep; 0 when
-- ingestion sets it (the files' common extent).
ALTER TABLE byoc_tiles ADD COLUMN tile_geometry_given INTEGER NOT NULL DEFAULT 0;
