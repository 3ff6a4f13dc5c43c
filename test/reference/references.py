#!/usr/bin/env python3
"""Reference outputs for the Processing API tests, computed with GDAL + numpy from the same files in data/.

Run with Debian's python3 (python3-gdal): `npm run references` (= /usr/bin/python3 test/reference/references.py).
Writes test/fixtures/process/<name>.bin (raw little-endian float32, row-major, row 0 north) and
test/fixtures/process/references.json (grids and notes). gdal.Warp uses errorThreshold=0 (exact transformer).
Values are reflectance = DN / 10000 (29RKH is processing baseline 02.14: no offset), as Sentinel Hub returns
for units REFLECTANCE.
"""
import json, os
import numpy as np
from osgeo import gdal
from gdal_common import rasterize, rasterize_geometry
from ref_crs import crs_points, crs_windows

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "process")
RKH = os.path.join(DATA, "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A")
WF = os.path.join(DATA, "sentinel-2-l2a", "westflanders")
meta = {}


def warp(path, epsg, bbox, width, height, resampling="near"):
    """Warps one band file onto the grid; returns (float32 DN array, valid mask)."""
    ds = gdal.Warp("", path, format="MEM", dstSRS=f"EPSG:{epsg}", outputBounds=bbox, width=width, height=height,
                   resampleAlg=resampling, errorThreshold=0, srcNodata=0, dstNodata=0, outputType=gdal.GDT_Float32)
    a = ds.GetRasterBand(1).ReadAsArray().astype(np.float32)
    return a, a != 0


def save(name, arr, **info):
    arr = np.ascontiguousarray(arr, dtype="<f4")
    arr.tofile(os.path.join(OUT, name + ".bin"))
    meta[name] = {"shape": list(arr.shape), **info}


def rkh_window(name, epsg, bbox, w, h, resampling="near"):
    b04, v4 = warp(os.path.join(RKH, "B04.tif"), epsg, bbox, w, h, resampling)
    b03, v3 = warp(os.path.join(RKH, "B03.tif"), epsg, bbox, w, h, resampling)
    b02, v2 = warp(os.path.join(RKH, "B02.tif"), epsg, bbox, w, h, resampling)
    b08, v8 = warp(os.path.join(RKH, "B08.tif"), epsg, bbox, w, h, resampling)
    grid = {"epsg": epsg, "bbox": bbox, "width": w, "height": h, "resampling": resampling}
    save(f"{name}_rgb", np.stack([b04, b03, b02], axis=-1) / 10000.0, grid=grid, what="B04,B03,B02 reflectance, band-interleaved")
    with np.errstate(invalid="ignore", divide="ignore"):
        ndvi = (b08 - b04) / (b08 + b04)
    ndvi[~(v4 & v8)] = 0
    save(f"{name}_ndvi", ndvi, grid=grid, what="NDVI (B08-B04)/(B08+B04) from DN (offset 0)")


def westflanders(date):
    a, _ = warp(os.path.join(WF, date, "B04.tif"), 32631, [501360, 5629040, 502000, 5629680], 64, 64)
    save(f"wf_{date}_b04", a / 10000.0, grid={"epsg": 32631, "bbox": [501360, 5629040, 502000, 5629680], "width": 64, "height": 64},
         what=f"B04 reflectance of the {date} acquisition at native 10 m")


def clip_mask():
    """gdal.Rasterize of a triangle onto the 4326 window grid (pixel centres, no ALL_TOUCHED)."""
    ring = [[-11.88, 24.52], [-11.62, 24.55], [-11.75, 24.78], [-11.88, 24.52]]
    bbox, w, h = [-11.88, 24.52, -11.62, 24.78], 128, 128  # the polygon's bounds: the image Sentinel Hub renders
    mask = rasterize(ring, {"epsg": 4326, "bbox": bbox, "width": w, "height": h})
    save("clip_mask", mask.astype(np.float32),
         grid={"epsg": 4326, "bbox": bbox, "width": w, "height": h}, polygon=ring, what="gdal.RasterizeLayer mask")
    b04, _ = warp(os.path.join(RKH, "B04.tif"), 4326, bbox, w, h)
    save("clip_b04", b04 / 10000.0, grid={"epsg": 4326, "bbox": bbox, "width": w, "height": h}, what="B04 reflectance on the clip grid, unclipped")


# A MultiPolygon in UTM 29N (the first polygon has a hole) whose bounds align with 29RKH's 100 m grid.
MULTI = {"type": "MultiPolygon", "coordinates": [
    [[[250080, 2700020], [252287, 2700020], [252673, 2702013], [250493, 2703220], [250080, 2702807], [250080, 2700020]],
     [[250687, 2700611], [251673, 2700733], [251491, 2701807], [250893, 2701613], [250687, 2700611]]],
    [[[252887, 2701011], [254080, 2701437], [253291, 2703220], [252887, 2701011]]]]}


def centre_distance(geometry, grid):
    """Smallest distance of a pixel centre of `grid` to an edge of `geometry` (none may lie on an edge)."""
    x0, y0, x1, y1 = grid["bbox"]
    rx, ry = (x1 - x0) / grid["width"], (y1 - y0) / grid["height"]
    px, py = np.meshgrid(x0 + rx * (0.5 + np.arange(grid["width"])), y1 - ry * (0.5 + np.arange(grid["height"])))
    dmin = np.inf
    for poly in geometry["coordinates"]:
        for ring in poly:
            for (ax, ay), (bx, by) in zip(ring[:-1], ring[1:]):
                t = np.clip(((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2), 0, 1)
                dmin = min(dmin, float(np.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay))).min()))
    return dmin


def multipolygon():
    """B04 reflectance clipped to MULTI (0 outside and in the hole) at native 100 m, and the rasterized mask."""
    grid = {"epsg": 32629, "bbox": [250080.0, 2700020.0, 254080.0, 2703220.0], "width": 40, "height": 32}
    assert centre_distance(MULTI, grid) > 0.5, centre_distance(MULTI, grid)
    inside = rasterize_geometry(MULTI, grid)
    b04, valid = warp(os.path.join(RKH, "B04.tif"), 32629, grid["bbox"], grid["width"], grid["height"])
    save("multi_b04", np.where(inside & valid, b04 / 10000.0, 0), grid=grid, geometry=MULTI, what="B04 reflectance inside the MultiPolygon, else 0")
    save("multi_mask", inside.astype(np.float32), grid=grid, what="gdal.RasterizeLayer of the MultiPolygon (hole excluded)")


def resampling():
    """B04 reflectance up- (37.5 m) and downsampled (250 m, GDAL picks its overview) in UTM 29N, bilinear and cubic."""
    for name, bbox in [("up", [250080.0, 2700020.0, 252480.0, 2702420.0]), ("down", [250080.0, 2700020.0, 266080.0, 2716020.0])]:
        for alg in ["bilinear", "cubic"]:
            b04, _ = warp(os.path.join(RKH, "B04.tif"), 32629, bbox, 64, 64, alg)
            grid = {"epsg": 32629, "bbox": bbox, "width": 64, "height": 64, "resampling": alg}
            save(f"rkh{name}_{alg}", b04 / 10000.0, grid=grid, what=f"B04 reflectance, gdal.Warp {alg}")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    rkh_window("rkh4326", 4326, [-11.9, 24.5, -11.6, 24.8], 128, 128)
    rkh_window("rkh3857", 3857, [-1320000.0, 2820000.0, -1290000.0, 2850000.0], 100, 100)
    # UTM 29N at native 100 m, aligned with the file grid (origin 199980, 2800020): must be exact.
    rkh_window("rkhutm", 32629, [250080.0, 2700020.0, 262880.0, 2712820.0], 128, 128)
    for d in ["2018-04-14", "2018-04-19", "2018-04-21"]:
        westflanders(d)
    clip_mask()
    crs_windows(save)
    crs_points(os.path.join(HERE, "..", "..", "test", "fixtures", "crs", "points.json"))
    multipolygon()
    resampling()
    with open(os.path.join(OUT, "references.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print("wrote", len(meta), "references to", OUT)
