#!/usr/bin/env python3
"""Zarr stores written from real sample pixels (Debian's python3-zarr 2.13 + GDAL): `/usr/bin/python3 test/reference/make-zarr.py`.

1. test/fixtures/zarr/westflanders.zarr: the 19-date West Flanders series (data/sentinel-2-l2a/westflanders/<date>/,
   SOURCES.md 1f) as ONE Zarr v2 group following Sentinel Hub's Zarr import constraints
   (docs.sentinel-hub.com/api/latest/api/zarr, "Data constraints"): coordinate arrays x, y (pixel centres, metres,
   EPSG:32631) and time (int64, attribute units "seconds since 1970-01-01T00:00:00Z", the items' datetimes), data
   arrays B02, B03, B04, B08 of dimensions [time, y, x] (_ARRAY_DIMENSIONS, xarray's convention), order C, dtype <u4
   (Sentinel Hub accepts u4/i4/i8/f4/f8 only; the UInt16 DN are widened losslessly), fill_value 0 (the files' nodata),
   chunks (1, 32, 32), zlib.
2. test/fixtures/zarr/reader/<n>.zarr: the reader-contract files (test/fixtures/reader/refs.json) as 2-D groups with
   the files' own sample types and block sizes: arrays b1..bN = the GDAL bands, x / y pixel-centre coordinates, and
   GDAL's overviews as sub-groups ovr1, ovr2, ... listed in the group attribute "overviews" (EO Edge's convention
   for resolution levels, see src/raster/zarr/reader.ts).
Each store gets a files.json listing its keys (so tests can copy it into a bucket).
"""
import json, os, shutil
import numpy as np
import zarr
from numcodecs import Zlib
from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
DATA = os.path.join(ROOT, "data")
OUT = os.path.join(ROOT, "test", "fixtures", "zarr")
WF = os.path.join(DATA, "sentinel-2-l2a", "westflanders")
ITEMS = os.path.join(DATA, "items", "sentinel-2-l2a")
BANDS = ["B02", "B03", "B04", "B08"]
# Reader-contract files written as Zarr: a UInt8 file with an overview and a 3-band Int16 file with nodata -32768
# (the two large UInt16 COGs would add 4 MB of fixtures and no case these two lack).
CONTRACT = ["sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/SCL.tif", "sentinel-2-l2a/belgium/openEO_2023-06-04Z.tif"]


def dims(arr, names):
    arr.attrs["_ARRAY_DIMENSIONS"] = names


def coords(group, gt, width, height, chunk=None):
    """x / y pixel-centre coordinate arrays of a north-up geotransform."""
    x = group.create_dataset("x", data=gt[0] + (np.arange(width) + 0.5) * gt[1], dtype="<f8", compressor=None)
    y = group.create_dataset("y", data=gt[3] + (np.arange(height) + 0.5) * gt[5], dtype="<f8", compressor=None)
    dims(x, ["x"])
    dims(y, ["y"])


def list_keys(path):
    keys = []
    for d, _, files in os.walk(path):
        for f in files:
            if f != "files.json":
                keys.append(os.path.relpath(os.path.join(d, f), path))
    with open(os.path.join(path, "files.json"), "w") as fh:
        json.dump(sorted(keys), fh)


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return zarr.open_group(zarr.DirectoryStore(path), mode="w")


def item_time(date):
    """The datetime of the West Flanders item of `date` (data/items), as seconds since the Unix epoch."""
    for f in sorted(os.listdir(ITEMS)):
        doc = json.load(open(os.path.join(ITEMS, f)))
        href = doc["assets"].get("B04", {}).get("href", "")
        if href == f"sentinel-2-l2a/westflanders/{date}/B04.tif":
            return int(np.datetime64(doc["properties"]["datetime"].replace("Z", ""), "s").astype("int64")), doc["id"]
    raise SystemExit(f"no item for {date}")


def westflanders():
    dates = sorted(d for d in os.listdir(WF) if os.path.isdir(os.path.join(WF, d)))
    first = gdal.Open(os.path.join(WF, dates[0], "B04.tif"))
    gt, w, h = first.GetGeoTransform(), first.RasterXSize, first.RasterYSize
    g = fresh(os.path.join(OUT, "westflanders.zarr"))
    g.attrs.update({"title": "West Flanders Sentinel-2 L2A, 19 dates (EO Edge sample)", "crs": "EPSG:32631"})
    coords(g, gt, w, h)
    times = [item_time(d) for d in dates]
    t = g.create_dataset("time", data=np.array([s for s, _ in times], dtype="<i8"), compressor=None)
    t.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": "seconds since 1970-01-01T00:00:00Z"})
    for b in BANDS:
        stack = np.stack([gdal.Open(os.path.join(WF, d, f"{b}.tif")).ReadAsArray().astype("<u4") for d in dates])
        a = g.create_dataset(b, data=stack, chunks=(1, 32, 32), dtype="<u4", fill_value=0, compressor=Zlib(level=6), order="C")
        dims(a, ["time", "y", "x"])
    list_keys(os.path.join(OUT, "westflanders.zarr"))


def reader_store(rel, name):
    ds = gdal.Open(os.path.join(DATA, rel))
    g = fresh(os.path.join(OUT, "reader", name))
    gt = ds.GetGeoTransform()
    first = ds.GetRasterBand(1)
    levels = first.GetOverviewCount()
    g.attrs["overviews"] = [f"ovr{i + 1}" for i in range(levels)]
    g.attrs["crs"] = f"EPSG:{ds.GetSpatialRef().GetAuthorityCode(None)}"
    for level in range(levels + 1):
        sub = g if level == 0 else g.create_group(f"ovr{level}")
        ref = first if level == 0 else first.GetOverview(level - 1)
        w, h = ref.XSize, ref.YSize
        lgt = (gt[0], gt[1] * ds.RasterXSize / w, 0, gt[3], 0, gt[5] * ds.RasterYSize / h)
        coords(sub, lgt, w, h)
        bw, bh = ref.GetBlockSize()
        for i in range(ds.RasterCount):
            band = ds.GetRasterBand(i + 1)
            src = band if level == 0 else band.GetOverview(level - 1)
            arr = src.ReadAsArray()
            nodata = band.GetNoDataValue()
            a = sub.create_dataset(f"b{i + 1}", data=arr, chunks=(bh, bw), dtype=arr.dtype.newbyteorder("<"),
                                   fill_value=None if nodata is None else arr.dtype.type(nodata), compressor=Zlib(level=9))
            dims(a, ["y", "x"])
    list_keys(os.path.join(OUT, "reader", name))


def main():
    westflanders()
    refs = json.load(open(os.path.join(ROOT, "test", "fixtures", "reader", "refs.json")))
    names = {}
    for rel in refs:
        if rel not in CONTRACT:
            continue
        name = rel.replace("/", "_").replace(".tif", ".zarr")
        reader_store(rel, name)
        names[rel] = f"reader/{name}"
    with open(os.path.join(OUT, "reader", "stores.json"), "w") as fh:
        json.dump(names, fh, indent=1)


if __name__ == "__main__":
    main()
