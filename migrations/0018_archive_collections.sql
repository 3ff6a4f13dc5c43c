-- EO Edge: built-in collections read from an upstream archive only (issue 36, src/archive): they hold no local
-- items, so they are offered only when the deployment's archive serves them (config.archiveOnly; the registry
-- filters them out otherwise, src/storage/registry.ts). Band names, units and sample types as Sentinel Hub documents
-- them (docs.sentinel-hub.com/api/latest/data/dem/, .../landsat-8-l2/); wavelengths of Landsat 8 OLI / TIRS (USGS).
-- Landsat reflectance and temperature are computed from each item's raster:bands scale and offset (USGS Collection 2
-- Level-2: reflectance = DN * 0.0000275 - 0.2, temperature K = DN * 0.00341802 + 149.0).
INSERT INTO data_collections (id, type, aliases, kind, owner, title, location, optical, config, stac, created) VALUES
  ('dem', 'dem', '["DEM"]', 'builtin', NULL, 'DEM', NULL, 0, '{"archiveOnly":true}',
   '{"description":"Copernicus DEM GLO-30 and GLO-90 (demInstance COPERNICUS_30 / COPERNICUS_90), read from the configured archive","keywords":["dem","elevation","copernicus"],"license":"proprietary","sci:citation":"Copernicus DEM, produced using Copernicus WorldDEM-30 (c) DLR e.V. 2010-2014 and (c) Airbus Defence and Space GmbH 2014-2018 provided under COPERNICUS by the European Union and ESA; all rights reserved","providers":[{"name":"European Space Agency","roles":["licensor"],"url":"https://spacedata.copernicus.eu/collections/copernicus-digital-elevation-model"},{"name":"Airbus","roles":["producer"]},{"name":"EO Edge","roles":["processor"]}],"summaries":{"gsd":[30,90]},"extent_default":{"spatial":{"bbox":[[-180,-90,180,90]]},"temporal":{"interval":[["2021-04-22T00:00:00Z",null]]}}}',
   '2026-01-01T00:00:03Z'),
  ('landsat-ot-l2', 'landsat-ot-l2', '["LOTL2"]', 'builtin', NULL, 'Landsat 8-9 L2', NULL, 0, '{"archiveOnly":true}',
   '{"stac_extensions":["https://stac-extensions.github.io/eo/v1.0.0/schema.json"],"description":"Landsat 8-9 OLI-TIRS Collection 2 Level-2 surface reflectance and surface temperature, read from the configured archive","keywords":["landsat","usgs","surface reflectance","surface temperature"],"license":"proprietary","sci:citation":"Landsat Level-2 Surface Reflectance and Surface Temperature Science Products courtesy of the U.S. Geological Survey","providers":[{"name":"USGS","roles":["producer","licensor"],"url":"https://www.usgs.gov/landsat-missions"},{"name":"EO Edge","roles":["processor"]}],"summaries":{"platform":["landsat-8","landsat-9"],"instruments":["oli","tirs"],"gsd":[30],"eo:cloud_cover":{"minimum":0,"maximum":100}},"extent_default":{"spatial":{"bbox":[[-180,-90,180,90]]},"temporal":{"interval":[["2013-03-18T00:00:00Z",null]]}}}',
   '2026-01-01T00:00:04Z');
INSERT INTO collection_bands (collection, position, name, kind, units, default_units, sample_type, resolution, nodata, source_band, common_name, wavelength, fwhm) VALUES
  ('dem', 0, 'DEM', 'file', '["METERS"]', 'METERS', 'FLOAT32', 30, NULL, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 0, 'B01', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'coastal', 0.443, 0.016),
  ('landsat-ot-l2', 1, 'B02', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'blue', 0.482, 0.06),
  ('landsat-ot-l2', 2, 'B03', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'green', 0.561, 0.057),
  ('landsat-ot-l2', 3, 'B04', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'red', 0.655, 0.037),
  ('landsat-ot-l2', 4, 'B05', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'nir08', 0.865, 0.028),
  ('landsat-ot-l2', 5, 'B06', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'swir16', 1.609, 0.085),
  ('landsat-ot-l2', 6, 'B07', 'file', '["REFLECTANCE", "DN"]', 'REFLECTANCE', 'UINT16', 30, 0, NULL, 'swir22', 2.201, 0.187),
  ('landsat-ot-l2', 7, 'B10', 'file', '["KELVIN", "DN"]', 'KELVIN', 'UINT16', 100, 0, NULL, 'lwir11', 10.895, 0.59),
  ('landsat-ot-l2', 8, 'BQA', 'file', '["DN"]', 'DN', 'UINT16', 30, 1, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 9, 'QA_RADSAT', 'file', '["DN"]', 'DN', 'UINT16', 30, NULL, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 10, 'SR_QA_AEROSOL', 'file', '["DN"]', 'DN', 'UINT8', 30, 1, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 11, 'ST_QA', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 12, 'ST_TRAD', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 13, 'ST_URAD', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 14, 'ST_DRAD', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 15, 'ST_ATRAN', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 16, 'ST_EMIS', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 17, 'ST_EMSD', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL),
  ('landsat-ot-l2', 18, 'ST_CDIST', 'file', '["DN"]', 'DN', 'INT16', 30, -9999, NULL, NULL, NULL, NULL);
