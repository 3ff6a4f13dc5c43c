#!/usr/bin/env python3
"""Reference statistics for the Statistical API tests, computed with GDAL + numpy from the files in data/.

Run with Debian's python3 (python3-gdal, numpy 1.24): /usr/bin/python3 test/reference/ref_statistics.py
Writes test/fixtures/statistics/references.json and, for the reducer unit tests, the NDVI values and counted-pixel
mask of two West Flanders dates (wf_<date>_ndvi.bin float32, wf_<date>_mask.bin uint8; row-major, row 0 north).

How the pixels are made (the same steps as EO Edge, so the numbers must agree):
- bands are read onto the request grid with gdal.Warp (nearest, errorThreshold=0); the grids here are aligned
  with the files (native 10 m / 100 m), SCL at 20 m / 200 m is replicated onto them by nearest;
- reflectance = float32(DN * (1/10000)) (these scenes are processing baseline < 04.00: no offset; Belgium has
  the offset applied), negative values clamped to 0 (harmonizeValues, default true);
- a pixel has data where every band read is not nodata (0 for the S2 files, -32768 for Belgium);
- SIMPLE mosaicking, mostRecent first: per pixel, the most recent scene of the interval with data;
- the evalscript's NDVI = float32((B08 - B04) / (B08 + B04)) in float64; dataMask = data and SCL not in
  {3, 8, 9, 10} (cloud shadow, cloud medium/high probability, thin cirrus);
- stats over the counted pixels: min, max, mean, stDev (ddof=1), sampleCount = all pixels of the grid,
  noDataCount = the others; percentiles with numpy.percentile(method=...); histograms with np.histogram on the
  edges the Statistical API rules give (nBins: low + i*(high-low)/n, last = high; binWidth: low + i*w,
  n = ceil((high-low)/w); default low/high = min/max).
"""
import json, math, os
import numpy as np
from osgeo import gdal
from gdal_common import rasterize

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data", "sentinel-2-l2a")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "statistics")
WF = os.path.join(DATA, "westflanders")
WF_GRID = dict(epsg=32631, bbox=[501360.0, 5629040.0, 502000.0, 5629680.0], width=64, height=64)
WF_DATES = sorted(os.listdir(WF))
WF_DATES = [d for d in WF_DATES if d[0].isdigit()]
CLOUD = [3, 8, 9, 10]


def warp(path, grid, band=1, nodata=0):
    """One band on the grid (float64 DN) and its valid mask."""
    src = gdal.Translate("", path, format="VRT", bandList=[band])
    ds = gdal.Warp("", src, format="MEM", dstSRS=f"EPSG:{grid['epsg']}", outputBounds=grid["bbox"], width=grid["width"],
                   height=grid["height"], resampleAlg="near", errorThreshold=0, srcNodata=nodata, dstNodata=nodata,
                   outputType=gdal.GDT_Float64)
    a = ds.GetRasterBand(1).ReadAsArray()
    return a, a != nodata


def refl(dn):
    return (np.maximum(dn, 0.0) * (1.0 / 10000)).astype(np.float32)


def ndvi_of(b4, b8):
    b4, b8 = b4.astype(np.float64), b8.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((b8 - b4) / (b8 + b4)).astype(np.float32)


def s2_scene(folder, grid):
    """B04, B08 reflectance and SCL of a scene folder, with its data mask."""
    b4, v4 = warp(os.path.join(folder, "B04.tif"), grid)
    b8, v8 = warp(os.path.join(folder, "B08.tif"), grid)
    scl, vs = warp(os.path.join(folder, "SCL.tif"), grid)
    return {"B04": refl(b4), "B08": refl(b8), "SCL": scl}, v4 & v8 & vs


def mosaic(scenes):
    """SIMPLE mosaic of (bands, valid) scenes in mosaicking order: first scene with data wins per pixel."""
    bands = {k: np.zeros_like(v) for k, v in scenes[0][0].items()}
    filled = np.zeros(scenes[0][1].shape, bool)
    for b, valid in scenes:
        take = valid & ~filled
        for k in bands:
            bands[k][take] = b[k][take]
        filled |= take
    return bands, filled


def ndvi_counted(dates, geometry_mask=None, grid=WF_GRID, folder=WF, cloud=CLOUD):
    """NDVI of the mostRecent mosaic of `dates` and the pixels the script masking SCL classes `cloud` counts."""
    bands, data = mosaic([s2_scene(os.path.join(folder, d), grid) for d in sorted(dates, reverse=True)])
    mask = data & ~np.isin(bands["SCL"], cloud)
    if geometry_mask is not None:
        mask &= geometry_mask
    return ndvi_of(bands["B04"], bands["B08"]), mask


def edges_for(spec, lo, hi):
    if "bins" in spec:
        return np.array(spec["bins"], dtype=np.float64)
    low = spec.get("lowEdge", lo)
    high = spec.get("highEdge", hi)
    if "nBins" in spec:
        n = spec["nBins"]
        w = (high - low) / n
        return np.array([low + i * w for i in range(n)] + [high], dtype=np.float64)
    w = spec["binWidth"]
    n = max(1, math.ceil((high - low) / w))
    return np.array([low + i * w for i in range(n + 1)], dtype=np.float64)


def band_stats(values, mask, calc):
    """Expected `stats` and `histogram` of one band (None for statistics without samples)."""
    x = values[mask & ~np.isnan(values)].astype(np.float64)
    n = x.size
    out = {"sampleCount": int(mask.size), "noDataCount": int(mask.size - n)}
    if n:
        out.update(min=float(x.min()), max=float(x.max()), mean=float(x.mean()), stDev=float(x.std(ddof=1)) if n > 1 else 0.0)
    else:
        out.update(min="NaN", max="NaN", mean="NaN", stDev="NaN")
    res = {"stats": out}
    if "percentiles" in calc:
        k, method = calc["percentiles"]["k"], calc["percentiles"].get("interpolation", "higher")
        vals = np.percentile(x, k, method=method) if n else [math.nan] * len(k)
        out["percentiles"] = {f"{float(q)}": (float(v) if n else "NaN") for q, v in zip(k, vals)}
    if "histogram" in calc:
        spec = calc["histogram"]
        if n or "bins" in spec or ("lowEdge" in spec and "highEdge" in spec):
            e = edges_for(spec, x.min() if n else math.nan, x.max() if n else math.nan)
            counts = np.histogram(x, bins=e)[0]
            res["histogram"] = {"edges": [float(v) for v in e], "counts": [int(c) for c in counts],
                                "underflow": int((x < e[0]).sum()), "overflow": int((x > e[-1]).sum())}
        else:
            res["histogram"] = {"edges": [], "counts": [], "underflow": 0, "overflow": 0}
    return res


def dates_in(frm, to):
    return [d for d in WF_DATES if frm <= d < to]


# Calculations sent by the tests (the same dicts, so request and reference cannot drift apart).
CALC_A = {"percentiles": {"k": [5, 25, 50, 75, 95]}, "histogram": {"nBins": 10, "lowEdge": -1, "highEdge": 1}}
CALC_B = {"percentiles": {"k": [10, 50, 90], "interpolation": "linear"}, "histogram": {"binWidth": 0.05}}
CALC_C = {"percentiles": {"k": [50], "interpolation": "nearest"}, "histogram": {"bins": [-1, 0, 0.2, 0.4, 0.6, 0.8, 1]}}
CALC_D = {"percentiles": {"k": [20, 80], "interpolation": "midpoint"}, "histogram": {"nBins": 8}}
CALC_E = {"percentiles": {"k": [1, 50, 99]}, "histogram": {"nBins": 20}}
POLYGON = [[501400.0, 5629100.0], [501900.0, 5629150.0], [501873.3, 5629600.0], [501452.7, 5629530.0], [501400.0, 5629100.0]]


def day(d, days=0):
    t = np.datetime64(d) + np.timedelta64(days, "D")
    return f"{t}T00:00:00Z"


def wf_intervals(intervals, calc, geometry_mask=None):
    """Expected entries for [(from_date, to_date)] intervals, only those with acquisitions."""
    out = []
    for frm, to in intervals:
        dates = dates_in(frm, to)
        if not dates:
            continue
        ndvi, mask = ndvi_counted(dates, geometry_mask)
        out.append({"interval": {"from": day(frm), "to": day(to)}, "dates": dates, "bands": {"B0": band_stats(ndvi, mask, calc)}})
    return out


def months(first, last):
    ms = np.arange(np.datetime64(first, "M"), np.datetime64(last, "M") + 1)
    return [(f"{m}-01", f"{m + 1}-01") for m in ms]


def belgium():
    grid = dict(epsg=32631, bbox=[644550.0, 5675770.0, 645280.0, 5676350.0], width=73, height=58)
    out = []
    for d in ["2023-06-01", "2023-06-04", "2023-06-06"]:
        path = os.path.join(DATA, "belgium", f"openEO_{d}Z.tif")
        bands = [warp(path, grid, b, -32768) for b in (1, 2, 3)]
        valid = bands[0][1] & bands[1][1] & bands[2][1]
        out.append({"interval": {"from": day(d), "to": day(d, 1)}, "dates": [d],
                    "bands": {f"B{i}": band_stats(refl(b[0]), valid, CALC_D) for i, b in enumerate(bands)}})
    return {"grid": grid, "calc": CALC_D, "timeRange": {"from": day("2023-06-01"), "to": day("2023-06-07")}, "of": "P1D", "entries": out}


def rkh():
    grid = dict(epsg=32629, bbox=[199980.0, 2690220.0, 309780.0, 2800020.0], width=1098, height=1098)
    ndvi, mask = ndvi_counted(["S2A_29RKH_20200219_0_L2A"], grid=grid, folder=DATA)
    return {"grid": grid, "calc": CALC_E, "timeRange": {"from": day("2020-02-19"), "to": day("2020-02-20")}, "of": "P1D",
            "entries": [{"interval": {"from": day("2020-02-19"), "to": day("2020-02-20")}, "bands": {"B0": band_stats(ndvi, mask, CALC_E)}}]}


def polygon_case():
    x = [p[0] for p in POLYGON]
    y = [p[1] for p in POLYGON]
    grid = dict(epsg=32631, bbox=[min(x), min(y), max(x), max(y)], width=int((max(x) - min(x)) / 10), height=int((max(y) - min(y)) / 10))
    inside = rasterize(POLYGON, grid)
    # Distance of pixel centres to the polygon's edges: none may lie on an edge (either side would be right).
    cx = grid["bbox"][0] + 5 + 10 * np.arange(grid["width"])
    cy = grid["bbox"][3] - 5 - 10 * np.arange(grid["height"])
    px, py = np.meshgrid(cx, cy)
    dmin = np.inf
    for (ax, ay), (bx, by) in zip(POLYGON[:-1], POLYGON[1:]):
        t = np.clip(((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2), 0, 1)
        dmin = min(dmin, float(np.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay))).min()))
    assert dmin > 0.01, dmin
    bands, data = mosaic([s2_scene(os.path.join(WF, "2018-04-19"), grid)])
    mask = data & ~np.isin(bands["SCL"], CLOUD) & inside
    ndvi = ndvi_of(bands["B04"], bands["B08"])
    return {"grid": grid, "polygon": POLYGON, "calc": CALC_D, "geometryPixelCount": int(inside.sum()),
            "timeRange": {"from": day("2018-04-19"), "to": day("2018-04-20")}, "of": "P1D",
            "entries": [{"interval": {"from": day("2018-04-19"), "to": day("2018-04-20")}, "bands": {"B0": band_stats(ndvi, mask, CALC_D)}}]}


def unit_fixtures():
    """NDVI + counted mask of two dates as raw arrays, with the expected reductions for every calculation."""
    out = {}
    for d in ["2018-04-16", "2018-04-19"]:
        ndvi, mask = ndvi_counted([d])
        np.ascontiguousarray(ndvi, dtype="<f4").tofile(os.path.join(OUT, f"wf_{d}_ndvi.bin"))
        np.ascontiguousarray(mask, dtype=np.uint8).tofile(os.path.join(OUT, f"wf_{d}_mask.bin"))
        out[d] = {name: band_stats(ndvi, mask, c) for name, c in
                  {"A": CALC_A, "B": CALC_B, "C": CALC_C, "D": CALC_D, "E": CALC_E}.items()}
    return out


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    april = [(f"2018-04-{d:02d}", day(f"2018-04-{d:02d}", 1)[:10]) for d in range(1, 31)]
    p10d = [("2018-04-01", "2018-04-11"), ("2018-04-11", "2018-04-21")]
    refs = {
        "calcs": {"A": CALC_A, "B": CALC_B, "C": CALC_C, "D": CALC_D, "E": CALC_E},
        "wf_grid": WF_GRID,
        "wf_p1d_april": {"timeRange": {"from": day("2018-04-01"), "to": day("2018-05-01")}, "of": "P1D", "calc": CALC_A,
                         "entries": wf_intervals(april, CALC_A)},
        "wf_p1m_series": {"timeRange": {"from": day("2017-08-01"), "to": day("2018-12-01")}, "of": "P1M", "calc": CALC_B,
                          "entries": wf_intervals(months("2017-08", "2018-11"), CALC_B)},
        "wf_p10d": {"timeRange": {"from": day("2018-04-01"), "to": day("2018-04-24")}, "of": "P10D", "calc": CALC_C,
                    "SKIP": wf_intervals(p10d, CALC_C),
                    "SHORTEN": wf_intervals(p10d + [("2018-04-21", "2018-04-24")], CALC_C),
                    "EXTEND": wf_intervals(p10d + [("2018-04-21", "2018-05-01")], CALC_C)},
        # ndvi_scl.js with `const CLOUD = [];` (no cloud masking): single-date NDVI statistics, tell the dates apart
        "wf_unmasked": {d: {"B0": band_stats(*ndvi_counted([d], cloud=[]), CALC_A)} for d in ["2018-04-14", "2018-04-16", "2018-04-19", "2018-04-21"]},
        "wf_polygon": polygon_case(),
        "belgium_p1d": belgium(),
        "rkh_tile": rkh(),
        "unit": unit_fixtures(),
    }
    with open(os.path.join(OUT, "references.json"), "w") as f:
        json.dump(refs, f, indent=1)
    print("wrote", os.path.join(OUT, "references.json"))
