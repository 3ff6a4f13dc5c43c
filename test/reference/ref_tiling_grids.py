#!/usr/bin/env python3
"""Reference tiles of the Batch tiling grids (src/batch/grids), computed independently with GDAL/OGR: OSR (PROJ) for
the projections, GEOS (OGR Intersects / Intersection) for the geometry, and the grid rules of src/batch/grids/index.ts
written again here. EO Edge works in longitude / latitude with proj4js and turf; this script clips and tests in each
tile's own CRS, so the two agree only if projections, tile origins, steps, names and buffers agree. In both, the
edges of an area are straight lines in the area's own CRS (a CRS84 footprint's edges are straight in lon/lat and
curve in UTM: the 110 km top edge of 29RKH sags about 100 m south of the UTM line through its corners).

Run with Debian's python3 (python3-gdal): /usr/bin/python3 test/reference/ref_tiling_grids.py (part of `npm run references`
once listed there). Writes test/fixtures/grids/reference.json: {cases: [{what, grid, resolution, buffer, area
(GeoJSON), crs (EPSG of the area), tiles: [{name, epsg, bbox, width, height}]}], s2: {...}} with the tiles in EO
Edge's order (EPSG, top edge descending, left edge ascending).

Real-data checks recorded in `s2`: the square and Sentinel-2 tile origin this script derives for the centre of the
real tile 29RKH (data/items/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A.json: mgrs:* properties and proj:bbox).
"""
import json, math, os, sqlite3
from osgeo import ogr, osr
from gdal_common import gis_srs as srs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
OUT = os.path.join(ROOT, "test", "fixtures", "grids")
RKH_ITEM = os.path.join(ROOT, "data", "items", "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A.json")
FIELDS = os.path.join(ROOT, "test", "fixtures", "vector", "westflanders_fields.gpkg")

GRIDS = {0: ("utm", 20040), 1: ("utm", 10000), 2: ("utm", 100080), 3: ("wgs84", 1), 6: ("laea", 100000), 7: ("laea", 20000)}
COLUMN_LETTERS = {1: "ABCDEFGH", 2: "JKLMNPQR", 0: "STUVWXYZ"}
ROW_LETTERS = "ABCDEFGHJKLMNPQRSTUV"
BANDS = "CDEFGHJKLMNPQRSTUVWX"


def transformed(geom, src, dst):
    g = geom.Clone()
    if src != dst:
        g.Transform(osr.CoordinateTransformation(srs(src), srs(dst)))
    return g


def box(x0, y0, x1, y1):
    return ogr.CreateGeometryFromWkt(f"POLYGON(({x0} {y0},{x1} {y0},{x1} {y1},{x0} {y1},{x0} {y0}))")


def meets(cell, area, margin=0.1):
    """The tile's interior meets the area: the cell shrunk by `margin` (0.1 m, 1e-6 degree) intersects it (GEOS,
    in the tile CRS), so tiles that only touch the area are not listed."""
    x0, y0, x1, y1 = cell
    return box(x0 + margin, y0 + margin, x1 - margin, y1 - margin).Intersects(area)


def band(lat):
    return BANDS[min(len(BANDS) - 1, int(math.floor((min(83.999, max(-80.0, lat)) + 80) / 8)))]


def square_name(zone, south, e, n):
    """zone + band (of the square's centre) + MGRS column and row letters of the square with SW corner (e, n)."""
    epsg = (32700 if south else 32600) + zone
    c = osr.CoordinateTransformation(srs(epsg), srs(4326)).TransformPoint(e + 50000.0, n + 50000.0)
    col = COLUMN_LETTERS[zone % 3][int(e // 100000) - 1]
    row = ROW_LETTERS[(int(n // 100000) + (5 if zone % 2 == 0 else 0)) % 20]
    return f"{zone:02d}{band(c[1])}{col}{row}"


def utm_cells(size, area):
    """(name, epsg, cell) of the UTM grid: area split by zone strip and hemisphere (GEOS), tested in the zone CRS."""
    minx, maxx, miny, maxy = area.GetEnvelope()
    out = []
    for zone in range(int((minx + 180) // 6) + 1, int((min(maxx, 179.9999) + 180) // 6) + 2):
        for south in (False, True):
            zw = -180 + 6 * (zone - 1)
            part = area.Intersection(box(zw, -80 if south else 0, zw + 6, 0 if south else 84))
            if part.IsEmpty() or part.GetArea() == 0:
                continue
            epsg = (32700 if south else 32600) + zone
            proj = transformed(part, 4326, epsg)
            x0, x1, y0, y1 = proj.GetEnvelope()
            for e in range(int((x0 - size) // 100000) * 100000, int(x1 + 60) + 1, 100000):
                for n in range(int((y0 - 60) // 100000) * 100000, int(y1 + size) + 1, 100000):
                    snap = 60 if size % 60 == 0 else 1  # 20040, 100080: Sentinel-2 origin; 10000: the square's corner
                    ox = math.floor(e / snap) * snap
                    oy = math.ceil((n + 100000) / snap) * snap
                    for j in range(math.ceil((oy - n) / size)):
                        for i in range(math.ceil((e + 100000 - ox) / size)):
                            cell = (ox + i * size, oy - (j + 1) * size, ox + (i + 1) * size, oy - j * size)
                            if meets(cell, proj):
                                out.append((f"{square_name(zone, south, e, n)}_{i}_{j}", epsg, cell))
    return out


def wgs84_cells(size, area):
    minx, maxx, miny, maxy = area.GetEnvelope()
    out = []
    for lat in range(int(math.floor(miny)), int(math.ceil(maxy))):
        for lon in range(int(math.floor(minx)), int(math.ceil(maxx))):
            if meets((lon, lat, lon + 1, lat + 1), area, 1e-6):
                out.append((f"{'S' if lat < 0 else 'N'}{abs(lat):02d}{'W' if lon < 0 else 'E'}{abs(lon):03d}", 4326, (lon, lat, lon + 1, lat + 1)))
    return out


def laea_cells(size, area):
    proj = transformed(area, 4326, 3035)
    x0, x1, y0, y1 = proj.GetEnvelope()
    unit = 10 ** int(math.floor(math.log10(size)))
    out = []
    for y in range(int(y0 // size) * size, int(y1) + 1, size):
        for x in range(int(x0 // size) * size, int(x1) + 1, size):
            if meets((x, y, x + size, y + size), proj):
                out.append((f"{size // 1000}kmE{x // unit}N{y // unit}", 3035, (x, y, x + size, y + size)))
    return out


def tiles(grid, res, area_lonlat, buffer=(0, 0)):
    layout, size = GRIDS[grid]
    cells = {"utm": utm_cells, "wgs84": wgs84_cells, "laea": laea_cells}[layout](size, area_lonlat)
    px = round(size / res)
    bx, by = buffer
    out = []
    for name, epsg, (x0, y0, x1, y1) in cells:
        out.append({"name": name, "epsg": epsg, "bbox": [x0 - bx * res, y0 - by * res, x1 + bx * res, y1 + by * res],
                    "width": px + 2 * bx, "height": px + 2 * by})
    out.sort(key=lambda t: (t["epsg"], -t["bbox"][3], t["bbox"][0]))
    return out


def field(name):
    """A West Flanders parcel of the GeoPackage fixture (EPSG:32631) as OGR geometry and GeoJSON."""
    ds = ogr.Open(FIELDS)
    for f in ds.GetLayerByName("fields"):
        if f.GetField("name") == name:
            g = f.GetGeometryRef().Clone()
            return g, json.loads(g.ExportToJson())
    raise KeyError(name)


def case(what, grid, res, geojson, crs, buffer=(0, 0)):
    """Tiles of one area; its edges are straight in its own CRS (segmentized there: 100 m or 0.001 degree pieces)
    before it goes to longitude / latitude, as EO Edge densifies them."""
    geom = ogr.CreateGeometryFromJson(json.dumps(geojson))
    geom.Segmentize(0.001 if crs == 4326 else 100.0)
    return {"what": what, "grid": grid, "resolution": res, "buffer": list(buffer), "area": geojson, "crs": crs,
            "tiles": tiles(grid, res, transformed(geom, crs, 4326), buffer)}


def main():
    item = json.load(open(RKH_ITEM))
    rkh = item["geometry"]
    _, parcel = field("parcel-01")
    border = {"type": "Polygon", "coordinates": [[[5.95, 50.8], [6.05, 50.8], [6.05, 50.85], [5.95, 50.85], [5.95, 50.8]]]}
    # two parts: one in zone 31, one just east of 6 E inside zone 32 but within reach of zone 31's tiles (which
    # extend past 6 E): the east part must bring zone 32 tiles only
    two = {"type": "MultiPolygon", "coordinates": [[[[5.5, 50.8], [5.52, 50.8], [5.52, 50.81], [5.5, 50.81], [5.5, 50.8]]],
                                                   [[[6.05, 50.8], [6.1, 50.8], [6.1, 50.85], [6.05, 50.85], [6.05, 50.8]]]]}
    # areas drawn exactly on tile edges: 29RKH_1_1 of the 20 km grid (EPSG:32629), LAEA cell 20kmE384N312, N50E003
    x0, y1 = 199980 + 20040, 2800020 - 20040
    cell = {"type": "Polygon", "coordinates": [[[x0, y1 - 20040], [x0 + 20040, y1 - 20040], [x0 + 20040, y1], [x0, y1], [x0, y1 - 20040]]]}
    laea = {"type": "Polygon", "coordinates": [[[3840000, 3120000], [3860000, 3120000], [3860000, 3140000], [3840000, 3140000], [3840000, 3120000]]]}
    degree = {"type": "Polygon", "coordinates": [[[3, 50], [4, 50], [4, 51], [3, 51], [3, 50]]]}
    cases = [
        case("Exactly the cell of 29RKH_1_1 (EPSG:32629), UTM 20 km grid: no neighbour that only touches", 0, 60, cell, 32629),
        case("Exactly the LAEA cell 20kmE384N312 (EPSG:3035), LAEA 20 km grid", 7, 20, laea, 3035),
        case("Exactly the cell N50E003, WGS84 1 degree grid", 3, 0.001, degree, 4326),
        case("29RKH footprint, UTM 20 km grid", 0, 60, rkh, 4326),
        case("29RKH footprint, UTM 100 km grid", 2, 120, rkh, 4326),
        case("29RKH footprint, UTM 10 km grid", 1, 20, rkh, 4326),
        case("29RKH footprint, WGS84 1 degree grid", 3, 0.001, rkh, 4326),
        case("West Flanders parcel-01 (EPSG:32631), UTM 20 km grid", 0, 10, parcel, 32631),
        case("West Flanders parcel-01, UTM 20 km grid, bufferX 5, bufferY 3", 0, 10, parcel, 32631, (5, 3)),
        case("West Flanders parcel-01, UTM 10 km grid", 1, 10, parcel, 32631),
        case("West Flanders parcel-01, WGS84 1 degree grid", 3, 0.0001, parcel, 32631),
        case("West Flanders parcel-01, LAEA 100 km grid", 6, 100, parcel, 32631),
        case("West Flanders parcel-01, LAEA 20 km grid", 7, 10, parcel, 32631),
        case("Box across the UTM 31/32 zone border at 6 E, UTM 20 km grid", 0, 20, border, 4326),
        case("MultiPolygon: a box in zone 31 and a box just east of 6 E (zone 32), UTM 20 km grid", 0, 20, two, 4326),
    ]
    props = item["properties"]
    centre = ogr.CreateGeometryFromJson(json.dumps(rkh)).Centroid()
    c = osr.CoordinateTransformation(srs(4326), srs(32629)).TransformPoint(centre.GetX(), centre.GetY())
    e, n = int(c[0] // 100000) * 100000, int(c[1] // 100000) * 100000
    s2 = {"item": {"zone": props["mgrs:utm_zone"], "band": props["mgrs:latitude_band"], "square": props["mgrs:grid_square"],
                   "origin": [props["proj:bbox"][0], props["proj:bbox"][3]]},
          "derived": {"name": square_name(29, False, e, n), "origin": [math.floor(e / 60) * 60, math.ceil((n + 100000) / 60) * 60]}}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "reference.json"), "w") as fh:
        json.dump({"cases": cases, "s2": s2}, fh, indent=1)
        fh.write("\n")
    for k in cases:
        print(f"{k['what']}: {len(k['tiles'])} tiles, first {k['tiles'][0]['name'] if k['tiles'] else '-'}")
    print("s2", s2)


if __name__ == "__main__":
    main()
