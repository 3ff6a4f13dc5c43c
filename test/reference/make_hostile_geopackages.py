#!/usr/bin/env python3
"""Hostile GeoPackages: files whose SQL schema makes a naive reader run unbounded SQLite work.

Run with Debian's python3 (its sqlite3 module, SQLite 3.40; no GDAL needed): /usr/bin/python3
test/reference/make_hostile_geopackages.py. Each file is test/fixtures/vector/batch_features.gpkg (98 KB, GDAL-written,
layer `features` inside the West Flanders sample scene) changed in one way; the reader (src/vector/geopackage.ts)
must refuse each with invalid-argument before any query touches the hostile object:

- hostile_view_columns.gpkg: `gpkg_geometry_columns` renamed and a VIEW of that name created over an endless
  recursive CTE (the issue's reproduction: reading the layer list never ends);
- hostile_view_layer.gpkg: the feature table `features` renamed and a VIEW `features` over the same CTE;
- hostile_generated.gpkg: a VIRTUAL generated column on `features` whose expression builds a 900 MB string per row;
- hostile_virtual_layer.gpkg: the feature layer `features` is an rtree VIRTUAL TABLE.
"""
import os, shutil, sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "..", "fixtures", "vector")
BASE = os.path.join(DIR, "batch_features.gpkg")
ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"

CHANGES = {
    "hostile_view_columns.gpkg": [
        "ALTER TABLE gpkg_geometry_columns RENAME TO gpkg_geometry_columns_real",
        f"CREATE VIEW gpkg_geometry_columns AS {ENDLESS} SELECT g.* FROM gpkg_geometry_columns_real g JOIN r ON r.n = -1",
    ],
    "hostile_view_layer.gpkg": [
        "ALTER TABLE features RENAME TO features_real",
        f"CREATE VIEW features AS {ENDLESS} SELECT f.* FROM features_real f JOIN r ON r.n = -1",
    ],
    "hostile_generated.gpkg": [
        "ALTER TABLE features ADD COLUMN heavy TEXT GENERATED ALWAYS AS (printf('%.*c', 900000000, 'x')) VIRTUAL",
    ],
    "hostile_virtual_layer.gpkg": [
        "DROP TABLE features",
        "CREATE VIRTUAL TABLE features USING rtree(fid, minx, maxx, miny, maxy)",
        "INSERT INTO features VALUES (1, 0, 1, 0, 1)",
    ],
}


def main():
    for name, statements in CHANGES.items():
        out = os.path.join(DIR, name)
        shutil.copyfile(BASE, out)
        con = sqlite3.connect(out)
        con.execute("PRAGMA journal_mode = DELETE")
        for sql in statements:
            con.execute(sql)
        con.commit()
        con.execute("VACUUM")
        con.close()
        print("wrote", os.path.relpath(out), os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
