#!/usr/bin/env python3
"""DERIVED fixture for SIMPLE gap-fill tests: two overlapping PARTIAL acquisitions made from real pixels.

Run with Debian's python3 (python3-gdal, numpy): part of `npm run references`.
The West Flanders patch (data/sentinel-2-l2a/westflanders) is fully covered on every date, so no real pair of
partial acquisitions exists in data/. This script cuts the real B04 files of 2018-04-21 and 2018-04-19 along two
straight "swath edges" (pixels outside set to 0 = no data, as in Sentinel-2 tiles at a swath border):
- 2018-04-21 (item partial_2018-04-21, cloud cover 100 as the real item): data where col >= 20 + 0.4 * row;
- 2018-04-19 (item partial_2018-04-19, cloud cover 0): data where col <= 44 - 0.3 * row.
Every class of pixel exists: only 04-21, only 04-19, both, neither (bottom centre).
Writes test/fixtures/process/partial/<date>/B04.tif (64x64 UInt16 COG, nodata 0, same grid as the source),
partial/items.json (STAC items copied from data/items with the id, assets and eoedge:derived changed) and the
numpy references partial/<case>.bin (float32 little-endian, row-major, row 0 north): per mosaicking order the
expected B04 reflectance (DN / 10000) of a SIMPLE mosaic (first scene in order with data wins per pixel), -1 where
no scene has data (dataMask 0); partial/counts.json: how many pixels each scene class has.
"""
import copy, json, os
import numpy as np
from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
WF = os.path.join(HERE, "..", "..", "data", "sentinel-2-l2a", "westflanders")
ITEMS = os.path.join(HERE, "..", "..", "data", "items", "sentinel-2-l2a")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "process", "partial")
ROWS, COLS = np.mgrid[0:64, 0:64]
CUTS = {
    "2018-04-21": ("S2_L2A_31UDS_20180421T105629_wc00002806639B424A", COLS >= 20 + 0.4 * ROWS),
    "2018-04-19": ("S2_L2A_31UDS_20180419T110127_wc00002806639B424A", COLS <= 44 - 0.3 * ROWS),
}


def cut(date, keep):
    """Writes the B04 of `date` with pixels outside `keep` set to 0; returns the written DN array."""
    src = gdal.Open(os.path.join(WF, date, "B04.tif"))
    dn = src.GetRasterBand(1).ReadAsArray()
    dn = np.where(keep, dn, 0).astype(np.uint16)
    assert (dn[keep] != 0).all(), "a kept pixel has DN 0"
    mem = gdal.GetDriverByName("MEM").Create("", 64, 64, 1, gdal.GDT_UInt16)
    mem.SetGeoTransform(src.GetGeoTransform())
    mem.SetProjection(src.GetProjection())
    mem.GetRasterBand(1).WriteArray(dn)
    mem.GetRasterBand(1).SetNoDataValue(0)
    os.makedirs(os.path.join(OUT, date), exist_ok=True)
    gdal.Translate(os.path.join(OUT, date, "B04.tif"), mem, format="COG", creationOptions=["COMPRESS=DEFLATE", "PREDICTOR=2"])
    return dn


def item(date, source_id):
    with open(os.path.join(ITEMS, source_id + ".json")) as f:
        it = json.load(f)
    out = copy.deepcopy(it)
    out["id"] = f"partial_{date}"
    out["assets"] = {"B04": {**it["assets"]["B04"], "href": f"fixtures/process/partial/{date}/B04.tif"}}
    out["properties"]["eoedge:derived"] = True
    out["properties"]["eoedge:note"] = f"DERIVED by test/reference/derive_partial.py: real B04 of {source_id} cut along a synthetic swath edge"
    return out


def mosaic(order, dns):
    """SIMPLE mosaic: per pixel the first scene of `order` with data; reflectance, -1 where none has data."""
    value = np.full((64, 64), -1, np.float32)
    mask = np.zeros((64, 64), bool)
    for d in order:
        take = (dns[d] != 0) & ~mask
        value[take] = (dns[d][take].astype(np.float64) / 10000).astype(np.float32)
        mask |= take
    return value


if __name__ == "__main__":
    dns = {d: cut(d, keep) for d, (_, keep) in CUTS.items()}
    with open(os.path.join(OUT, "items.json"), "w") as f:
        json.dump([item(d, sid) for d, (sid, _) in CUTS.items()], f, indent=1)
    a, b = (dns["2018-04-21"] != 0), (dns["2018-04-19"] != 0)
    counts = {"only_0421": int((a & ~b).sum()), "only_0419": int((b & ~a).sum()), "both": int((a & b).sum()), "neither": int((~a & ~b).sum())}
    assert all(counts.values()), counts
    refs = {
        "mostRecent": mosaic(["2018-04-21", "2018-04-19"], dns),
        "leastRecent": mosaic(["2018-04-19", "2018-04-21"], dns),
        "only_0419": mosaic(["2018-04-19"], dns),
    }
    for name, arr in refs.items():
        np.ascontiguousarray(arr, dtype="<f4").tofile(os.path.join(OUT, name + ".bin"))
    with open(os.path.join(OUT, "counts.json"), "w") as f:
        json.dump(counts, f)
    print("wrote partial fixtures to", OUT, counts)
