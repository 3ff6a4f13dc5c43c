#!/usr/bin/env python3
"""Decodes EO Edge outputs with the decoders real clients use, for the tests (the PY_DECODE service binding of
vitest.config.ts serves handle() below from long-lived python3 processes, test/services/py_serve.py).

- PNG, JPEG: Pillow (what sentinelhub-py's decode_image uses for them) and GDAL (libpng / libjpeg).
- TIFF: tifffile (sentinelhub-py's TIFF decoder) WITHOUT imagecodecs (its import is blocked below, as after a plain
  `pip install sentinelhub`), Pillow (libtiff) and GDAL (/vsimem/), with GDAL's geotransform, EPSG and nodata.
- tar: Python's tarfile, as sentinelhub-py's decode_tar opens it; each member decoded by its extension.
- multipart/mixed: Python's email package; each part decoded by its Content-Type.

- cog: a TIFF as above plus GDAL's Cloud Optimized GeoTIFF validator: {"cog": {"warnings", "errors", "overviews", "block"}}.

stdin: JSON {"items": [{"kind": "png" | "jpeg" | "tiff" | "cog" | "tar" | "multipart", "data": "<base64>",
                        "contentType": "<for multipart: the response Content-Type>"}]}
stdout: JSON {"imagecodecs": false, "versions": {...}, "results": [<one per item>]}. An array is reported as
{"shape", "dtype", "data": "<base64 of its C-order little-endian bytes>"} (multi-band images (rows, cols, bands),
GDAL's bands moved last to match). A decoder that fails gives {"error": "<message>"} in place of its result.
Exit status 3 with a message on stderr when python3 lacks one of the modules (the tests are then skipped).
"""
import base64, io, json, sys

sys.modules["imagecodecs"] = None  # `import imagecodecs` now raises ImportError, whether installed or not

try:
    import email, email.policy, tarfile
    import numpy as np
    import tifffile
    from PIL import Image
    from osgeo import gdal, osr
except ImportError as e:
    sys.stderr.write(f"python3 lacks a decoder module: {e} (install gdal-bin python3-gdal python3-tifffile python3-pil python3-numpy)\n")
    sys.exit(3)

gdal.UseExceptions()


def array(a):
    a = np.ascontiguousarray(a)
    le = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": base64.b64encode(le.tobytes()).decode()}


def guarded(fn, data):
    try:
        return fn(data)
    except Exception as e:  # report, never crash: a decoder refusing a file is a result the tests assert
        return {"error": f"{type(e).__name__}: {e}"}


def pillow(data):
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        return {"format": im.format, "mode": im.mode, "size": list(im.size), **array(np.asarray(im))}


def gdal_open(data):
    name = "/vsimem/py_decode_input"
    gdal.FileFromMemBuffer(name, data)
    try:
        ds = gdal.Open(name)
        arr = ds.ReadAsArray()
        if arr.ndim == 3:
            arr = np.moveaxis(arr, 0, -1)
        srs = ds.GetSpatialRef()
        band = ds.GetRasterBand(1)
        nodata = band.GetNoDataValue()
        return {
            "driver": ds.GetDriver().ShortName,
            "geotransform": list(ds.GetGeoTransform()) if srs is not None else None,
            "epsg": int(srs.GetAuthorityCode(None)) if srs is not None and srs.GetAuthorityCode(None) else None,
            "nodata": None if nodata is None else ("nan" if np.isnan(nodata) else nodata),
            **array(arr),
        }
    finally:
        gdal.Unlink(name)


def tiff_file(data):
    with tifffile.TiffFile(io.BytesIO(data)) as tif:
        page = tif.pages[0]
        return {"compression": int(page.compression), "predictor": int(page.predictor), **array(tif.asarray())}


def image(kind, data):
    out = {"pillow": guarded(pillow, data), "gdal": guarded(gdal_open, data)}
    if kind == "tiff":
        out["tifffile"] = guarded(tiff_file, data)
    return out


def by_name(name, data):
    ext = name.rsplit(".", 1)[-1].lower()
    if ext == "json":
        return {"json": json.loads(data.decode("utf-8"))}
    return image({"tif": "tiff", "tiff": "tiff", "jpg": "jpeg", "jpeg": "jpeg"}.get(ext, ext), data)


def tar(data):
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        members = []
        for m in t.getmembers():
            content = t.extractfile(m).read()
            members.append({"name": m.name, "size": m.size, "type": "file" if m.isfile() else "other", **by_name(m.name, content)})
        return {"members": members}


def multipart(data, content_type):
    msg = email.message_from_bytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + data, policy=email.policy.HTTP)
    parts = []
    for part in msg.iter_parts():
        body = part.get_payload(decode=True)
        parts.append({
            "headers": {k.lower(): str(v) for k, v in part.items()},
            "contentType": part.get_content_type(),
            "filename": part.get_filename(),
            "size": len(body),
            **by_name(part.get_filename() or "", body),
        })
    return {"multipart": msg.is_multipart(), "defects": [str(d) for d in msg.defects], "parts": parts}


def cog(data):
    """GDAL's COG validator (osgeo_utils.samples.validate_cloud_optimized_geotiff, as shipped with python3-gdal)."""
    from osgeo_utils.samples import validate_cloud_optimized_geotiff as v
    name = "/vsimem/py_decode_cog.tif"
    gdal.FileFromMemBuffer(name, data)
    try:
        ds = gdal.Open(name)
        warnings, errors, details = v.validate(ds, full_check=True)
        band = ds.GetRasterBand(1)
        overviews = [[band.GetOverview(i).XSize, band.GetOverview(i).YSize] for i in range(band.GetOverviewCount())]
        return {"warnings": warnings, "errors": errors, "overviews": overviews, "block": list(band.GetBlockSize())}
    finally:
        gdal.Unlink(name)


def decode(item):
    data = base64.b64decode(item["data"])
    kind = item["kind"]
    if kind == "cog":
        return {"cog": guarded(cog, data), **image("tiff", data)}
    if kind == "tar":
        return guarded(tar, data)
    if kind == "multipart":
        return guarded(lambda d: multipart(d, item["contentType"]), data)
    return image(kind, data)


def importable(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def handle(request):
    """The answer to one request (stdin's JSON above); test/services/py_serve.py calls it for each of many."""
    return {
        "imagecodecs": importable("imagecodecs"),
        "versions": {"pillow": Image.__version__, "tifffile": tifffile.__version__, "gdal": gdal.__version__, "numpy": np.__version__},
        "results": [decode(i) for i in request["items"]],
    }


if __name__ == "__main__":
    json.dump(handle(json.load(sys.stdin)), sys.stdout)
