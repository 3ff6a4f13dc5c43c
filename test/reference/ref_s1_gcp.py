#!/usr/bin/env python3
"""GDAL references of Sentinel-1 GRD reads through the archive (test/archive/sentinel1.test.ts).

The twin's real GRD measurement file (data/archive/sentinel-s1-l1c/..., georeferenced by 210 GCPs only, see
data/SOURCES.md section 8) warped by gdal.Warp with GDAL's default GCP transformer (polynomial, order chosen by
GDAL from the GCP count: 2), nearest neighbour, exact transformer (errorThreshold 0), source nodata 0, onto UTM 43N
grids. Run with Debian's python3 (python3-gdal): /usr/bin/python3 test/reference/ref_s1_gcp.py
Writes test/fixtures/archive-reads/s1_<name>.bin (raw little-endian float32, row-major, row 0 north),
s1_<name>_lo.bin / _hi.bin (the smallest / largest value of the 3 x 3 source pixels around the one GDAL sampled for
each output pixel, in the overview GDAL read: the bounds a neighbouring source pixel keeps) and s1_grids.json (each
reference's grid and the level GDAL read: 0 = full resolution, n = overview n).
"""
import json, os
import numpy as np
from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
GRD = ("data/archive/sentinel-s1-l1c/GRD/2018/7/16/IW/DV/"
       "S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A_FD5B/measurement/iw-{pol}.tiff")
OUT = os.path.join(ROOT, "test", "fixtures", "archive-reads")
# UTM 43N grids: a native-resolution 200 m window inside the swath, and a 2 km grid over the whole scene (overviews)
X0, Y1 = 566396.008448501 + 300 * 200, 1237182.1888995206 - 400 * 200
GRIDS = {
    "vv200": ("vv", [X0, Y1 - 128 * 200, X0 + 160 * 200, Y1], 160, 128),
    "vh200": ("vh", [X0, Y1 - 128 * 200, X0 + 160 * 200, Y1], 160, 128),
    "vv2000": ("vv", [480000, 1020000, 800000, 1260000], 160, 120),
}


def warp(src, bbox, w, h, ovr="AUTO"):
    return gdal.Warp("", src, format="MEM", dstSRS="EPSG:32643", outputBounds=bbox, width=w, height=h,
                     resampleAlg="near", errorThreshold=0, srcNodata=0, dstNodata=0, outputType=gdal.GDT_Float32,
                     overviewLevel=ovr)


def read(ds):
    """Band 1 of `ds` as little-endian float32 (the dataset is kept alive while read)."""
    return ds.GetRasterBand(1).ReadAsArray().astype("<f4")


def neighbourhood(src, dst):
    """Per output pixel of `dst`, min and max of the 3 x 3 pixels of `src` around the one under its centre."""
    a = src.GetRasterBand(1).ReadAsArray().astype(np.float32)
    t = gdal.Transformer(src, dst, [])
    w, h = dst.RasterXSize, dst.RasterYSize
    pts = [(c + 0.5, r + 0.5) for r in range(h) for c in range(w)]
    out, _ = t.TransformPoints(1, pts)
    lo, hi = np.zeros(w * h, "<f4"), np.zeros(w * h, "<f4")
    for i, (x, y, _z) in enumerate(out):
        c, r = int(np.floor(x)), int(np.floor(y))
        win = a[max(0, r - 1):r + 2, max(0, c - 1):c + 2]
        if win.size:
            lo[i], hi[i] = win.min(), win.max()
    return lo, hi


def main():
    meta = {}
    for name, (pol, bbox, w, h) in GRIDS.items():
        path = os.path.join(ROOT, GRD.format(pol=pol))
        ds = warp(path, bbox, w, h)
        a = read(ds)
        a.tofile(os.path.join(OUT, f"s1_{name}.bin"))
        # the level GDAL's -ovr AUTO read: the one whose forced warp gives the same pixels
        levels = [gdal.Open(path)] + [gdal.OpenEx(path, open_options=[f"OVERVIEW_LEVEL={k}"]) for k in range(3)]
        level = next(k for k in range(4) if np.array_equal(read(warp(levels[k], bbox, w, h, "NONE")), a))
        lo, hi = neighbourhood(levels[level], ds)
        lo.tofile(os.path.join(OUT, f"s1_{name}_lo.bin"))
        hi.tofile(os.path.join(OUT, f"s1_{name}_hi.bin"))
        meta[name] = {"band": pol.upper(), "epsg": 32643, "bbox": bbox, "width": w, "height": h, "level": level,
                      "valid": int((a != 0).sum())}
    with open(os.path.join(OUT, "s1_grids.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
