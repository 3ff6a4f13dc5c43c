#!/usr/bin/env python3
"""numpy + GDAL reference of `npm run bench` section `timeseries` (bench/bench-timeseries.mjs), in process.

Usage: bench_timeseries.py N, N warm runs after one cold run. One run is what a numpy + GDAL user writes for "P1D
NDVI statistics over a field" on the West Flanders time series (data/sentinel-2-l2a/westflanders, the 19 dates'
COGs, the same files the server reads): the field polygon (ref_statistics.py POLYGON, EPSG:32631) rasterized once
onto its 10 m grid (50 x 50 px), then for every acquisition date (each one P1D interval with data) B04, B08 and
SCL read onto that grid with gdal.Warp (nearest) and, with numpy, NDVI masked by data, SCL cloud classes and the
field, reduced to min / max / mean / stDev, percentiles and a histogram (ref_statistics.py band_stats, the
Statistical API's rules). The steps are ref_statistics.py's (the references the tests compare with).
Prints JSON {"first_ms", "p50_ms", "p95_ms", "n", "dates", "means": {date: mean}}. Debian's python3 (python3-gdal).
"""
import json, os, sys, time
from ref_statistics import CALC_A, POLYGON, WF, WF_DATES, band_stats, ndvi_counted, rasterize

N = int(sys.argv[1]) if len(sys.argv) > 1 else 30
XS, YS = [p[0] for p in POLYGON], [p[1] for p in POLYGON]
GRID = dict(epsg=32631, bbox=[min(XS), min(YS), max(XS), max(YS)], width=int((max(XS) - min(XS)) / 10), height=int((max(YS) - min(YS)) / 10))


def once():
    """Statistics of every date over the field: {date: band_stats}."""
    field = rasterize(POLYGON, GRID)
    out = {}
    for d in WF_DATES:
        ndvi, mask = ndvi_counted([d], field, grid=GRID, folder=WF)
        out[d] = band_stats(ndvi, mask, CALC_A)
    return out


t0 = time.perf_counter(); result = once(); first = (time.perf_counter() - t0) * 1000
times = []
for _ in range(N):
    t0 = time.perf_counter(); once(); times.append((time.perf_counter() - t0) * 1000)
times.sort()
means = {d: r["stats"]["mean"] for d, r in result.items()}
print(json.dumps({"first_ms": first, "p50_ms": times[(len(times) - 1) // 2], "p95_ms": times[max(0, -(-len(times) * 95 // 100) - 1)],
                  "n": N, "dates": len(result), "grid": GRID, "means": means}))
