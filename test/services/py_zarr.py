#!/usr/bin/env python3
"""Reads a Zarr v2 store with zarr-python (Debian python3-zarr, numcodecs), for the tests of Batch Zarr output
(the PY_ZARR service binding of vitest.config.ts serves handle() below, test/services/py_serve.py): an oracle independent of the
TypeScript writer and of zarrita.

stdin: JSON {"files": {"<key relative to the group>": "<base64>"}}: the store's objects, written to a temporary
directory (a DirectoryStore) and opened with zarr.open_group(mode="r").
stdout: JSON {"versions": {...}, "attrs": {group attributes}, "arrays": {"<name>": {"shape", "chunks", "zdtype" (e.g. "<u2"), "dtype" (numpy name),
"fill_value", "compressor", "attrs", "data": "<base64 of the C-order little-endian values>",
"values": [the values of a 1-D array, else null]}}}.
Exit status 3 with a message on stderr when python3 lacks zarr or numpy (the tests are then skipped).
"""
import base64, json, os, sys, tempfile

try:
    import numpy as np
    import numcodecs
    import zarr
except ImportError as e:
    sys.stderr.write(f"python3 lacks a module: {e} (install python3-zarr python3-numpy)\n")
    sys.exit(3)


def handle(request):
    """The answer to one request (stdin's JSON above); test/services/py_serve.py calls it for each of many."""
    with tempfile.TemporaryDirectory() as root:
        for key, data in request["files"].items():
            path = os.path.join(root, *key.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(base64.b64decode(data))
        group = zarr.open_group(root, mode="r")
        arrays = {}
        for name, a in group.arrays():
            values = np.ascontiguousarray(a[...])
            le = values.astype(values.dtype.newbyteorder("<"), copy=False)
            arrays[name] = {
                "shape": list(a.shape), "chunks": list(a.chunks), "zdtype": a.dtype.str, "dtype": le.dtype.name, "fill_value": None if a.fill_value is None else float(a.fill_value),
                "compressor": a.compressor.get_config() if a.compressor else None, "attrs": a.attrs.asdict(),
                "data": base64.b64encode(le.tobytes()).decode(), "values": values.tolist() if values.ndim == 1 else None,
            }
        return {"versions": {"zarr": zarr.__version__, "numcodecs": numcodecs.__version__}, "attrs": group.attrs.asdict(), "arrays": arrays}


if __name__ == "__main__":
    json.dump(handle(json.load(sys.stdin)), sys.stdout)
