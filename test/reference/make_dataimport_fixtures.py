"""Fixtures of test/dataimport's Planet stub (test/dataimport/planet-stub.mjs), made with GDAL from data/:
- planet_AnalyticMS_SR_clip.tif: a 4-band UINT16 COG (blue, green, red, NIR = Sentinel-2 B02, B03, B04, B08 of the
  West Flanders 2017-08-24 patch), the shape of a PlanetScope analytic_sr_udm2 delivery's AnalyticMS_SR_clip.tif, so
  an imported Planet product reads known pixels (band 3 = B04).
Run: /usr/bin/python3 test/reference/make_dataimport_fixtures.py
"""
from osgeo import gdal

SRC = "data/sentinel-2-l2a/westflanders/2017-08-24"
OUT = "test/fixtures/dataimport"

gdal.UseExceptions()
vrt = gdal.BuildVRT("/vsimem/planet.vrt", [f"{SRC}/{b}.tif" for b in ("B02", "B03", "B04", "B08")], separate=True)
gdal.Translate(f"{OUT}/planet_AnalyticMS_SR_clip.tif", vrt, format="COG", creationOptions=["COMPRESS=DEFLATE"])
