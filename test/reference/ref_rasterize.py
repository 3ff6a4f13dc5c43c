#!/usr/bin/env python3
"""Reference masks for polygon rasterization (src/raster/grid/rasterize.ts), made with gdal.RasterizeLayer.

Run with Debian's python3 (python3-gdal): /usr/bin/python3 test/reference/ref_rasterize.py (part of `npm run references`).
Writes test/fixtures/rasterize/<case>.json: {what, grid: {epsg, bbox, width, height}, geometry (GeoJSON in the grid
CRS), mask (np.packbits of the row-major mask, row 0 north, base64), inside (pixel count), margin_px}.

The geometries are real shapes: the cloud classes (SCL 8, 9, 10) of the Sentinel-2 L2A tile 29RKH
(data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/SCL.tif, 200 m) turned into polygons by gdal.Polygonize: a
MultiPolygon whose largest part has dozens of holes. "simplified" cases are OGR SimplifyPreserveTopology of them
(slanted edges); the 4326 case is the simplified shape transformed to WGS 84 (lon, lat).

No pixel centre may lie on an edge (there the GDAL rule and any re-implementation may round either way, so the
masks could not be compared exactly): for every grid the script measures, in pixel units, the distance from every
edge crossing of a centre row to the nearest pixel centre and from every vertex to the nearest centre row, and
fails below 1e-6 px (`margin_px` records the minimum).
"""
import base64, json, os
import numpy as np
from osgeo import gdal, ogr, osr
from gdal_common import rasterize_geometry

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
SCL = os.path.join(HERE, "..", "..", "data", "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A", "SCL.tif")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "rasterize")
WINDOW = (262000.0, 2776000.0, 312000.0, 2800020.0)  # UTM 29N: the north-east clouds of the tile
MIN_MARGIN = 1e-6


def cloud_polygons():
    """gdal.Polygonize of SCL in {8, 9, 10}: the polygons whose envelope meets WINDOW, as one OGR MultiPolygon (UTM 29N)."""
    ds = gdal.Open(SCL)
    mask = np.isin(ds.ReadAsArray(), [8, 9, 10]).astype(np.uint8)
    mem = gdal.GetDriverByName("MEM").Create("", ds.RasterXSize, ds.RasterYSize, 1, gdal.GDT_Byte)
    mem.SetGeoTransform(ds.GetGeoTransform())
    mem.SetProjection(ds.GetProjection())
    mem.GetRasterBand(1).WriteArray(mask)
    vds = ogr.GetDriverByName("Memory").CreateDataSource("")
    lyr = vds.CreateLayer("clouds", ds.GetSpatialRef(), ogr.wkbPolygon)
    lyr.CreateField(ogr.FieldDefn("v", ogr.OFTInteger))
    gdal.Polygonize(mem.GetRasterBand(1), mem.GetRasterBand(1), lyr, 0)
    x0, y0, x1, y1 = WINDOW
    multi = ogr.Geometry(ogr.wkbMultiPolygon)
    for f in lyr:
        minx, maxx, miny, maxy = f.GetGeometryRef().GetEnvelope()
        if minx >= x0 and maxx <= x1 and miny >= y0 and maxy <= y1:
            multi.AddGeometry(f.GetGeometryRef().Clone())
    return multi


def to_wgs84(geom):
    src = osr.SpatialReference()
    src.ImportFromEPSG(32629)
    dst = osr.SpatialReference()
    dst.ImportFromEPSG(4326)
    dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    g = geom.Clone()
    g.Transform(osr.CoordinateTransformation(src, dst))
    return g


def geojson(geom):
    return json.loads(geom.ExportToJson())


def rings_of(g):
    polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
    return [np.array(r, dtype=np.float64)[:, :2] for p in polys for r in p]


def margin(g, grid):
    """Smallest distance (px) of an edge crossing to a pixel centre on a centre row, or of a vertex to a centre row."""
    x0, y0, x1, y1 = grid["bbox"]
    rx, ry = (x1 - x0) / grid["width"], (y1 - y0) / grid["height"]
    best = np.inf
    for r in rings_of(g):
        px, py = (r[:, 0] - x0) / rx, (y1 - r[:, 1]) / ry
        best = min(best, np.min(np.abs(py - 0.5 - np.round(py - 0.5))))
        for (xa, ya, xb, yb) in zip(px[:-1], py[:-1], px[1:], py[1:]):
            lo, hi = min(ya, yb), max(ya, yb)
            rows = np.arange(np.ceil(lo - 0.5), np.floor(hi - 0.5) + 1) + 0.5
            rows = rows[(rows > lo) & (rows < hi)]
            if rows.size:
                xs = xa + (rows - ya) * (xb - xa) / (yb - ya)
                best = min(best, np.min(np.abs(xs - 0.5 - np.round(xs - 0.5))))
    return float(best)


def envelope(g):
    pts = np.concatenate(rings_of(g))
    return [float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())]


def save(name, what, g, grid):
    """Writes the case; the first of width, width + 1, ... (height likewise) whose pixel centres keep off every edge."""
    w0, h0 = grid["width"], grid["height"]
    for k in range(40):
        grid = {**grid, "width": w0 + (k + 1) // 2, "height": h0 + k // 2}
        m = margin(g, grid)
        if m > MIN_MARGIN:
            break
    else:
        raise SystemExit(f"{name}: a pixel centre lies within {m} px of an edge")
    mask = rasterize_geometry(g, grid)
    doc = {"what": what, "grid": grid, "geometry": g, "inside": int(mask.sum()), "margin_px": m,
           "mask": base64.b64encode(np.packbits(mask.astype(np.uint8).ravel())).decode()}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(f"{name}: {grid['width']}x{grid['height']}, {sum(len(r) for r in rings_of(g))} vertices, "
          f"{len(rings_of(g))} rings, {mask.sum()} px inside, margin {m:.3g} px")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    clouds = cloud_polygons()
    simple = clouds.SimplifyPreserveTopology(300)
    raw, simp, lonlat = geojson(clouds), geojson(simple), geojson(to_wgs84(simple))
    src = "SCL in {8,9,10} of S2A_29RKH_20200219_0_L2A, gdal.Polygonize"
    # Grid = the geometry's envelope, as the Processing API makes it for a request with a geometry and no bbox.
    e = envelope(simp)
    save("clouds_utm_simplified", f"{src}, SimplifyPreserveTopology(300 m)", simp,
         {"epsg": 32629, "bbox": e, "width": 317, "height": 151})
    # A grid that cuts the geometry on every side (parts outside the grid, spans clamped at both edges).
    save("clouds_utm_cut", f"{src}, SimplifyPreserveTopology(300 m), on a grid cutting it", simp,
         {"epsg": 32629, "bbox": [e[0] + 7013.7, e[1] + 3011.3, e[2] - 9007.1, e[3] - 2003.9], "width": 233, "height": 97})
    # The unsimplified polygons (edges on the 200 m SCL pixel boundaries) on a finer, shifted grid.
    er = envelope(raw)
    save("clouds_utm_raw", f"{src} (not simplified)", raw,
         {"epsg": 32629, "bbox": [er[0] - 31.0, er[1] - 17.0, er[2] + 43.0, er[3] + 29.0], "width": 401, "height": 197})
    # WGS 84: the geometry of the Processing API clip test (test/process/clip.test.ts).
    save("clouds_4326", f"{src}, SimplifyPreserveTopology(300 m), in WGS 84", lonlat,
         {"epsg": 4326, "bbox": envelope(lonlat), "width": 256, "height": 128})
