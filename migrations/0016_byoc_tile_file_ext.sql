-- EO Edge: the extension of a BYOC tile's band files. A tile path without one (`folder`,
-- `folder/(BAND)`) reads `.tiff` or `.tif` files, whichever ingestion finds; the tile keeps it so its item's
-- assets and its file list name the real keys. NULL for tiles ingested before: they read `.tif` files.
ALTER TABLE byoc_tiles ADD COLUMN file_ext TEXT;
