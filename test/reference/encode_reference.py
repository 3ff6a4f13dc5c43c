#!/usr/bin/env python3
"""GDAL-written reference GeoTIFFs for the encode tests (test/raster/encode/tiff.test.ts).

Run with Debian's python3 (python3-gdal 3.6): `/usr/bin/python3 test/reference/encode_reference.py`.
Takes the 64x64 window at column 400, row 400 of data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif and writes
- test/fixtures/encode/gdal_utm_uint16.tif: the DNs as UInt16 in EPSG:32629 on the window's own grid, nodata 0;
- test/fixtures/encode/gdal_4326_float32.tif: reflectance DN / 10000 as Float32 on an EPSG:4326 grid
  [-9.5, 30.0, -9.436, 30.064] (lon/lat, 0.001 degree pixels), nodata NaN;
both with GDAL's GTiff driver defaults plus COMPRESS=DEFLATE, and test/fixtures/encode/gdal_reference.json with
the window, bboxes and what GDAL reports (geotransform, nodata, EPSG), for the tests to compare EO Edge's writer with.
"""
import json, os
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "data", "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A", "B04.tif")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "encode")
X0, Y0, N = 400, 400, 64


def write(name, arr, gdal_type, epsg, geotransform, nodata):
    path = os.path.join(OUT, name)
    ds = gdal.GetDriverByName("GTiff").Create(path, N, N, 1, gdal_type, options=["COMPRESS=DEFLATE"])
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(epsg)
    ds.SetProjection(srs.ExportToWkt())
    ds.SetGeoTransform(geotransform)
    band = ds.GetRasterBand(1)
    band.SetNoDataValue(nodata)
    band.WriteArray(arr)
    ds = None
    check = gdal.Open(path)
    return {
        "file": name,
        "epsg": epsg,
        "geotransform": list(check.GetGeoTransform()),
        "nodata": "nan" if np.isnan(check.GetRasterBand(1).GetNoDataValue()) else check.GetRasterBand(1).GetNoDataValue(),
        "bbox": [geotransform[0], geotransform[3] + N * geotransform[5], geotransform[0] + N * geotransform[1], geotransform[3]],
    }


def main():
    src = gdal.Open(SRC)
    gt = src.GetGeoTransform()
    dn = src.GetRasterBand(1).ReadAsArray(X0, Y0, N, N).astype(np.uint16)
    utm_gt = (gt[0] + X0 * gt[1], gt[1], 0.0, gt[3] + Y0 * gt[5], 0.0, gt[5])
    geo_gt = (-9.5, 0.001, 0.0, 30.064, 0.0, -0.001)
    refl = (dn / 10000.0).astype(np.float32)
    refl[dn == 0] = np.nan
    meta = {
        "source": "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif",
        "window": {"col": X0, "row": Y0, "width": N, "height": N},
        "utm_uint16": write("gdal_utm_uint16.tif", dn, gdal.GDT_UInt16, 32629, utm_gt, 0),
        "geographic_float32": write("gdal_4326_float32.tif", refl, gdal.GDT_Float32, 4326, geo_gt, float("nan")),
    }
    with open(os.path.join(OUT, "gdal_reference.json"), "w") as f:
        json.dump(meta, f, indent=2)


if __name__ == "__main__":
    main()
