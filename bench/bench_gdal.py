#!/usr/bin/env python3
"""GDAL baselines for `npm run bench`: the benchmark requests over 29RKH in EPSG:4326, in process.

Usage: bench_gdal.py BBOX N [MODE] [SIZE], BBOX "w,s,e,n" in degrees, N warm runs after one cold run.
MODE "png" (default, SIZE 512): gdal.Warp of B04 and B08 to a MEM dataset (EPSG:4326, nearest), numpy NDVI and the
  two-colour visualisation with alpha of NDVI_SCRIPT (scripts/lib/bench.mjs), PNG through GDAL's PNG driver in /vsimem.
MODE "tiff" (SIZE 1024): the same warp, numpy NDVI (B08 - B04) / (B08 + B04) as FLOAT32 (reflectance = DN / 10000,
  NaN where both are 0, as FLOAT_SCRIPT gives), written as a GeoTIFF in /vsimem with COMPRESS=DEFLATE, ZLEVEL=1
  and strips (what a GDAL user asks for; 1024x1024: 3,178,911 bytes, about 46 ms of the run; our encoder stores
  FLOAT32 above 1 MiB of samples, src/raster/encode/tiff.ts: 4,194,738 bytes).
Prints JSON {"first_ms", "p50_ms", "p95_ms", "n", "bytes"}. Run with Debian's python3 (python3-gdal).
Environment (the archive section, bench/bench-archive.mjs): BENCH_RKH, the folder of B04.tif and B08.tif (default
data/; e.g. /vsicurl/http://<twin>/objects/sentinel-cogs/<key prefix>); BENCH_TWIN_URL, an archive twin whose
request counts are added to the JSON: "first_requests" (the cold run) and "warm_requests" (all N warm runs);
BENCH_PREWARM "FOLDER;w,s,e,n", other data the process runs the same request on BENCH_PREWARM_N times (default 3)
before its cold run (its lazily initialised libraries, e.g. PROJ's database, loaded; no cache of BENCH_RKH touched).
"""
import json, os, sys, time, urllib.request
import numpy as np
from osgeo import gdal

gdal.UseExceptions()
RKH = os.environ.get("BENCH_RKH") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A")
TWIN = os.environ.get("BENCH_TWIN_URL")
BBOX = [float(v) for v in sys.argv[1].split(",")] if len(sys.argv) > 1 else [-12.0, 24.3, -10.8, 25.3]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 30
MODE = sys.argv[3] if len(sys.argv) > 3 else "png"
SIZE = int(sys.argv[4]) if len(sys.argv) > 4 else (512 if MODE == "png" else 1024)


def warped(band):
    """B04 or B08 warped onto the SIZE x SIZE EPSG:4326 grid over BBOX (nearest), as float32 reflectance."""
    ds = gdal.Warp("", RKH + "/" + band + ".tif", format="MEM", dstSRS="EPSG:4326", outputBounds=BBOX,
                   width=SIZE, height=SIZE, resampleAlg="near", srcNodata=0, dstNodata=0)
    return ds, ds.GetRasterBand(1).ReadAsArray().astype(np.float32) / np.float32(10000.0)


def ndvi(red, nir):
    with np.errstate(invalid="ignore", divide="ignore"):
        return (nir - red) / (nir + red)


def written(path):
    size = gdal.VSIStatL(path).size
    gdal.Unlink(path)
    return size


def png_once():
    _, red = warped("B04")
    _, nir = warped("B08")
    v = ndvi(red, nir)
    mask = (red > 0) & (nir > 0)
    rgba = np.zeros((4, SIZE, SIZE), np.uint8)
    low = v < 0.1
    rgba[0] = np.where(low, 255, 51); rgba[1] = np.where(low, 204, 153); rgba[2] = 51; rgba[3] = mask * 255
    mem = gdal.GetDriverByName("MEM").Create("", SIZE, SIZE, 4, gdal.GDT_Byte)
    for i in range(4):
        mem.GetRasterBand(i + 1).WriteArray(rgba[i])
    gdal.GetDriverByName("PNG").CreateCopy("/vsimem/ndvi.png", mem)
    return written("/vsimem/ndvi.png")


def tiff_once():
    ds, red = warped("B04")
    _, nir = warped("B08")
    v = ndvi(red, nir).astype(np.float32)
    out = gdal.GetDriverByName("GTiff").Create("/vsimem/ndvi.tif", SIZE, SIZE, 1, gdal.GDT_Float32,
                                               options=["COMPRESS=DEFLATE", "ZLEVEL=1", "TILED=NO"])
    out.SetGeoTransform(ds.GetGeoTransform())
    out.SetProjection(ds.GetProjection())
    out.GetRasterBand(1).WriteArray(v)
    out = None  # flush and close
    return written("/vsimem/ndvi.tif")


def twin_objects(reset=False):
    """Object requests the archive twin has answered since its last reset (then resets it when asked)."""
    count = json.load(urllib.request.urlopen(TWIN + "/_twin/stats"))["object"]
    if reset:
        urllib.request.urlopen(urllib.request.Request(TWIN + "/_twin/reset", data=b"{}", method="POST")).read()
    return count


once = png_once if MODE == "png" else tiff_once


def prewarm():
    """The same request BENCH_PREWARM_N times on the other data of BENCH_PREWARM, when set."""
    global RKH, BBOX
    spec = os.environ.get("BENCH_PREWARM")
    if not spec:
        return
    saved = (RKH, BBOX)
    folder, bbox = spec.split(";")
    RKH, BBOX = folder, [float(v) for v in bbox.split(",")]
    for _ in range(int(os.environ.get("BENCH_PREWARM_N", "3"))):
        once()
    RKH, BBOX = saved


prewarm()
if TWIN:
    twin_objects(reset=True)
t0 = time.perf_counter(); size = once(); first = (time.perf_counter() - t0) * 1000
counts = {"first_requests": twin_objects(reset=True)} if TWIN else {}
times = []
for _ in range(N):
    t0 = time.perf_counter(); once(); times.append((time.perf_counter() - t0) * 1000)
times.sort()
if TWIN:
    counts["warm_requests"] = twin_objects()
print(json.dumps({"first_ms": first, "p50_ms": times[(len(times) - 1) // 2], "p95_ms": times[max(0, -(-len(times) * 95 // 100) - 1)], "n": N, "bytes": size, **counts}))
