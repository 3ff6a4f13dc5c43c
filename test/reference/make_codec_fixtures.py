#!/usr/bin/env python3
"""GeoTIFF codec fixtures and GDAL references for the block decoders (src/raster/cog/decode.ts, src/raster/codec).

Run with Debian's python3 (GDAL 3.6.2 + numpy): `/usr/bin/python3 test/reference/make_codec_fixtures.py`
(part of `npm run references`). Writes test/fixtures/codec/*.tif and test/fixtures/codec/refs.json.

The pixels are real: a 48 x 40 crop of the 29RKH Sentinel-2 B04 (and B03, B02 for the 3-band files), turned into
each sample type (UINT8 = DN / 16, INT16 = DN - 1500, FLOAT32 = DN / 10000 with one NaN, FLOAT64 = DN / 10000 +
row * 1e-13, so that all 52 mantissa bits matter). Each is written by gdal_translate's GTiff driver with
COMPRESS=DEFLATE|LZW|ZSTD x PREDICTOR=1|2 (integers) or 1|2|3 (floats), 32 x 32 tiles (partial tiles at the right
and bottom edges), plus strip files (16-row strips, the last one 8 rows), multi-band pixel-interleaved files and a
128 x 128 LZW tile long enough for 12-bit codes and table resets.

refs.json, per real sample COG (level 0, all blocks) and per fixture: size, band count, sample type, and the
SHA-256 of the image as GDAL decodes it (ReadRaster, native type, little-endian, pixel-interleaved), with the first
values and the sum for diagnostics. The script also checks that GDAL decodes every fixture to the source array.
"""
import hashlib, json, os
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data")
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "codec")
S2 = os.path.join(DATA, "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A")
TYPES = {"Byte": "UINT8", "UInt16": "UINT16", "Int16": "INT16", "Float32": "FLOAT32", "Float64": "FLOAT64"}
REAL = ["sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif", "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B08.tif",
        "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B/iw-vv.utm43n-200m.tif"]


def crop(band, x0=400, y0=300, w=48, h=40):
    return gdal.Open(os.path.join(S2, f"{band}.tif")).ReadAsArray(x0, y0, w, h).astype(np.float64)


def typed(dn, name):
    rows = np.arange(dn.shape[-2], dtype=np.float64)[:, None]
    if name == "Byte": return np.clip(dn / 16, 0, 255).astype(np.uint8)
    if name == "UInt16": return dn.astype(np.uint16)
    if name == "Int16": return (dn - 1500).astype(np.int16)
    if name == "Float32":
        out = (dn / 10000).astype(np.float32)
        out[..., 3, 5] = np.nan
        return out
    return dn / 10000 + rows * 1e-13


def image_bytes(ds):
    """GDAL's decoded image: native type, little-endian, pixel-interleaved."""
    dtype = gdal.GetDataTypeName(ds.GetRasterBand(1).DataType)
    arr = np.stack([ds.GetRasterBand(b + 1).ReadAsArray() for b in range(ds.RasterCount)], axis=-1)
    return dtype, arr, arr.astype(arr.dtype.newbyteorder("<")).tobytes()


def describe(ds, dtype, arr, raw):
    flat = arr.reshape(-1)
    return {"width": ds.RasterXSize, "height": ds.RasterYSize, "bands": ds.RasterCount, "type": TYPES.get(dtype, dtype),
            "sha256": hashlib.sha256(raw).hexdigest(), "first": [float(v) for v in flat[:6]],
            "sum": float(np.nansum(flat.astype(np.float64)))}


def write(name, arr, dtype, options):
    """Writes arr (bands, rows, cols) with gdal_translate options; checks GDAL reads back the same samples."""
    bands, h, w = arr.shape
    mem = gdal.GetDriverByName("MEM").Create("", w, h, bands, gdal.GetDataTypeByName(dtype))
    for b in range(bands): mem.GetRasterBand(b + 1).WriteArray(arr[b])
    mem.SetGeoTransform([240000, 10, 0, 2790000, 0, -10])  # the reader requires an EPSG code: 29RKH's UTM 29N
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32629)
    mem.SetProjection(srs.ExportToWkt())
    path = os.path.join(OUT, name)
    gdal.Translate(path, mem, format="GTiff", creationOptions=options)
    ds = gdal.Open(path)
    got_type, got, raw = image_bytes(ds)
    assert np.array_equal(got, np.moveaxis(arr, 0, -1), equal_nan=True), name
    return describe(ds, got_type, got, raw)


def fixtures():
    b04, b03, b02 = crop("B04"), crop("B03"), crop("B02")
    out = {}
    for dtype in TYPES:
        preds = [1, 2, 3] if dtype.startswith("Float") else [1, 2]
        for comp in ["DEFLATE", "LZW", "ZSTD"]:
            for p in preds:
                name = f"{TYPES[dtype].lower()}_{comp.lower()}_p{p}.tif"
                opts = ["TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32", f"COMPRESS={comp}", f"PREDICTOR={p}"]
                out[name] = write(name, typed(b04, dtype)[None], dtype, opts)
    strips = [("uint16_lzw_p2_strips.tif", "UInt16", "LZW", 2), ("float32_zstd_p3_strips.tif", "Float32", "ZSTD", 3),
              ("int16_deflate_p2_strips.tif", "Int16", "DEFLATE", 2)]
    for name, dtype, comp, p in strips:
        out[name] = write(name, typed(b04, dtype)[None], dtype, ["TILED=NO", "BLOCKYSIZE=16", f"COMPRESS={comp}", f"PREDICTOR={p}"])
    rgb = [("rgb_uint16_deflate_p2.tif", "UInt16", "DEFLATE", 2), ("rgb_uint8_lzw_p2.tif", "Byte", "LZW", 2),
           ("rgb_float32_deflate_p3.tif", "Float32", "DEFLATE", 3), ("rgb_float64_zstd_p3.tif", "Float64", "ZSTD", 3)]
    for name, dtype, comp, p in rgb:
        arr = np.stack([typed(b, dtype) for b in (b04, b03, b02)])
        out[name] = write(name, arr, dtype, ["TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32", "INTERLEAVE=PIXEL", f"COMPRESS={comp}", f"PREDICTOR={p}"])
    big = crop("B04", 300, 300, 128, 128).astype(np.uint16)[None]
    out["uint16_lzw_p1_128.tif"] = write("uint16_lzw_p1_128.tif", big, "UInt16", ["TILED=YES", "BLOCKXSIZE=128", "BLOCKYSIZE=128", "COMPRESS=LZW"])
    return out


def real():
    out = {}
    for rel in REAL:
        ds = gdal.Open(os.path.join(DATA, rel))
        out[rel] = describe(ds, *image_bytes(ds))
    return out


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    refs = {"fixtures": fixtures(), "real": real()}
    with open(os.path.join(OUT, "refs.json"), "w") as f:
        json.dump(refs, f, indent=1)
    print(f"{len(refs['fixtures'])} fixtures, {len(refs['real'])} real files -> {OUT}")
