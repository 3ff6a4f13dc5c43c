#!/usr/bin/env python3
"""Reads objects of EO Edge's S3 endpoint the way GDAL and rasterio users do, for the tests of src/s3 (run with
/usr/bin/python3 through the CLIENT_RELAY of vitest.config.ts, test/helpers/relay.ts): GDAL's /vsis3/ file system and
Zarr driver, rasterio's s3:// URLs, configured only as their documentation says (AWS_S3_ENDPOINT=<host:port>,
AWS_HTTPS=NO, AWS_VIRTUAL_HOSTING=FALSE, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), against a real TCP address
(the relay's, or `npm start`'s S3 port).

stdin: {"tool": "gdal" | "rasterio", "endpoint"?: "127.0.0.1:<port>" (default: the host:port of $EO_EDGE_BASE, the
        relay's address), "key": "...", "secret": "...",
        "reads": [read, ...]}, each read one of
  {"raster": "<bucket>/<key>"}: the object opened as a raster (GDAL: /vsis3/<bucket>/<key>; rasterio:
      s3://<bucket>/<key>) -> {"driver", "size": [width, height], "count", "dtype", "geotransform" (GDAL order),
      "epsg", "data": base64 of band 1's values (C order, little-endian), "md5": hex MD5 of the object's bytes read
      through the same file system (GDAL only)};
  {"zarr": "<bucket>/<prefix>"}: GDAL's Zarr driver on /vsis3/<bucket>/<prefix> as a multidimensional dataset ->
      {"driver", "attrs", "arrays": {"<name>": {"shape", "dtype", "dimensions", "attrs", "data": base64 (C order,
      little-endian)}}};
  {"list": "<bucket>/<prefix>"}: GDAL's recursive listing of /vsis3/<bucket>/<prefix> -> {"files": [...]}.
A read that fails answers {"error": "<GDAL's or rasterio's message>"}.
stdout: {"versions": {...}, "results": [...]} in read order. Exit 3 when the tool's module is missing (tests skip).
"""
import base64
import hashlib
import json
import os
import sys


def configure(request):
    """The documented settings, nothing else; the machine's own AWS profile and session are kept out."""
    os.environ.update({
        "AWS_S3_ENDPOINT": request["endpoint"], "AWS_HTTPS": "NO", "AWS_VIRTUAL_HOSTING": "FALSE",
        "AWS_ACCESS_KEY_ID": request["key"], "AWS_SECRET_ACCESS_KEY": request["secret"],
        "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    })
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE"):
        os.environ.pop(name, None)


def b64(array):
    import numpy as np
    values = np.ascontiguousarray(array)
    return base64.b64encode(values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes()).decode()


def gdal_md5(gdal, path):
    f = gdal.VSIFOpenL(path, "rb")
    if f is None:
        raise RuntimeError(gdal.GetLastErrorMsg() or f"cannot open {path}")
    digest = hashlib.md5()
    try:
        while True:
            chunk = gdal.VSIFReadL(1, 1 << 20, f)
            if not chunk:
                break
            digest.update(chunk)
    finally:
        gdal.VSIFCloseL(f)
    return digest.hexdigest()


def gdal_raster(gdal, osr, name):
    path = f"/vsis3/{name}"
    ds = gdal.Open(path)
    srs = ds.GetSpatialRef()
    band = ds.GetRasterBand(1)
    return {
        "driver": ds.GetDriver().ShortName, "size": [ds.RasterXSize, ds.RasterYSize], "count": ds.RasterCount,
        "dtype": gdal.GetDataTypeName(band.DataType).lower(), "geotransform": list(ds.GetGeoTransform()),
        "epsg": int(srs.GetAuthorityCode(None)) if srs is not None and srs.GetAuthorityCode(None) else None,
        "data": b64(band.ReadAsArray()), "md5": gdal_md5(gdal, path),
    }


def attrs_of(obj):
    return {a.GetName(): a.Read() for a in (obj.GetAttributes() or [])}


def gdal_zarr(gdal, name):
    ds = gdal.OpenEx(f"/vsis3/{name}", gdal.OF_MULTIDIM_RASTER, allowed_drivers=["Zarr"])
    root = ds.GetRootGroup()
    arrays = {}
    for array_name in root.GetMDArrayNames():
        a = root.OpenMDArray(array_name)
        arrays[array_name] = {
            "shape": [d.GetSize() for d in a.GetDimensions()], "dimensions": [d.GetName() for d in a.GetDimensions()],
            "dtype": gdal.GetDataTypeName(a.GetDataType().GetNumericDataType()).lower(), "attrs": attrs_of(a),
            "data": b64(a.ReadAsArray()),
        }
    return {"driver": ds.GetDriver().ShortName, "attrs": attrs_of(root), "arrays": arrays}


def run_gdal(request):
    try:
        from osgeo import gdal, osr
    except ImportError as e:
        sys.stderr.write(f"python3 lacks GDAL: {e} (install python3-gdal python3-numpy)\n")
        sys.exit(3)
    gdal.UseExceptions()
    results = []
    for read in request["reads"]:
        try:
            if "raster" in read:
                results.append(gdal_raster(gdal, osr, read["raster"]))
            elif "zarr" in read:
                results.append(gdal_zarr(gdal, read["zarr"]))
            else:
                results.append({"files": sorted(gdal.ReadDirRecursive(f"/vsis3/{read['list']}") or [])})
        except Exception as e:  # GDAL's message is what the test reports
            results.append({"error": str(e)})
    return {"gdal": gdal.__version__}, results


def run_rasterio(request):
    try:
        import rasterio
    except ImportError as e:
        sys.stderr.write(f"python3 lacks rasterio: {e} (install python3-rasterio)\n")
        sys.exit(3)
    results = []
    for read in request["reads"]:
        try:
            with rasterio.Env(AWS_S3_ENDPOINT=request["endpoint"], AWS_HTTPS="NO", AWS_VIRTUAL_HOSTING=False):
                with rasterio.open(f"s3://{read['raster']}") as ds:
                    t = ds.transform
                    results.append({
                        "driver": ds.driver, "size": [ds.width, ds.height], "count": ds.count, "dtype": ds.dtypes[0],
                        "geotransform": [t.c, t.a, t.b, t.f, t.d, t.e], "epsg": ds.crs.to_epsg() if ds.crs else None,
                        "data": b64(ds.read(1)),
                    })
        except Exception as e:
            results.append({"error": str(e)})
    return {"rasterio": rasterio.__version__, "gdal": rasterio.__gdal_version__}, results


def main():
    request = json.load(sys.stdin)
    request.setdefault("endpoint", os.environ.get("EO_EDGE_BASE", "").removeprefix("http://"))
    configure(request)
    versions, results = (run_gdal if request["tool"] == "gdal" else run_rasterio)(request)
    json.dump({"versions": versions, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
