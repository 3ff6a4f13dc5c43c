#!/usr/bin/env python3
"""GeoPackage fixture of the Statistical Batch tests (Debian's python3 with python3-gdal):
/usr/bin/python3 test/reference/make_statbatch_gpkg.py writes test/fixtures/statbatch/mixed_features.gpkg.

Layer `features`, EPSG:32631, columns `identifier` TEXT (Sentinel Hub's identifier column, used by the
<IDENTIFIER> output placeholder):
- fid 1 `field-a`, fid 2 `field-b`: two fields inside the West Flanders sample scene (data/sentinel-2-l2a/westflanders,
  501360..502000 E, 5629040..5629680 N);
- fid 3 `far-away`: a square 5000 km east of the zone's valid area (the Statistical API answers 400 for it);
- fid 4 `bad/../name`: a field inside the scene whose identifier makes an output key with a `..` segment, which no
  bucket accepts (the feature cannot be written: it is retried, dead-lettered and counted failed).
GDAL stamps creation times into the file: a rerun rewrites it (the tests read geometries from the file itself
through the API and compare against the synchronous API, so no reference values depend on the bytes).
"""
import os
from osgeo import gdal, ogr, osr

gdal.UseExceptions()
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "statbatch", "mixed_features.gpkg")

FEATURES = [
    ("field-a", (501400.0, 5629500.0, 501520.0, 5629640.0)),
    ("field-b", (501700.0, 5629100.0, 501830.0, 5629260.0)),
    ("far-away", (5000000.0, 5629100.0, 5000100.0, 5629200.0)),
    ("bad/../name", (501550.0, 5629300.0, 501660.0, 5629420.0)),
]


def square(x0, y0, x1, y1):
    ring = ogr.Geometry(ogr.wkbLinearRing)
    for x, y in [(x0, y1), (x1, y1), (x1, y0), (x0, y0), (x0, y1)]:
        ring.AddPoint_2D(x, y)
    poly = ogr.Geometry(ogr.wkbPolygon)
    poly.AddGeometry(ring)
    return poly


def main():
    if os.path.exists(OUT):
        os.remove(OUT)
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32631)
    ds = ogr.GetDriverByName("GPKG").CreateDataSource(OUT)
    layer = ds.CreateLayer("features", srs, ogr.wkbPolygon)
    layer.CreateField(ogr.FieldDefn("identifier", ogr.OFTString))
    for identifier, box in FEATURES:
        f = ogr.Feature(layer.GetLayerDefn())
        f.SetField("identifier", identifier)
        f.SetGeometry(square(*box))
        layer.CreateFeature(f)
    ds = None
    print("wrote", OUT)


if __name__ == "__main__":
    main()
