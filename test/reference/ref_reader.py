#!/usr/bin/env python3
"""GDAL references for the raster reader interface (src/raster/reader.ts) run against the COG reader.

Run with Debian's python3 (GDAL 3.6.2 + numpy): `/usr/bin/python3 test/reference/ref_reader.py` (part of `npm run references`).
Writes test/fixtures/reader/refs.json and test/fixtures/reader/windows.bin.

For each real sample COG: what GDAL reports (EPSG code, geotransform, size, band count, data type, nodata) and,
per resolution level, the size, block size and geotransform GDAL gives the overview when it opens it on its own
(open option OVERVIEW_LEVEL); then pixel windows read with ReadAsArray on the band or its overview (no
resampling: the stored samples), as raw little-endian float32, row-major, one band after the other, appended
to windows.bin at `offset` (in float32 values).
"""
import json, os
import numpy as np
from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "reader")
TYPES = {"Byte": "UINT8", "Int8": "INT8", "UInt16": "UINT16", "Int16": "INT16", "UInt32": "UINT32", "Int32": "INT32",
         "Float32": "FLOAT32", "Float64": "FLOAT64"}

# file under data/ -> windows [level, x0, y0, width, height, bands (0-based, in read order), note]
FILES = {
    "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif": [
        [0, 500, 490, 40, 30, [0], "full resolution, across the 512 px tile corner"],
        [0, 1060, 1070, 38, 28, [0], "full resolution, bottom-right corner (partial tiles)"],
        [1, 120, 250, 20, 20, [0], "overview 549 px, across 128 px tiles"],
        [2, 250, 250, 25, 25, [0], "overview 275 px, bottom-right corner"],
    ],
    "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B/iw-vv.utm43n-200m.tif": [
        [0, 240, 500, 36, 24, [0], "full resolution, across the 256 px tile edge"],
        [1, 690, 520, 21, 21, [0], "overview 711 x 541, bottom-right corner"],
        [2, 100, 100, 40, 30, [0], "overview 355 x 270"],
        [3, 150, 110, 28, 25, [0], "overview 178 x 135, bottom-right corner"],
    ],
    "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/SCL.tif": [
        [0, 200, 300, 32, 32, [0], "UInt8 scene classification, 549 px"],
        [1, 0, 0, 30, 20, [0], "UInt8 overview 275 px, top-left corner"],
    ],
    "sentinel-2-l2a/belgium/openEO_2023-06-04Z.tif": [
        [0, 0, 0, 73, 58, [2, 0], "Int16, 3 bands (band-interleaved), the whole image, bands 3 then 1"],
        [0, 10, 20, 15, 11, [1], "one band of three"],
    ],
}


def level_info(path, level):
    """Size, block size and geotransform of level `level` (0 = full resolution) as GDAL opens it alone."""
    ds = gdal.OpenEx(path, open_options=[f"OVERVIEW_LEVEL={level - 1}"]) if level > 0 else gdal.Open(path)
    band = ds.GetRasterBand(1)
    return {"width": ds.RasterXSize, "height": ds.RasterYSize, "blockWidth": band.GetBlockSize()[0],
            "blockHeight": band.GetBlockSize()[1], "geoTransform": list(ds.GetGeoTransform())}


def read(ds, level, x0, y0, w, h, band):
    b = ds.GetRasterBand(band + 1)
    if level > 0:
        b = b.GetOverview(level - 1)
    return b.ReadAsArray(x0, y0, w, h).astype("<f4")


def main():
    os.makedirs(OUT, exist_ok=True)
    refs, chunks, offset = {}, [], 0
    for rel, windows in FILES.items():
        path = os.path.join(DATA, rel)
        ds = gdal.Open(path)
        band = ds.GetRasterBand(1)
        srs = ds.GetSpatialRef()
        levels = [level_info(path, i) for i in range(band.GetOverviewCount() + 1)]
        out = []
        for level, x0, y0, w, h, bands, note in windows:
            arr = np.concatenate([read(ds, level, x0, y0, w, h, b).ravel() for b in bands])
            chunks.append(arr)
            out.append({"level": level, "window": {"x0": x0, "y0": y0, "width": w, "height": h}, "bands": bands,
                        "offset": offset, "note": note})
            offset += arr.size
        refs[rel] = {
            "epsg": int(srs.GetAuthorityCode(None)), "width": ds.RasterXSize, "height": ds.RasterYSize,
            "geoTransform": list(ds.GetGeoTransform()), "bandCount": ds.RasterCount,
            "sampleType": TYPES[gdal.GetDataTypeName(band.DataType)], "nodata": band.GetNoDataValue(),
            "levels": levels, "windows": out,
        }
        print(f"{rel}: {len(levels)} levels, {len(out)} windows")
    np.concatenate(chunks).astype("<f4").tofile(os.path.join(OUT, "windows.bin"))
    refs["_gdal"] = gdal.__version__
    with open(os.path.join(OUT, "refs.json"), "w") as f:
        json.dump(refs, f, indent=1)
    print(f"wrote {offset * 4} bytes of windows to {OUT}")


if __name__ == "__main__":
    main()
