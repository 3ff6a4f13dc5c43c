#!/usr/bin/env python3
"""An antimeridian-crossing scene and its references, for test/process/antimeridian.test.ts.

No sample scene crosses 180 degrees, so a real one is moved there: a 200 x 200 window of the real 29RKH B04 file
(DN, 100 m pixels) is re-georeferenced with gdal_translate -a_srs EPSG:32760 (UTM zone 60 South) -a_ullr onto a
20 km square centred on the antimeridian near Fiji (lat ~ -17.45), written as a COG
(test/fixtures/process/antimeridian/B04.tif). The item's footprint (bbox west > east, split MultiPolygon) is the
file's outline transformed to EPSG:4326 with OGR (edges densified), and the references are gdal.Warp (nearest,
errorThreshold=0, exact transformer) of that file onto an EPSG:4326 box on each side of the antimeridian, as
float32 DN (0 = no data). Run: /usr/bin/python3 test/reference/ref_antimeridian.py.
"""
import json, os, tempfile
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "data", "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A", "B04.tif")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "process", "antimeridian")
EPSG, SIZE, RES = 32760, 200, 100.0
WINDOW = (400, 300)  # column, row of the 29RKH window (land, no zeros)
CENTRE_LAT = -17.45
# EPSG:4326 request boxes [west, south, east, north] on each side of 180 degrees, inside the 20 km square
BOXES = {"west": [179.91, -17.50, 179.99, -17.42], "east": [-179.99, -17.50, -179.91, -17.42]}
WIDTH = HEIGHT = 48


def transform(src_epsg, dst_epsg):
    s, d = osr.SpatialReference(), osr.SpatialReference()
    s.ImportFromEPSG(src_epsg)
    d.ImportFromEPSG(dst_epsg)
    for r in (s, d):
        r.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return osr.CoordinateTransformation(s, d)


def make_scene(path):
    """The moved window as a COG; returns its bounds [ulx, uly, lrx, lry] in EPSG:32760 metres."""
    x180, y = transform(4326, EPSG).TransformPoint(180.0, CENTRE_LAT)[:2]
    ulx = round((x180 - SIZE * RES / 2) / RES) * RES
    uly = round((y + SIZE * RES / 2) / RES) * RES
    ullr = [ulx, uly, ulx + SIZE * RES, uly - SIZE * RES]
    with tempfile.TemporaryDirectory() as tmp:
        moved = os.path.join(tmp, "moved.tif")
        gdal.Translate(moved, SRC, srcWin=[*WINDOW, SIZE, SIZE], outputSRS=f"EPSG:{EPSG}", outputBounds=ullr, noData=0)
        gdal.Translate(path, moved, format="COG", creationOptions=["COMPRESS=DEFLATE", "BLOCKSIZE=256", "OVERVIEWS=NONE"])
    return ullr


def footprint(ullr):
    """bbox [west, south, east, north] (west > east: crosses 180) and a MultiPolygon split at 180, EPSG:4326."""
    ulx, uly, lrx, lry = ullr
    ct = transform(EPSG, 4326)
    ring = []
    for k in range(21):
        t = k / 20
        ring += [(ulx + t * (lrx - ulx), uly), (lrx, uly - t * (uly - lry)), (lrx - t * (lrx - ulx), lry), (ulx, lry + t * (uly - lry))]
    pts = [ct.TransformPoint(x, y)[:2] for x, y in ring]
    lons = [lon + 360 if lon < 0 else lon for lon, _ in pts]  # unwrapped east of 180
    lats = [lat for _, lat in pts]
    w, e, s, n = min(lons), max(lons), min(lats), max(lats)
    assert w < 180 < e, (w, e)
    bbox = [w, s, e - 360, n]
    rect = lambda a, b: [[[a, s], [b, s], [b, n], [a, n], [a, s]]]
    return bbox, {"type": "MultiPolygon", "coordinates": [rect(w, 180.0), rect(-180.0, e - 360)]}


def reference(path, box):
    ds = gdal.Warp("", path, format="MEM", dstSRS="EPSG:4326", outputBounds=box, width=WIDTH, height=HEIGHT,
                   resampleAlg="near", errorThreshold=0, srcNodata=0, dstNodata=0, outputType=gdal.GDT_Float32)
    return ds.GetRasterBand(1).ReadAsArray().astype("<f4")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    tif = os.path.join(OUT, "B04.tif")
    ullr = make_scene(tif)
    bbox, geometry = footprint(ullr)
    refs = {"_gdal": gdal.__version__, "epsg": EPSG, "ullr": ullr, "bbox": bbox, "geometry": geometry, "cases": {}}
    for side, box in BOXES.items():
        a = reference(tif, box)
        assert (a > 0).all(), f"{side}: the box must lie inside the scene"
        np.ascontiguousarray(a).tofile(os.path.join(OUT, f"{side}.bin"))
        refs["cases"][side] = {"bbox": box, "width": WIDTH, "height": HEIGHT, "mean": float(a.mean())}
    with open(os.path.join(OUT, "refs.json"), "w") as f:
        json.dump(refs, f, indent=1)
    print(f"scene {ullr} -> bbox {bbox}; references {list(refs['cases'])} ({os.path.getsize(tif)} bytes COG)")
