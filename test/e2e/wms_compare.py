"""Compares two rasters band by band with GDAL (the first `bands` bands): prints JSON
{"width", "height", "bands", "differing": <pixels whose value differs in any band>, "maxDiff", "distinct": <distinct
values of band 1 in the first file>}. Usage: wms_compare.py <gdal-output> <process-output> <bands>."""
import json
import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()
a_ds, b_ds = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
n = int(sys.argv[3])
a = np.stack([a_ds.GetRasterBand(i + 1).ReadAsArray().astype(np.int32) for i in range(n)])
b = np.stack([b_ds.GetRasterBand(i + 1).ReadAsArray().astype(np.int32) for i in range(n)])
if a.shape != b.shape:
    print(json.dumps({"error": f"shapes differ: {a.shape} vs {b.shape}"}))
    sys.exit(1)
diff = np.abs(a - b)
print(json.dumps({"width": int(a.shape[2]), "height": int(a.shape[1]), "bands": n, "differing": int((diff.max(axis=0) > 0).sum()),
                  "maxDiff": int(diff.max()), "distinct": int(np.unique(a[0]).size)}))
