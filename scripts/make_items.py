#!/usr/bin/env python3
"""Write data/items/<collection>/<id>.json: the STAC 1.0.0 items EO Edge seeds into D1.

Each item describes the real scene files under data/ (copied from ../shared/data; see data/SOURCES.md).
Asset hrefs are keys relative to data/, which is also the key layout in the local R2 bucket.
Band assets are keyed by the Sentinel Hub band name (B04, SCL, VV...). A file holding several bands
lists them in order in its asset's eo:bands.

Run with Debian's python3 (needs python3-gdal): /usr/bin/python3 scripts/make_items.py
Items for the L1C tile and the S1 scene are DERIVED here from tileInfo.json / productInfo.json
(marked with "eoedge:derived": true).
"""
import datetime, glob, json, os, re
from osgeo import gdal, osr

ROOT = os.path.join(os.path.dirname(__file__), "..", "data")
SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "raster")  # originals (../shared/data)
S2_BANDS = {  # name: (common_name, center_wavelength um, fwhm um)
    "B01": ("coastal", 0.443, 0.027), "B02": ("blue", 0.49, 0.098), "B03": ("green", 0.56, 0.045),
    "B04": ("red", 0.665, 0.038), "B05": ("rededge", 0.704, 0.019), "B06": ("rededge", 0.74, 0.018),
    "B07": ("rededge", 0.783, 0.028), "B08": ("nir", 0.842, 0.145), "B8A": ("nir08", 0.865, 0.033),
    "B09": ("nir09", 0.945, 0.026), "B10": ("cirrus", 1.3735, 0.075), "B11": ("swir16", 1.61, 0.143),
    "B12": ("swir22", 2.19, 0.242),
}
EXT = ["https://stac-extensions.github.io/eo/v1.0.0/schema.json",
       "https://stac-extensions.github.io/projection/v1.0.0/schema.json"]


def band_meta(name):
    if name not in S2_BANDS:
        return {"name": name}
    c, w, f = S2_BANDS[name]
    return {"name": name, "common_name": c, "center_wavelength": w, "full_width_half_max": f}


def raster_asset(rel, names, title=None):
    ds = gdal.Open(os.path.join(ROOT, rel))
    gt = ds.GetGeoTransform()
    a = {"href": rel, "type": "image/tiff; application=geotiff; profile=cloud-optimized",
         "roles": ["data"], "eo:bands": [band_meta(n) for n in names],
         "gsd": abs(gt[1]), "proj:shape": [ds.RasterYSize, ds.RasterXSize],
         "proj:transform": [gt[1], gt[2], gt[0], gt[4], gt[5], gt[3]]}
    if title:
        a["title"] = title
    return a


def footprint(rel):
    """WGS84 polygon and bbox of a raster's extent (corners transformed with OSR)."""
    ds = gdal.Open(os.path.join(ROOT, rel))
    gt = ds.GetGeoTransform()
    src = osr.SpatialReference(wkt=ds.GetProjection())
    dst = osr.SpatialReference(); dst.ImportFromEPSG(4326)
    dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    ct = osr.CoordinateTransformation(src, dst)
    w, h = ds.RasterXSize, ds.RasterYSize
    pts = [(gt[0], gt[3]), (gt[0] + w * gt[1], gt[3]), (gt[0] + w * gt[1], gt[3] + h * gt[5]), (gt[0], gt[3] + h * gt[5])]
    ll = [list(ct.TransformPoint(x, y)[:2]) for x, y in pts]
    ring = [[round(x, 7), round(y, 7)] for x, y in ll] + [[round(ll[0][0], 7), round(ll[0][1], 7)]]
    xs, ys = [p[0] for p in ring], [p[1] for p in ring]
    proj_bbox = [gt[0], gt[3] + h * gt[5], gt[0] + w * gt[1], gt[3]]
    return {"type": "Polygon", "coordinates": [ring]}, [min(xs), min(ys), max(xs), max(ys)], proj_bbox, int(src.GetAuthorityCode(None))


def item(collection, iid, rel_any, props, assets):
    geom, bbox, pbbox, epsg = footprint(rel_any)
    props = dict(props)
    props.setdefault("proj:epsg", epsg)
    props["proj:bbox"] = pbbox
    return {"type": "Feature", "stac_version": "1.0.0", "stac_extensions": EXT, "id": iid,
            "collection": collection, "geometry": geom, "bbox": bbox, "properties": props,
            "links": [], "assets": assets}


def write(it):
    d = os.path.join(ROOT, "items", it["collection"])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, it["id"] + ".json"), "w") as f:
        json.dump(it, f, indent=1)


def s2_29rkh():
    src = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A"
    orig = json.load(open(os.path.join(SHARED, "s2-l2a", "S2A_29RKH_20200219_0_L2A", "S2A_29RKH_20200219_0_L2A.stac-item.json")))
    p = orig["properties"]
    keep = ["platform", "constellation", "instruments", "eo:cloud_cover", "view:sun_azimuth", "view:sun_elevation",
            "s2:processing_baseline", "s2:product_uri", "s2:granule_id", "s2:datatake_id", "mgrs:utm_zone",
            "mgrs:latitude_band", "mgrs:grid_square", "datetime"]
    props = {k: p[k] for k in keep if k in p}
    props["gsd"] = 10
    props["eoedge:note"] = "rio-tiler-pds fixture decimated 1/10 (10 m bands at 100 m); see data/SOURCES.md"
    assets = {}
    for b in ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12", "SCL", "AOT", "WVP"]:
        assets[b] = raster_asset(f"{src}/{b}.tif", [b])
    write(item("sentinel-2-l2a", orig["id"], f"{src}/B04.tif", props, assets))


# Sentinel-2B flies Sentinel-2A's ground tracks 5 days after it, each unit every 10 days (143 orbits). Sentinel-2A's
# datatake GS2A_20200219T112111_024344 (relative orbit 37) puts its relative orbit 51 on 2020-02-20; orbits 94 and 8
# (which with 51 cover 31UDS and 31UFS) come 3 days after and before it. So the days after 2020-02-20 modulo 10 are
# 0, 3, 7 for 2A and 5, 8, 2 for 2B (every sample date falls on one of them).
S2_REFERENCE = datetime.date(2020, 2, 20)


def s2_platform(when):
    """sentinel-2a / sentinel-2b of an acquisition over 31UDS or 31UFS at ISO date-time `when`."""
    days = (datetime.date.fromisoformat(when[:10]) - S2_REFERENCE).days % 10
    return {0: "sentinel-2a", 3: "sentinel-2a", 7: "sentinel-2a", 5: "sentinel-2b", 8: "sentinel-2b", 2: "sentinel-2b"}[days]


def westflanders():
    for d in sorted(glob.glob(os.path.join(ROOT, "sentinel-2-l2a", "westflanders", "20*"))):
        rel = os.path.relpath(d, ROOT)
        (fn,) = glob.glob(os.path.join(SHARED, "s2-timeseries-westflanders", os.path.basename(d), "*.stac-item.json"))
        orig = json.load(open(fn))
        props = dict(orig["properties"])
        props.update({"platform": s2_platform(props["datetime"]), "gsd": 10, "s2:processing_baseline": "02.06"})
        props["eoedge:note"] = "WorldCereal 640 m patch; platform unit from the orbits (s2_platform), baseline not in the source (< 04.00 by date)"
        assets = {b: raster_asset(f"{rel}/{b}.tif", [b]) for b in ["B02", "B03", "B04", "B08", "SCL"]}
        write(item("sentinel-2-l2a", orig["id"], f"{rel}/B04.tif", props, assets))


def belgium():
    for fn in sorted(glob.glob(os.path.join(SHARED, "s2-l2a-timeseries", "belgium_mol_31U", "*.stac-item.json"))):
        orig = json.load(open(fn))
        tif = "sentinel-2-l2a/belgium/" + os.path.basename(fn).replace(".stac-item.json", ".tif")
        iid = "openEO_" + orig["properties"]["datetime"][:10] + "_mol_31U"
        props = {"datetime": orig["properties"]["datetime"], "constellation": "sentinel-2",
                 "platform": s2_platform(orig["properties"]["datetime"]),
                 "instruments": ["msi"], "gsd": 10, "s2:processing_baseline": "05.09", "earthsearch:boa_offset_applied": True,
                 "eoedge:note": "openEO export, bands B04,B03,B02 Int16 in one file, nodata -32768; no cloud cover in source"}
        assets = {"data": raster_asset(tif, ["B04", "B03", "B02"], "B04, B03, B02")}
        write(item("sentinel-2-l2a", iid, tif, props, assets))


def l1c():
    d = "sentinel-2-l1c/S2_19UDP_20170729_L1C"
    info = json.load(open(os.path.join(ROOT, d, "tileInfo.json")))
    bands = ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B10", "B11", "B12"]
    props = {"datetime": info["timestamp"].replace(".455Z", ".455Z"), "platform": "sentinel-2a", "constellation": "sentinel-2",
             "instruments": ["msi"], "gsd": 10, "eo:cloud_cover": info["cloudyPixelPercentage"],
             "s2:processing_baseline": "02.05", "s2:product_uri": info["productName"] + ".SAFE",
             "eoedge:derived": True, "eoedge:note": "derived from tileInfo.json; bands decimated to 900 m"}
    assets = {b: raster_asset(f"{d}/{b}.tif", [b]) for b in bands}
    write(item("sentinel-2-l1c", info["productName"], f"{d}/B04.tif", props, assets))


def s1():
    d = "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B"
    info = json.load(open(os.path.join(ROOT, d, "productInfo.json")))
    props = {"datetime": info["startTime"] + "Z", "start_datetime": info["startTime"] + "Z",
             "end_datetime": info["stopTime"] + "Z", "platform": "sentinel-1a", "constellation": "sentinel-1",
             "instruments": ["c-sar"], "gsd": 200, "sar:instrument_mode": "IW", "sar:frequency_band": "C",
             "sar:center_frequency": 5.405, "sar:polarizations": ["VV", "VH"], "sar:product_type": "GRD",
             "sat:absolute_orbit": info["absoluteOrbitNumber"],
             # S1A relative orbit = (absolute - 73) mod 175 + 1 (ESA Sentinel-1 product definition);
             # descending: the pass is at ~05:50 local solar time (S1 descends at dawn, ascends at dusk).
             "sat:relative_orbit": (info["absoluteOrbitNumber"] - 73) % 175 + 1, "sat:orbit_state": "descending",
             "s1:resolution": "HIGH", "s1:timeliness": "NRT3h",
             "s1:polarization": "DV", "eoedge:derived": True,
             "eoedge:note": "derived from productInfo.json; VV/VH resampled to UTM 43N 200 m (see data/SOURCES.md)"}
    assets = {p: raster_asset(f"{d}/iw-{p.lower()}.utm43n-200m.tif", [p]) for p in ["VV", "VH"]}
    it = item("sentinel-1-grd", info["id"], f"{d}/iw-vv.utm43n-200m.tif", props, assets)
    it["stac_extensions"] = EXT[1:] + ["https://stac-extensions.github.io/sar/v1.0.0/schema.json",
                                      "https://stac-extensions.github.io/sat/v1.0.0/schema.json"]
    for a in it["assets"].values():
        a.pop("eo:bands")
    write(it)


if __name__ == "__main__":
    s2_29rkh(); westflanders(); belgium(); l1c(); s1()
