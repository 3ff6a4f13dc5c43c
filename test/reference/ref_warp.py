#!/usr/bin/env python3
"""GDAL references for the raster engine's reader and warper (test/raster/{crs,warp}).

Run with Debian's python3 (GDAL 3.6.2 + numpy): `/usr/bin/python3 test/reference/ref_warp.py`.
Writes test/fixtures/warp/<case>.bin (raw little-endian float32, row-major, row 0 north, -9999 = no data) and
test/fixtures/warp/refs.json (grid, band, resampling, the overview GDAL chose and the GDAL kernel it ran).

Every case is gdal.Warp on the real sample file with errorThreshold=0 (exact transformer, no approximation),
outputType=Float32 (no rounding of bilinear/cubic results to the file's integer type), dstNodata=-9999 and the
default overview choice (-ovr AUTO). The source nodata is the file's own (0 for 29RKH, -32768 for Belgium).
"""
import json, os
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data", "sentinel-2-l2a")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "warp")
RKH = os.path.join(DATA, "S2A_29RKH_20200219_0_L2A")
BELGIUM = os.path.join(DATA, "belgium", "openEO_2023-06-04Z.tif")
NODATA = -9999.0
refs = {}
log = []


def on_message(cls, no, msg):
    log.append(msg)


def gdal_warp(path, epsg, bbox, w, h, resampling, band=1):
    """Warps one band; returns (float32 array, overview level used by GDAL (-1 = full res), kernel name)."""
    src = path
    if band != 1:  # GDAL 3.6 gdal.Warp has no band selection: go through a one-band VRT
        src = gdal.Translate(f"/vsimem/band{band}.vrt", path, format="VRT", bandList=[band])
    log.clear()
    gdal.SetConfigOption("CPL_DEBUG", "ON")
    gdal.PushErrorHandler(on_message)
    try:
        ds = gdal.Warp("", src, format="MEM", dstSRS=f"EPSG:{epsg}", outputBounds=bbox, width=w, height=h,
                       resampleAlg=resampling, errorThreshold=0, outputType=gdal.GDT_Float32, dstNodata=NODATA)
    finally:
        gdal.PopErrorHandler()
        gdal.SetConfigOption("CPL_DEBUG", None)
    ovr = [int(m.split("overview level ")[1].split()[0]) for m in log if "Selecting overview level" in m]
    kernels = sorted({m.split("::")[1].split("(")[0] for m in log if "GDALWarpKernel()::" in m})
    return ds.GetRasterBand(1).ReadAsArray().astype("<f4"), (ovr[0] if ovr else -1), kernels


def case(name, path, epsg, bbox, w, h, resampling, band=1, note="", subsample=1):
    """Writes one reference; `subsample` > 1 keeps every n-th row and column (pixel centres (n*k + 0)), for big grids."""
    a, ovr, kernels = gdal_warp(path, epsg, bbox, w, h, resampling, band)
    valid = a != NODATA
    stats = {"valid": int(valid.sum()), "sum": float(a[valid].astype(np.float64).sum())}
    kept = np.ascontiguousarray(a[::subsample, ::subsample])
    kept.tofile(os.path.join(OUT, name + ".bin"))
    refs[name] = {
        "file": os.path.relpath(path, os.path.join(HERE, "..", "..", "data")), "band": band - 1, "epsg": epsg, "bbox": bbox,
        "width": w, "height": h, "resampling": resampling, "gdalOverview": ovr, "gdalKernels": kernels,
        "subsample": subsample, "stats": stats, "note": note,
    }
    print(f"{name}: ovr {ovr} {kernels} valid {stats['valid']}/{w * h}")


def native_pixels(name, path, x0, y0, w, h):
    """The file's own pixels (full resolution window), for the exact-copy check."""
    ds = gdal.Open(path)
    a = ds.GetRasterBand(1).ReadAsArray(x0, y0, w, h).astype("<f4")
    a.tofile(os.path.join(OUT, name + ".bin"))
    gt = ds.GetGeoTransform()
    bbox = [gt[0] + x0 * gt[1], gt[3] + (y0 + h) * gt[5], gt[0] + (x0 + w) * gt[1], gt[3] + y0 * gt[5]]
    refs[name] = {"file": os.path.relpath(path, os.path.join(HERE, "..", "..", "data")), "band": 0, "epsg": 32629,
                  "bbox": bbox, "width": w, "height": h, "note": "raw file pixels (ReadAsArray), no warp"}
    return bbox


def layouts(b04):
    """Small GeoTIFFs in other layouts, to test the block reader beyond GDAL's COG defaults."""
    gdal.Translate(os.path.join(OUT, "b04_lzw_strips.tif"), b04, srcWin=[300, 400, 64, 64],
                   creationOptions=["COMPRESS=LZW", "PREDICTOR=2", "TILED=NO", "BLOCKYSIZE=10"])
    gdal.Translate(os.path.join(OUT, "belgium_pixel_interleaved.tif"), BELGIUM,
                   creationOptions=["COMPRESS=DEFLATE", "INTERLEAVE=PIXEL", "TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32"])
    refs["layouts"] = {"b04_lzw_strips.tif": "B04 window x 300..363, y 400..463: LZW, predictor 2, strips of 10 rows",
                       "belgium_pixel_interleaved.tif": "the Belgium file, DEFLATE, pixel-interleaved, 32 x 32 tiles"}


def crs_points():
    """Points transformed with OGR/PROJ (traditional GIS order: lon, lat) to check proj4 definitions."""
    def tr(src, dst, pts):
        s, d = osr.SpatialReference(), osr.SpatialReference()
        s.ImportFromEPSG(src)
        d.ImportFromEPSG(dst)
        for r in (s, d):
            r.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        ct = osr.CoordinateTransformation(s, d)
        return [list(ct.TransformPoint(x, y)[:2]) for x, y in pts]

    lonlat = [[-11.4249, 24.8013], [-9.0, 0.0], [-14.5, 60.2], [5.07, 51.21], [-179.5, -45.0], [0.0, 85.0]]
    utm = [[199980.0, 2800020.0], [309780.0, 2690220.0], [500000.0, 0.0]]
    refs["crs_points"] = {
        "4326>32629": {"in": lonlat[:4], "out": tr(4326, 32629, lonlat[:4])},
        "4326>32631": {"in": lonlat[3:4], "out": tr(4326, 32631, lonlat[3:4])},
        "4326>32759": {"in": [[172.5, -43.5]], "out": tr(4326, 32759, [[172.5, -43.5]])},
        "4326>3857": {"in": lonlat, "out": tr(4326, 3857, lonlat)},
        "32629>4326": {"in": utm, "out": tr(32629, 4326, utm)},
        "32629>3857": {"in": utm, "out": tr(32629, 3857, utm)},
    }


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    b04, b08 = os.path.join(RKH, "B04.tif"), os.path.join(RKH, "B08.tif")
    # 29RKH in EPSG:4326, inside the tile, output ~80 m (upsampling full resolution: GDAL's 4-sample kernels).
    w4326 = [-11.62, 24.62, -11.57, 24.67]
    for r in ["near", "bilinear", "cubic"]:
        case(f"rkh4326_{r}", b04, 4326, w4326, 64, 64, r)
    case("rkh4326_b08_near", b08, 4326, w4326, 64, 64, "near")
    # Downsampling at ratio ~1.5 (no overview that fine): GDAL stretches the bilinear/cubic kernels.
    wdown = [-11.50, 24.50, -11.40, 24.60]
    for r in ["bilinear", "cubic"]:
        case(f"rkh4326down_{r}", b04, 4326, wdown, 64, 64, r)
    # Web Mercator.
    w3857 = [-1300000.0, 2840000.0, -1290000.0, 2850000.0]
    for r in ["near", "bilinear"]:
        case(f"rkh3857_{r}", b04, 3857, w3857, 64, 64, r)
    # UTM 29N at native 100 m, aligned with the file grid (origin 199980, 2800020): must be the file's pixels.
    native = native_pixels("rkhutm_native_pixels", b04, 300, 400, 64, 64)
    case("rkhutm_native_near", b04, 32629, native, 64, 64, "near")
    # Zoomed out: ~1400 m and ~220 m output pixels, GDAL picks overview 1 (275 px) and 0 (549 px).
    case("rkh4326ovr_near", b04, 4326, [-11.90, 24.40, -11.00, 25.20], 64, 64, "near")
    case("rkh4326ovr_bilinear", b04, 4326, [-11.90, 24.40, -11.00, 25.20], 64, 64, "bilinear")
    case("rkh4326ovr0_near", b04, 4326, [-11.60, 24.60, -11.46, 24.74], 64, 64, "near")
    # Crossing the scene's west edge (lon -11.98): outside pixels are no data.
    wedge = [-12.00, 24.95, -11.96, 24.99]
    for r in ["near", "bilinear", "cubic"]:
        case(f"rkhedge_{r}", b04, 4326, wedge, 50, 50, r)
    # Belgium: Int16, 3 bands, nodata -32768; sample index 1 (B03); the grid extends past the file on all sides.
    wbel = [5.0685, 51.2138, 5.0820, 51.2208]
    for r in ["near", "bilinear"]:
        case(f"belgium_{r}", BELGIUM, 4326, wbel, 60, 40, r, band=2)
    # The whole tile at 512 x 512 in EPSG:4326 (the timing case); every 8th pixel kept.
    for r in ["near", "bilinear"]:
        case(f"rkhfull_{r}", b04, 4326, [-11.98, 24.29, -10.87, 25.31], 512, 512, r, subsample=8)
    layouts(b04)
    crs_points()
    refs["_gdal"] = gdal.__version__
    with open(os.path.join(OUT, "refs.json"), "w") as f:
        json.dump(refs, f, indent=1)
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(refs)} references to {OUT} ({total} bytes)")
