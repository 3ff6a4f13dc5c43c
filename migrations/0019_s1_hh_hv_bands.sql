-- EO Edge: the HH and HV bands of sentinel-1-grd (Sentinel Hub's S1GRD bands: VV, VH, HH, HV; docs.sentinel-hub.com/
-- api/latest/data/sentinel-1-grd/), read from the `hh` / `hv` assets of dual- and single-H products (DH, SH: polar
-- and sea-ice acquisitions) of the upstream archive (src/archive/catalogue.ts). A product holds two of the four;
-- asking one it lacks is a 400 naming the scene. Same units, sample type and no-data as VV / VH (migration 0003).
INSERT INTO collection_bands (collection, position, name, kind, units, default_units, sample_type, resolution, nodata, source_band, common_name, wavelength, fwhm) VALUES
  ('sentinel-1-grd', 2, 'HH', 'file', '["LINEAR_POWER", "DN"]', 'LINEAR_POWER', 'UINT16', 10, 0, NULL, NULL, NULL, NULL),
  ('sentinel-1-grd', 3, 'HV', 'file', '["LINEAR_POWER", "DN"]', 'LINEAR_POWER', 'UINT16', 10, 0, NULL, NULL, NULL, NULL);
