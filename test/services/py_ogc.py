#!/usr/bin/env python3
"""OGC clients against EO Edge's WMS/WMTS, for the tests of src/wms (test/wms/clients.test.ts, run through the
CLIENT_RELAY of vitest.config.ts, which gives the server's address in $EO_EDGE_BASE): OWSLib's WebMapService and
GDAL's WMS and WMTS drivers (the gdalinfo and gdal_translate programs), as users run them, unmodified.

stdin: {"client": "owslib", "url": "<instance WMS URL>", "version": "1.1.1" | "1.3.0",
        "getmap": {"layer", "srs", "bbox": [4 numbers in the order OWSLib is given them], "size": [w, h],
                   "format", "time"?}}
    -> {"version", "type", "title", "formats", "layers": {name: {"title", "bbox84", "crs", "styles", "time"}},
        "getmap": {"content_type", "data": base64}}
       (OWSLib reads GetCapabilities of `version` itself, then sends GetMap; "url" is relative to $EO_EDGE_BASE)
stdin: {"client": "gdal", "info": ["WMS:<url>", ...], "translate": [{"source": "WMS:<url>" | "WMTS:<url>",
        "args": [...gdal_translate options]}, ...]}
    -> {"info": [gdalinfo -json of each], "translate": [{"data": base64 PNG written by gdal_translate}, ...]}
       (URLs are relative to $EO_EDGE_BASE: "WMS:/ogc/wms/<id>?..." becomes "WMS:$EO_EDGE_BASE/ogc/wms/<id>?...")
stdout: that JSON. Exit 3 when OWSLib or a GDAL program is missing (the tests then skip), 1 with the error otherwise.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

BASE = os.environ.get("EO_EDGE_BASE", "")


def owslib(req):
    try:
        from owslib.wms import WebMapService
    except ImportError as e:
        sys.stderr.write(f"OWSLib missing (Debian: apt-get install python3-owslib): {e}\n")
        sys.exit(3)
    wms = WebMapService(BASE + req["url"], version=req["version"])
    layers = {}
    for name, layer in wms.contents.items():
        layers[name] = {
            "title": layer.title,
            "bbox84": list(layer.boundingBoxWGS84) if layer.boundingBoxWGS84 else None,
            "crs": sorted({c if isinstance(c, str) else c[4] for c in (layer.crsOptions or [])}),
            "styles": sorted(layer.styles.keys()),
            "time": layer.timepositions,
        }
    g = req["getmap"]
    options = {"layers": [g["layer"]], "srs": g["srs"], "bbox": tuple(g["bbox"]), "size": tuple(g["size"]), "format": g["format"]}
    if g.get("time"):
        options["time"] = g["time"]
    image = wms.getmap(**options)
    return {
        "version": wms.identification.version,
        "type": wms.identification.type,
        "title": wms.identification.title,
        "formats": wms.getOperationByName("GetMap").formatOptions,
        "layers": layers,
        "getmap": {"content_type": image.info().get("Content-Type"), "data": base64.b64encode(image.read()).decode()},
    }


def absolute(source):
    """`WMS:/ogc/...` -> `WMS:<base>/ogc/...` (the driver prefix kept)."""
    driver, _, rest = source.partition(":")
    return f"{driver}:{BASE}{rest}"


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[:2000]}")
    return r.stdout


def gdal(req):
    for program in ("gdalinfo", "gdal_translate"):
        if not shutil.which(program):
            sys.stderr.write(f"{program} missing (Debian: apt-get install gdal-bin)\n")
            sys.exit(3)
    out = {"info": [json.loads(run(["gdalinfo", "-json", absolute(s)])) for s in req.get("info", [])], "translate": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(req.get("translate", [])):
            path = os.path.join(tmp, f"{i}.png")
            run(["gdal_translate", "-q", "-of", "PNG", *t.get("args", []), absolute(t["source"]), path])
            with open(path, "rb") as f:
                out["translate"].append({"data": base64.b64encode(f.read()).decode()})
    return out


def main():
    req = json.load(sys.stdin)
    result = owslib(req) if req["client"] == "owslib" else gdal(req)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
