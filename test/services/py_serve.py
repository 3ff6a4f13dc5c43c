#!/usr/bin/env python3
"""Serves one of the test services (test/services/py_decode.py, py_s3.py, py_zarr.py) from one long-lived python3
process, for the service bindings of vitest.config.ts (test/services/py-service.mjs): the service's modules (GDAL,
Pillow, tifffile, numpy, botocore, zarr) are imported once instead of once per request.

Usage: py_serve.py <service.py>. The service module defines handle(request) -> answer (both JSON values); importing
it exits with status 3 when python3 lacks one of its modules. Frames on stdin and stdout: a line "<byte length>
<kind>", then that many bytes. In: one "request" frame per request (its JSON). Out: first "ready" (empty), or
"unavailable" with the reason (the module's import exited 3: its stderr message); then one frame per request,
"answer" with the answer's JSON, or "error" with the traceback when handle raised (the process stays up for the
next request).
"""
import importlib.util
import io
import json
import os
import sys
import traceback


def write(out, kind, data):
    out.write(b"%d %s\n" % (len(data), kind))
    out.write(data)
    out.flush()


def load(path):
    """The service module at `path`, or the reason python3 cannot run it (its exit-3 message)."""
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    err, sys.stderr = sys.stderr, io.StringIO()
    try:
        spec.loader.exec_module(module)
        return module, None
    except SystemExit as e:
        return None, sys.stderr.getvalue().strip() or f"{path} exited with {e.code}"
    finally:
        sys.stderr = err


def main():
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must not break the framing
    module, unavailable = load(sys.argv[1])
    write(out, b"unavailable", unavailable.encode()) if unavailable else write(out, b"ready", b"")
    source = sys.stdin.buffer
    while True:
        line = source.readline()
        if not line:
            return
        request = json.loads(source.read(int(line.split()[0])))
        try:
            kind, data = b"answer", json.dumps(module.handle(request)).encode()
        except Exception:
            kind, data = b"error", traceback.format_exc().encode()
        write(out, kind, data)


if __name__ == "__main__":
    main()
