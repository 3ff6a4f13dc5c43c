#!/usr/bin/env python3
"""Bad BYOC band files for the ingestion tests (test/byoc/ingest.test.ts), made with GDAL from a real West Flanders
Sentinel-2 band (data/sentinel-2-l2a/westflanders/2017-08-24, 64 x 64 px, EPSG:32631):

- stripped_B04.tif: the same pixels as a plain GeoTIFF stored in strips (TILED=NO), i.e. not a COG;
- wgs84_B08.tif:    B08 warped to EPSG:4326 (a COG), so a tile with it and the UTM B04 mixes CRSs;
- uint8_B04.tif:    B04 as 8-bit samples (a COG), for a collection whose B04 is 16-bit;
- stack_B08_B04.tif: B08 and B04 as bands 1 and 2 of one COG (multi-band files with bandIndex).

Usage: /usr/bin/python3 test/reference/make_byoc_fixtures.py  (writes test/fixtures/byoc/)
"""
import os
from osgeo import gdal

gdal.UseExceptions()
SRC = "data/sentinel-2-l2a/westflanders/2017-08-24"
OUT = "test/fixtures/byoc"


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    gdal.Translate(f"{OUT}/stripped_B04.tif", f"{SRC}/B04.tif", format="GTiff", creationOptions=["TILED=NO", "COMPRESS=DEFLATE"])
    gdal.Warp(f"{OUT}/wgs84_B08.tif", f"{SRC}/B08.tif", dstSRS="EPSG:4326", format="COG", creationOptions=["COMPRESS=DEFLATE"])
    gdal.Translate(f"{OUT}/uint8_B04.tif", f"{SRC}/B04.tif", format="COG", outputType=gdal.GDT_Byte, scaleParams=[[0, 4000, 0, 255]], creationOptions=["COMPRESS=DEFLATE"])
    vrt = gdal.BuildVRT("/vsimem/stack.vrt", [f"{SRC}/B08.tif", f"{SRC}/B04.tif"], separate=True)
    gdal.Translate(f"{OUT}/stack_B08_B04.tif", vrt, format="COG", creationOptions=["COMPRESS=DEFLATE"])
    for name in sorted(os.listdir(OUT)):
        info = gdal.Info(f"{OUT}/{name}", format="json")
        print(name, info["size"], info["bands"][0]["type"], info["bands"][0].get("block"), info["coordinateSystem"]["wkt"][:40].replace("\n", " "))


if __name__ == "__main__":
    main()
