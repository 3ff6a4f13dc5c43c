#!/usr/bin/env python3
"""GeoPackage fixtures for src/vector/geopackage.ts and the batch / statistical batch GeoPackage inputs.

Run with Debian's python3 (python3-gdal, GDAL 3.6): /usr/bin/python3 test/reference/make_geopackages.py
(not part of `npm run references`: GDAL stamps creation times into the files, so a rerun rewrites them, and
reference.json with them). Writes test/fixtures/vector/:

- westflanders_fields.gpkg: layer `fields` (first layer), EPSG:32631, 20 field parcels inside the West Flanders
  sample scene's footprint (data/sentinel-2-l2a/westflanders, 501360..502000 E, 5629040..5629680 N, UTM 31N): a
  5 x 4 block of parcels separated by 10-20 m tracks, corners moved off the grid so edges are slanted, one parcel
  with a farmyard hole (Polygon with an interior ring), one parcel split by a ditch (MultiPolygon of two parts).
  Columns: name TEXT, crop TEXT, area_ha REAL (area computed by OGR), sown INTEGER (a year).
  Layer `footprint` (second): the scene footprint polygon. Layer `curves`: one CurvePolygon (a geometry type the
  reader refuses).
- westflanders_fields_4326.gpkg: layer `fields` of the first file reprojected to EPSG:4326 by ogr2ogr (lon, lat).
- batch_features.gpkg: layer `features`, EPSG:32631, in the shape Sentinel Hub's Batch GeoPackageInput expects:
  columns identifier TEXT, width INTEGER, height INTEGER, resolution REAL (NULL where the request's defaults apply).
- batch_features_wal.gpkg: batch_features.gpkg switched to write-ahead-log mode (as QGIS leaves files: header
  bytes 18-19 = 2), checkpointed, no -wal file.
- plain.sqlite: an SQLite database without GeoPackage tables.

and test/fixtures/vector/reference.json: per file and layer, what GDAL/OGR and python's sqlite3 read back from the
written files (oracle independent of the TypeScript reader): layer name, geometry column, EPSG code from
gpkg_spatial_ref_sys, feature count, and per feature the fid, the geometry as OGR's GeoJSON (ExportToJson, in the
layer CRS, axis order x/y = easting/northing or lon/lat), the envelope of the GeoPackage binary header (decoded with
struct from the blob python's sqlite3 returns) and the attribute values.
"""
import json, math, os, shutil, sqlite3, struct, subprocess
from osgeo import gdal, ogr, osr
from gdal_common import gis_srs as srs

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "vector")
FOOTPRINT = (501360.0, 5629040.0, 502000.0, 5629680.0)  # data/sentinel-2-l2a/westflanders/*/B04.tif bounds
COLS, ROWS = 5, 4
CROPS = ["maize", "winter wheat", "potatoes", "sugar beet", "grassland"]
HOLE_PARCEL, SPLIT_PARCEL = 6, 13


def jitter(i, j, k):
    """A deterministic offset in metres (-6..6) for corner k of parcel (i, j): slanted, irregular edges."""
    return 6.0 * math.sin(1.7 * i + 2.3 * j + 0.9 * k + 0.5)


def ring(points):
    r = ogr.Geometry(ogr.wkbLinearRing)
    for x, y in points + [points[0]]:
        r.AddPoint_2D(x, y)
    return r


def parcel(i, j):
    """Parcel (column i, row j from the north): a quadrilateral inside its 128 x 160 m cell, 8..14 m from its edges."""
    x0, y1 = FOOTPRINT[0] + 128.0 * i, FOOTPRINT[3] - 160.0 * j
    x1, y0 = x0 + 128.0, y1 - 160.0
    m = 10.0
    corners = [(x0 + m, y1 - m), (x1 - m, y1 - m), (x1 - m, y0 + m), (x0 + m, y0 + m)]  # clockwise from NW
    pts = [(x + jitter(i, j, k), y + jitter(j, i, k + 4)) for k, (x, y) in enumerate(corners)]
    n = j * COLS + i
    if n == SPLIT_PARCEL:  # a ditch across the parcel: two parts
        ym_w, ym_e = (pts[0][1] + pts[3][1]) / 2, (pts[1][1] + pts[2][1]) / 2
        north = ogr.Geometry(ogr.wkbPolygon)
        north.AddGeometry(ring([pts[0], pts[1], (pts[1][0], ym_e + 4), (pts[0][0], ym_w + 4)]))
        south = ogr.Geometry(ogr.wkbPolygon)
        south.AddGeometry(ring([(pts[3][0], ym_w - 4), (pts[2][0], ym_e - 4), pts[2], pts[3]]))
        g = ogr.Geometry(ogr.wkbMultiPolygon)
        g.AddGeometry(north)
        g.AddGeometry(south)
        return g
    g = ogr.Geometry(ogr.wkbPolygon)
    g.AddGeometry(ring(pts))
    if n == HOLE_PARCEL:  # a farmyard (counter-clockwise interior ring)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        g.AddGeometry(ring([(cx - 20, cy - 25), (cx + 20, cy - 25), (cx + 20, cy + 25), (cx - 20, cy + 25)]))
    return g


def create(path):
    if os.path.exists(path):
        os.remove(path)
    return ogr.GetDriverByName("GPKG").CreateDataSource(path)


def add_fields(layer, fields):
    for name, kind in fields:
        layer.CreateField(ogr.FieldDefn(name, kind))


def write_fields(path):
    ds = create(path)
    lyr = ds.CreateLayer("fields", srs(32631), ogr.wkbUnknown, ["GEOMETRY_NAME=geom", "FID=fid"])
    add_fields(lyr, [("name", ogr.OFTString), ("crop", ogr.OFTString), ("area_ha", ogr.OFTReal), ("sown", ogr.OFTInteger)])
    for j in range(ROWS):
        for i in range(COLS):
            n = j * COLS + i
            g = parcel(i, j)
            f = ogr.Feature(lyr.GetLayerDefn())
            f.SetField("name", f"parcel-{n + 1:02d}")
            f.SetField("crop", CROPS[(3 * i + j) % len(CROPS)])
            f.SetField("area_ha", round(g.GetArea() / 10000.0, 4))
            f.SetField("sown", 2017 + (i + j) % 2)
            f.SetGeometry(g)
            lyr.CreateFeature(f)
    fp = ds.CreateLayer("footprint", srs(32631), ogr.wkbPolygon, ["GEOMETRY_NAME=geom"])
    add_fields(fp, [("scene", ogr.OFTString)])
    f = ogr.Feature(fp.GetLayerDefn())
    f.SetField("scene", "westflanders 31UDS 640 m window")
    box = ogr.Geometry(ogr.wkbPolygon)
    x0, y0, x1, y1 = FOOTPRINT
    box.AddGeometry(ring([(x0, y1), (x1, y1), (x1, y0), (x0, y0)]))
    f.SetGeometry(box)
    fp.CreateFeature(f)
    cv = ds.CreateLayer("curves", srs(32631), ogr.wkbCurvePolygon, ["GEOMETRY_NAME=geom"])
    f = ogr.Feature(cv.GetLayerDefn())
    f.SetGeometry(ogr.CreateGeometryFromWkt(
        "CURVEPOLYGON(CIRCULARSTRING(501500 5629200,501560 5629260,501500 5629320,501440 5629260,501500 5629200))"))
    cv.CreateFeature(f)
    ds = None


def write_batch(path):
    ds = create(path)
    lyr = ds.CreateLayer("features", srs(32631), ogr.wkbPolygon, ["GEOMETRY_NAME=geometry", "FID=fid"])
    add_fields(lyr, [("identifier", ogr.OFTString), ("width", ogr.OFTInteger), ("height", ogr.OFTInteger),
                     ("resolution", ogr.OFTReal)])
    rows = [("field-a", 64, 64, None, (0, 0)), ("field-b", None, None, 10.0, (2, 1)),
            ("field-c", None, None, 20.0, (4, 2)), ("field-d", None, None, None, (1, 3))]
    for ident, w, h, res, (i, j) in rows:
        f = ogr.Feature(lyr.GetLayerDefn())
        f.SetField("identifier", ident)
        for name, v in (("width", w), ("height", h), ("resolution", res)):
            if v is None:
                f.SetFieldNull(name)
            else:
                f.SetField(name, v)
        f.SetGeometry(parcel(i, j))
        lyr.CreateFeature(f)
    ds = None


def write_wal_copy(src, path):
    shutil.copyfile(src, path)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def write_plain(path):
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE parcels (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO parcels (name) VALUES ('not a geopackage')")
    con.commit()
    con.close()


ENVELOPE_DOUBLES = {0: 0, 1: 4, 2: 6, 3: 6, 4: 8}


def header_envelope(blob):
    """The envelope of a GeoPackage binary header (GeoPackage 1.3 clause 2.1.3): [minx, maxx, miny, maxy, ...] or None."""
    flags = blob[3]
    order = "<" if flags & 1 else ">"
    n = ENVELOPE_DOUBLES[(flags >> 1) & 7]
    return list(struct.unpack(order + "d" * n, blob[8:8 + 8 * n])) if n else None


def reference(path):
    con = sqlite3.connect(path)
    ds = ogr.Open(path)
    layers = []
    for k in range(ds.GetLayerCount()):
        lyr = ds.GetLayer(k)
        name = lyr.GetName()
        gcol = lyr.GetGeometryColumn()
        (code,) = con.execute(
            "SELECT s.organization_coordsys_id FROM gpkg_geometry_columns g JOIN gpkg_spatial_ref_sys s "
            "ON g.srs_id = s.srs_id WHERE g.table_name = ?", (name,)).fetchone()
        blobs = dict(con.execute(f'SELECT "{lyr.GetFIDColumn()}", "{gcol}" FROM "{name}"').fetchall())
        feats = []
        for f in lyr:
            geom = f.GetGeometryRef()
            feats.append({
                "fid": f.GetFID(),
                "geometry": json.loads(geom.ExportToJson()) if geom and geom.GetGeometryType() in
                (ogr.wkbPolygon, ogr.wkbMultiPolygon) else None,
                "envelope": header_envelope(blobs[f.GetFID()]),
                "properties": {f.GetFieldDefnRef(i).GetName(): (f.GetField(i) if f.IsFieldSetAndNotNull(i) else None)
                               for i in range(f.GetFieldCount())},
            })
        layers.append({"name": name, "geometryColumn": gcol, "fidColumn": lyr.GetFIDColumn(), "epsg": code,
                       "featureCount": lyr.GetFeatureCount(), "features": feats})
    con.close()
    return {"layers": layers}


def main():
    os.makedirs(OUT, exist_ok=True)
    fields = os.path.join(OUT, "westflanders_fields.gpkg")
    write_fields(fields)
    wgs = os.path.join(OUT, "westflanders_fields_4326.gpkg")
    if os.path.exists(wgs):
        os.remove(wgs)
    subprocess.run(["ogr2ogr", "-f", "GPKG", "-t_srs", "EPSG:4326", "-lco", "GEOMETRY_NAME=geom", wgs, fields, "fields"],
                   check=True)
    write_batch(os.path.join(OUT, "batch_features.gpkg"))
    write_wal_copy(os.path.join(OUT, "batch_features.gpkg"), os.path.join(OUT, "batch_features_wal.gpkg"))
    write_plain(os.path.join(OUT, "plain.sqlite"))
    ref = {name: reference(os.path.join(OUT, name)) for name in
           ("westflanders_fields.gpkg", "westflanders_fields_4326.gpkg", "batch_features.gpkg")}
    with open(os.path.join(OUT, "reference.json"), "w") as fh:
        json.dump(ref, fh, indent=1)
        fh.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
