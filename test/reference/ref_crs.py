"""CRS references (called by references.py): GDAL/PROJ as the oracle for the CRSs of src/raster/crs/definitions.json.

- crs_windows(): for a few CRSs (WGS 84, a UTM zone, LAEA Europe, Lambert-93, NSIDC polar stereographic north:
  all without a datum shift from WGS 84, so GDAL and EO Edge must agree to the pixel), gdal.Warp of a real B04 band onto a grid in that CRS (reflectance,
  float32 like references.py), plus the GeoTIFF GeoKeys GDAL itself writes for that EPSG code (read back from a
  GDAL-written GeoTIFF) and GDAL's geotransform of the grid.
- crs_points(): for every supported code, points inside its EPSG area of use transformed from EPSG:4326 with
  OGR/PROJ three times: with the EPSG code (the registry's own definition and PROJ's choice of datum
  transformation, made per point: the most accurate operation whose area of use holds the point, a ballpark
  outside all of them; operations whose grid is not installed are skipped, so this is grid-less here as in EO
  Edge), with the proj4 string EO Edge uses (the same definition, PROJ's maths), and with the one operation the
  definition's +towgs84 was taken from (definitions.json `datumShift.name`, e.g. "Amersfoort to WGS 84 (4)"):
  PROJ's own pipeline for that EPSG transformation, so a wrong conversion of its parameters shows.
"""
import json, os, re, struct, subprocess
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
DATA = os.path.join(ROOT, "data", "sentinel-2-l2a")
RKH_B04 = os.path.join(DATA, "S2A_29RKH_20200219_0_L2A", "B04.tif")
WF_B04 = os.path.join(DATA, "westflanders", "2018-04-14", "B04.tif")
GEOKEY_NAMES = {1024: "GTModelTypeGeoKey", 1025: "GTRasterTypeGeoKey", 2048: "GeographicTypeGeoKey", 3072: "ProjectedCSTypeGeoKey"}


def srs_of(epsg=None, proj4=None):
    s = osr.SpatialReference()
    if epsg is not None:
        s.ImportFromEPSG(epsg)
    else:
        s.ImportFromProj4(proj4)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def geokeys(path):
    """The GeoKeyDirectory (tag 34735) of the first IFD of a classic little-endian TIFF: {key name: value}."""
    with open(path, "rb") as f:
        buf = f.read()
    assert buf[:4] == b"II*\0", "classic little-endian TIFF expected"
    ifd = struct.unpack_from("<I", buf, 4)[0]
    for i in range(struct.unpack_from("<H", buf, ifd)[0]):
        tag, typ, count, value = struct.unpack_from("<HHII", buf, ifd + 2 + 12 * i)
        if tag == 34735:
            keys = struct.unpack_from(f"<{count}H", buf, value if count > 2 else ifd + 2 + 12 * i + 8)
            return {GEOKEY_NAMES.get(k, str(k)): keys[j + 3] for k, j in ((keys[j], j) for j in range(4, len(keys), 4)) if keys[j + 1] == 0}
    raise ValueError("no GeoKeyDirectory")


def gdal_geokeys(epsg, grid):
    """GeoKeys GDAL writes for a GeoTIFF of `grid` in EPSG:`epsg` (GTiff driver defaults)."""
    path = f"/tmp/eo-edge-geokeys-{epsg}.tif"
    ds = gdal.GetDriverByName("GTiff").Create(path, 2, 2, 1, gdal.GDT_Float32)
    x0, y0, x1, y1 = grid["bbox"]
    ds.SetGeoTransform([x0, (x1 - x0) / 2, 0, y1, 0, -(y1 - y0) / 2])
    ds.SetProjection(srs_of(epsg).ExportToWkt())
    ds = None
    keys = geokeys(path)
    os.remove(path)
    return keys


def aligned_box(src_epsg, x, y, epsg, res, size):
    """A size x size grid at `res` CRS units in EPSG:`epsg` centred (on a multiple of res) at (x, y) of EPSG:`src_epsg`."""
    cx, cy = osr.CoordinateTransformation(srs_of(src_epsg), srs_of(epsg)).TransformPoint(x, y)[:2]
    cx, cy = round(cx / res) * res, round(cy / res) * res
    half = size * res / 2
    return [cx - half, cy - half, cx + half, cy + half]


# name: (source band, its EPSG, a point of the source inside the file, output EPSG, resolution, size)
WINDOWS = {
    "crs_4326": (RKH_B04, 32629, (255000, 2745000), 4326, 0.001, 96),
    "crs_32629": (RKH_B04, 32629, (255000, 2745000), 32629, 100, 96),
    "crs_3035": (RKH_B04, 32629, (255000, 2745000), 3035, 100, 96),
    "crs_2154": (WF_B04, 32631, (501680, 5629360), 2154, 10, 48),
    "crs_3413": (WF_B04, 32631, (501680, 5629360), 3413, 10, 48),
}


def crs_windows(save):
    """Warps each window with gdal.Warp (nearest, exact transformer) and saves it with `save(name, arr, **meta)`."""
    for name, (path, src_epsg, (x, y), epsg, res, size) in WINDOWS.items():
        bbox = aligned_box(src_epsg, x, y, epsg, res, size)
        ds = gdal.Warp("", path, format="MEM", dstSRS=srs_of(epsg).ExportToWkt(), outputBounds=bbox, width=size, height=size,
                       resampleAlg="near", errorThreshold=0, srcNodata=0, dstNodata=0, outputType=gdal.GDT_Float32)
        a = ds.GetRasterBand(1).ReadAsArray().astype(np.float32) / 10000.0
        grid = {"epsg": epsg, "bbox": bbox, "width": size, "height": size, "resampling": "near"}
        save(name, a, grid=grid, geokeys=gdal_geokeys(epsg, grid), geotransform=list(ds.GetGeoTransform()),
             what=f"B04 reflectance of {os.path.relpath(path, ROOT)} warped to EPSG:{epsg} by gdal.Warp")


def area_points(area):
    """Centre and four inset corners of an area of use [west, south, east, north] (degrees)."""
    w, s, e, n = area
    fx = lambda t: w + t * (e - w)
    fy = lambda t: s + t * (n - s)
    return [[fx(0.5), fy(0.5)], [fx(0.1), fy(0.1)], [fx(0.9), fy(0.1)], [fx(0.1), fy(0.9)], [fx(0.9), fy(0.9)]]


def operation_pipeline(epsg, name):
    """PROJ's pipeline (a PROJ string) EPSG:4326 -> EPSG:`epsg` through the datum transformation called `name`."""
    text = subprocess.run(["projinfo", "-s", "EPSG:4326", "-t", f"EPSG:{epsg}", "-o", "PROJ", "--single-line",
                           "--spatial-test", "intersects", "--grid-check", "none"], capture_output=True, text=True, check=True).stdout
    ops = re.findall(r"^Operation No\. \d+:\n\n(.*)\n\nPROJ string:\n(.*)$", text, flags=re.M)
    found = [pipe for head, pipe in ops if re.search(rf"(, |Inverse of ){re.escape(name)} \+ ", head)]
    assert len(found) == 1, f"EPSG:{epsg}: {len(found)} operations named {name!r}"
    return found[0]


def through_operation(code, d):
    """The CT EPSG:4326 -> EPSG:`code` through the transformation definitions.json names, or PROJ's own choice."""
    shift = d.get("datumShift")
    if not shift or not shift["operation"]:
        return osr.CoordinateTransformation(srs_of(4326), srs_of(int(code)))
    options = osr.CoordinateTransformationOptions()
    options.SetOperation(operation_pipeline(code, shift["name"]))
    return osr.CoordinateTransformation(srs_of(4326), srs_of(int(code)), options)


def crs_points(out_path):
    """Writes {code: {in, epsg, proj4, op}} of lon/lat points transformed to every supported CRS."""
    with open(os.path.join(ROOT, "src", "raster", "crs", "definitions.json")) as f:
        defs = json.load(f)["crs"]
    wgs84 = srs_of(4326)
    out = {"_gdal": gdal.__version__, "_proj": ".".join(map(str, (osr.GetPROJVersionMajor(), osr.GetPROJVersionMinor(), osr.GetPROJVersionMicro())))}
    for code, d in defs.items():
        pts = area_points(d["area"])
        by_epsg = osr.CoordinateTransformation(wgs84, srs_of(int(code)))
        by_proj4 = osr.CoordinateTransformation(wgs84, srs_of(proj4=d["proj4"]))
        by_op = through_operation(code, d)
        out[code] = {"in": pts, "epsg": [list(by_epsg.TransformPoint(x, y)[:2]) for x, y in pts],
                     "proj4": [list(by_proj4.TransformPoint(x, y)[:2]) for x, y in pts],
                     "op": [list(by_op.TransformPoint(x, y)[:2]) for x, y in pts]}
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(out, f)
