-- EO Edge: one registry of data collections (the built-ins now; BYOC, batch and Zarr collections join it).
--
-- data_collections: one row per collection.
--   id        the collection's own id: the built-in's name (sentinel-2-l2a), or the uuid of a BYOC/batch/Zarr one
--   type      the processing type id (input.data[].type) and catalog collection id: sentinel-2-l2a, byoc-<uuid>,
--             batch-<uuid>, zarr-<uuid>; items.collection holds it
--   aliases   JSON array of further type names accepted in input.data[].type (Sentinel Hub's S2L2A, ...)
--   kind      builtin | byoc | batch | zarr
--   owner     the account that owns it; NULL for built-ins, which every account sees (others see only their own)
--   title     human-readable name (the catalog title, BYOC/Zarr `name`)
--   location  the deployment location id it is hosted in (spec 4.14); NULL = this deployment's own (LOCATION_ID)
--   optical   1 when Sentinel-2 DN -> reflectance applies (BOA/TOA offsets, harmonizeValues)
--   config    JSON of kind-specific settings (e.g. BYOC s3Bucket and additionalData, a Zarr store's bucket and path)
--   stac      JSON of the STAC collection document's static members (description, keywords, license, providers,
--             summaries without eo:bands, stac_extensions, extent_default); id, title, eo:bands, extent and links
--             are added when the catalog renders it (src/catalog/collections.ts)
--   created   registration time (ISO 8601 UTC); lists are in (built-ins first, created, id) order
-- collection_bands: the bands of each collection, in `position` order.
--   units        JSON array of the units a request may ask for; default_units is the one DEFAULT means (listed first)
--   sample_type  UINT8 | INT8 | UINT16 | INT16 | UINT32 | INT32 | FLOAT32 | FLOAT64: the stored sample type
--   resolution   nominal ground sampling distance in metres (NULL unknown); nodata: the no-data value (NULL none)
--   kind         file (read from the item's assets) | derived (computed from source_band) | angle (per scene)
--   common_name, wavelength, fwhm: STAC eo:bands (centre wavelength and full width at half maximum, micrometres)
--   source, band_index: where a BYOC/Zarr band is read in each tile (the file name's (BAND) value, 1-based band)
--
-- Built-in band values: Sentinel Hub data documentation (docs.sentinel-hub.com/api/latest/data/sentinel-2-l2a,
-- sentinel-2-l1c, sentinel-1-grd); wavelengths: Sentinel-2A spectral response (ESA). The sample Sentinel-1 files
-- hold raw GRD amplitude DN as UINT16 (served as stored). CLM is derived from SCL here (s2cloudless at Sentinel Hub).
CREATE TABLE data_collections (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL UNIQUE,
  aliases TEXT NOT NULL DEFAULT '[]',
  kind TEXT NOT NULL CHECK (kind IN ('builtin', 'byoc', 'batch', 'zarr')),
  owner TEXT,
  title TEXT NOT NULL,
  location TEXT,
  optical INTEGER NOT NULL DEFAULT 0,
  config TEXT NOT NULL DEFAULT '{}',
  stac TEXT NOT NULL DEFAULT '{}',
  created TEXT NOT NULL,
  CHECK ((kind = 'builtin') = (owner IS NULL))
);
CREATE INDEX data_collections_owner ON data_collections (owner, created, id);

CREATE TABLE collection_bands (
  collection TEXT NOT NULL REFERENCES data_collections (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'derived', 'angle')),
  units TEXT NOT NULL DEFAULT '["DN"]',
  default_units TEXT NOT NULL DEFAULT 'DN',
  sample_type TEXT NOT NULL CHECK (sample_type IN ('UINT8', 'INT8', 'UINT16', 'INT16', 'UINT32', 'INT32', 'FLOAT32', 'FLOAT64')),
  resolution REAL,
  nodata REAL,
  source_band TEXT,
  common_name TEXT,
  wavelength REAL,
  fwhm REAL,
  source TEXT,
  band_index INTEGER,
  PRIMARY KEY (collection, name),
  UNIQUE (collection, position)
);

-- The catalog's former extra-document table: no code path ever wrote it; the registry replaces it.
DROP TABLE collections;

INSERT INTO data_collections (id, type, aliases, kind, owner, title, location, optical, stac, created) VALUES
  ('sentinel-2-l1c', 'sentinel-2-l1c', '["S2L1C"]', 'builtin', NULL, 'Sentinel 2 L1C', NULL, 1,
   '{"stac_extensions":["https://stac-extensions.github.io/scientific/v1.0.0/schema.json","https://stac-extensions.github.io/eo/v1.0.0/schema.json"],"description":"Sentinel 2 imagery processed to level 1C (top-of-atmosphere reflectance)","keywords":["sentinel","copernicus","esa","msi","satellite","imagery"],"sci:citation":"Modified Copernicus Sentinel data [Year]/EO Edge","license":"proprietary","providers":[{"name":"ESA","roles":["producer","licensor"],"url":"https://esa.int/"},{"name":"EO Edge","roles":["host","processor"]}],"summaries":{"platform":["sentinel-2a","sentinel-2b"],"instruments":["msi"],"instrument":["msi"],"constellation":["sentinel-2"],"gsd":[10,20,60],"eo:cloud_cover":{"minimum":0,"maximum":100}},"extent_default":{"spatial":{"bbox":[[-180,-56,180,83]]},"temporal":{"interval":[["2015-11-01T00:00:00Z",null]]}}}',
   '2026-01-01T00:00:00Z');
INSERT INTO data_collections (id, type, aliases, kind, owner, title, location, optical, stac, created) VALUES
  ('sentinel-2-l2a', 'sentinel-2-l2a', '["S2L2A"]', 'builtin', NULL, 'Sentinel 2 L2A', NULL, 1,
   '{"stac_extensions":["https://stac-extensions.github.io/scientific/v1.0.0/schema.json","https://stac-extensions.github.io/eo/v1.0.0/schema.json"],"description":"Sentinel 2 imagery processed to level 2A (bottom-of-atmosphere reflectance)","keywords":["sentinel","copernicus","esa","msi","satellite","imagery"],"sci:citation":"Modified Copernicus Sentinel data [Year]/EO Edge","license":"proprietary","providers":[{"name":"ESA","roles":["producer","licensor"],"url":"https://esa.int/"},{"name":"EO Edge","roles":["host","processor"]}],"summaries":{"platform":["sentinel-2a","sentinel-2b"],"instruments":["msi"],"instrument":["msi"],"constellation":["sentinel-2"],"gsd":[10,20,60],"eo:cloud_cover":{"minimum":0,"maximum":100}},"extent_default":{"spatial":{"bbox":[[-180,-56,180,83]]},"temporal":{"interval":[["2016-11-01T00:00:00Z",null]]}}}',
   '2026-01-01T00:00:01Z');
INSERT INTO data_collections (id, type, aliases, kind, owner, title, location, optical, stac, created) VALUES
  ('sentinel-1-grd', 'sentinel-1-grd', '["S1GRD"]', 'builtin', NULL, 'Sentinel 1 GRD', NULL, 0,
   '{"stac_extensions":["https://stac-extensions.github.io/scientific/v1.0.0/schema.json","https://stac-extensions.github.io/sat/v1.0.0/schema.json","https://stac-extensions.github.io/sar/v1.0.0/schema.json"],"description":"Sentinel 1 Ground Range Detected Imagery","keywords":["sentinel","copernicus","esa","sar","c-band","satellite"],"sci:citation":"Modified Copernicus Sentinel data [Year]/EO Edge","license":"proprietary","providers":[{"name":"ESA","roles":["producer","licensor"],"url":"https://esa.int/"},{"name":"EO Edge","roles":["host","processor"]}],"summaries":{"platform":["sentinel-1a","sentinel-1b"],"instruments":["c-sar"],"instrument":["c-sar"],"constellation":["sentinel-1"],"sat:orbit_state":["ascending","descending"],"sar:instrument_mode":["SM","IW","EW","WV"],"sar:frequency_band":["C"],"sar:center_frequency":[5.405],"sar:product_type":["GRD"],"sar:polarizations":["HH","HV","VH","VV"],"sar:resolution_range":[9,20,23,50,52,84,88,93],"sar:resolution_azimuth":[9,22,23,50,51,84,87],"sar:pixel_spacing_range":[3.5,10,25,40],"sar:pixel_spacing_azimuth":[3.5,10,25,40],"s1:timeliness":["NRT10m","NRT1h","NRT3h","Fast24h","Offline","Reprocessing","ArchNormal"],"s1:resolution":["HIGH","MEDIUM","FULL"],"s1:polarization":["SH","SV","DH","DV","HH","HV","VV","VH"]},"extent_default":{"spatial":{"bbox":[[-180,-85,180,85]]},"temporal":{"interval":[["2014-10-03T00:00:00Z",null]]}}}',
   '2026-01-01T00:00:02Z');
INSERT INTO collection_bands (collection, position, name, kind, units, default_units, sample_type, resolution, nodata, source_band, common_name, wavelength, fwhm) VALUES
  ('sentinel-2-l2a', 0, 'B01', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 60, 0, NULL, 'coastal', 0.4427, 0.021),
  ('sentinel-2-l2a', 1, 'B02', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 10, 0, NULL, 'blue', 0.4924, 0.066),
  ('sentinel-2-l2a', 2, 'B03', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 10, 0, NULL, 'green', 0.5598, 0.036),
  ('sentinel-2-l2a', 3, 'B04', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 10, 0, NULL, 'red', 0.6646, 0.031),
  ('sentinel-2-l2a', 4, 'B05', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 20, 0, NULL, NULL, 0.7041, 0.015),
  ('sentinel-2-l2a', 5, 'B06', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 20, 0, NULL, NULL, 0.7405, 0.015),
  ('sentinel-2-l2a', 6, 'B07', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 20, 0, NULL, NULL, 0.7828, 0.02),
  ('sentinel-2-l2a', 7, 'B08', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 10, 0, NULL, 'nir', 0.8328, 0.106),
  ('sentinel-2-l2a', 8, 'B8A', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 20, 0, NULL, 'nir08', 0.8647, 0.021),
  ('sentinel-2-l2a', 9, 'B09', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 60, 0, NULL, 'nir09', 0.9451, 0.02),
  ('sentinel-2-l2a', 10, 'B11', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 20, 0, NULL, 'swir16', 1.6137, 0.091),
  ('sentinel-2-l2a', 11, 'B12', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 20, 0, NULL, 'swir22', 2.2024, 0.175),
  ('sentinel-2-l2a', 12, 'SCL', 'file', '["DN"]', 'DN', 'UINT8', 20, 0, NULL, NULL, NULL, NULL),
  ('sentinel-2-l2a', 13, 'AOT', 'file', '["OPTICAL_DEPTH", "DN"]', 'OPTICAL_DEPTH', 'UINT16', 10, 0, NULL, NULL, NULL, NULL),
  ('sentinel-2-l2a', 14, 'WVP', 'file', '["DN"]', 'DN', 'UINT16', 10, 0, NULL, NULL, NULL, NULL),
  ('sentinel-2-l2a', 15, 'CLM', 'derived', '["DN"]', 'DN', 'UINT8', 20, 255, 'SCL', NULL, NULL, NULL),
  ('sentinel-2-l2a', 16, 'sunZenithAngles', 'angle', '["DEGREES"]', 'DEGREES', 'FLOAT32', 5000, NULL, NULL, NULL, NULL, NULL),
  ('sentinel-2-l2a', 17, 'sunAzimuthAngles', 'angle', '["DEGREES"]', 'DEGREES', 'FLOAT32', 5000, NULL, NULL, NULL, NULL, NULL),
  ('sentinel-2-l2a', 18, 'viewZenithMean', 'angle', '["DEGREES"]', 'DEGREES', 'FLOAT32', 5000, NULL, NULL, NULL, NULL, NULL),
  ('sentinel-2-l2a', 19, 'viewAzimuthMean', 'angle', '["DEGREES"]', 'DEGREES', 'FLOAT32', 5000, NULL, NULL, NULL, NULL, NULL),
  ('sentinel-2-l1c', 10, 'B10', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 60, 0, NULL, 'cirrus', 1.3735, 0.031),
  ('sentinel-1-grd', 0, 'VV', 'file', '["LINEAR_POWER", "DN"]', 'LINEAR_POWER', 'UINT16', 10, 0, NULL, NULL, NULL, NULL),
  ('sentinel-1-grd', 1, 'VH', 'file', '["LINEAR_POWER", "DN"]', 'LINEAR_POWER', 'UINT16', 10, 0, NULL, NULL, NULL, NULL);

-- L1C has L2A's spectral bands (B10 added between B09 and B11) and its angles; no SCL/AOT/WVP/CLM.
INSERT INTO collection_bands
  SELECT 'sentinel-2-l1c', CASE WHEN kind = 'angle' THEN position - 3 WHEN position >= 10 THEN position + 1 ELSE position END, name, kind, units, default_units,
    sample_type, resolution, nodata, source_band, common_name, wavelength, fwhm, source, band_index
  FROM collection_bands WHERE collection = 'sentinel-2-l2a' AND (wavelength IS NOT NULL OR kind = 'angle');
