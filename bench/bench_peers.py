#!/usr/bin/env python3
"""Peer baselines for `npm run bench` section `peers`: GDAL and MapServer (mapscript) rendering what EO Edge renders
for the same request over the 29RKH L2A scene, in process, warm.

Usage: bench_peers.py BBOX SIZES, BBOX "w,s,e,n" in degrees (EPSG:4326), SIZES "256,512,1024"; then one request per
line on stdin, JSON {"peer": "GDAL" | "MapServer", "row": "true colour" | "B08", "size": 256}, each answered with one
line on stdout: the ms it took (wall, in process), so that the caller can interleave the peers' runs with its own.
Rows: true colour (B04, B03, B02 x 2.5 as 8 bits, as TRUE_COLOR of bench/bench-peers.mjs) and
one band (B08 x 2.5 as 8 bits), SIZE x SIZE PNG in EPSG:4326, nearest:
- GDAL: gdal.Warp of each band to MEM, numpy scaling, PNG driver into /vsimem;
- MapServer 8 (python3-mapscript): a RASTER layer over a VRT of the bands (built once, before any request),
  PROCESSING SCALE=0,4000 (DN / 10000 x 2.5 x 255), drawn to PNG (mapObj.draw, imageObj.getBytes).
Run with Debian's python3 (python3-gdal, python3-mapscript).
"""
import json, os, sys, time
import numpy as np
from osgeo import gdal
import mapscript

gdal.UseExceptions()
RKH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sentinel-2-l2a", "S2A_29RKH_20200219_0_L2A")
BBOX = [float(v) for v in sys.argv[1].split(",")]
SIZES = [int(s) for s in sys.argv[2].split(",")]
ROWS = {"true colour": ["B04", "B03", "B02"], "B08": ["B08"]}


def gdal_png(bands, size):
    out = []
    for b in bands:
        ds = gdal.Warp("", os.path.join(RKH, b + ".tif"), format="MEM", dstSRS="EPSG:4326", outputBounds=BBOX,
                       width=size, height=size, resampleAlg="near")
        refl = ds.GetRasterBand(1).ReadAsArray().astype(np.float32) / np.float32(10000.0)
        out.append(np.clip(np.rint(refl * 2.5 * 255), 0, 255).astype(np.uint8))
    mem = gdal.GetDriverByName("MEM").Create("", size, size, len(out), gdal.GDT_Byte)
    for i, a in enumerate(out):
        mem.GetRasterBand(i + 1).WriteArray(a)
    gdal.GetDriverByName("PNG").CreateCopy("/vsimem/peer.png", mem)
    size_bytes = gdal.VSIStatL("/vsimem/peer.png").size
    gdal.Unlink("/vsimem/peer.png")
    return size_bytes


def mapserver_map(bands, size):
    vrt = f"/vsimem/peer_{'_'.join(bands)}.vrt"
    gdal.BuildVRT(vrt, [os.path.join(RKH, b + ".tif") for b in bands], separate=True)
    m = mapscript.mapObj()
    m.setProjection("init=epsg:4326")
    m.setExtent(*BBOX)
    m.setSize(size, size)
    m.setOutputFormat(mapscript.outputFormatObj("AGG/PNG", "png"))
    layer = mapscript.layerObj(m)
    layer.type = mapscript.MS_LAYER_RASTER
    layer.status = mapscript.MS_ON
    layer.data = vrt
    layer.setProjection("init=epsg:32629")
    layer.addProcessing("SCALE=0,4000")
    layer.addProcessing("RESAMPLE=NEAREST")
    layer.addProcessing("BANDS=" + ",".join(str(i + 1) for i in range(len(bands))))
    return m


def mapserver_png(m):
    return len(m.draw().getBytes())


maps = {(row, size): mapserver_map(bands, size) for size in SIZES for row, bands in ROWS.items()}
for line in sys.stdin:
    ask = json.loads(line)
    row, size = ask["row"], int(ask["size"])
    t0 = time.perf_counter()
    if ask["peer"] == "GDAL":
        gdal_png(ROWS[row], size)
    else:
        mapserver_png(maps[(row, size)])
    print((time.perf_counter() - t0) * 1000, flush=True)
