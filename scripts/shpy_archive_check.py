"""sentinelhub-py 3.11.5 Process, Catalog and Statistical requests against `npm start` over items only the archive
holds (dem from Copernicus GLO-30 through the archive twin, landsat-ot-l2), compared with GDAL's reading of the same
COGs (test/fixtures/archive-reads, see its README). Run by hand (sentinelhub-py from its sources, as
/work/shared/docs/clients.md describes; not part of the test suite, which needs only npm and Debian packages):

  PYTHONPATH=<sentinelhub-py pylib> OAUTHLIB_INSECURE_TRANSPORT=1 /usr/bin/python3 scripts/shpy_archive_check.py \
    http://127.0.0.1:8787 <demo client id> <demo client secret> test/fixtures/archive-reads
"""
import sys, numpy as np
from sentinelhub import (SHConfig, DataCollection, SentinelHubRequest, MimeType, BBox, CRS, SentinelHubCatalog,
                         SentinelHubStatistical, Geometry)
base, cid, secret, fixtures = sys.argv[1:5]
config = SHConfig()
config.sh_base_url = base
config.sh_token_url = base + "/auth/realms/main/protocol/openid-connect/token"
config.sh_client_id, config.sh_client_secret = cid, secret
DEM = DataCollection.DEM_COPERNICUS_30.define_from("eoedge-dem30", service_url=base)
bbox = BBox((6.499861111111112, 0.17902777777777779, 6.570972222222224, 0.2501388888888889), CRS.WGS84)
script = """//VERSION=3
function setup(){return {input:["DEM"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [s.DEM]}"""
req = SentinelHubRequest(evalscript=script, input_data=[SentinelHubRequest.input_data(data_collection=DEM)],
                         responses=[SentinelHubRequest.output_response("default", MimeType.TIFF)], bbox=bbox, size=(256, 256), config=config)
got = req.get_data()[0]
ref = np.fromfile(f"{fixtures}/dem30.bin", dtype="<f4").reshape(256, 256)
print("process dem:", got.shape, got.dtype, "max |diff| vs GDAL:", float(np.abs(got - ref).max()))
assert np.array_equal(got, ref)

LOT = DataCollection.LANDSAT_OT_L2.define_from("eoedge-lotl2", service_url=base)
catalog = SentinelHubCatalog(config=config)
items = list(catalog.search(LOT, bbox=BBox((-66, -3.5, -65, -2.5), CRS.WGS84), time=("2020-10-01", "2020-11-30")))
print("catalog landsat-ot-l2:", [i["id"] for i in items], "B04 href:", items[0]["assets"]["B04"]["href"] if items else None)
assert [i["id"] for i in items] == ["LC08_L2SP_001062_20201031_02_T2"]

stats_script = """//VERSION=3
function setup(){return {input:["DEM","dataMask"], output:[{id:"dem", bands:1, sampleType:"FLOAT32"},{id:"dataMask", bands:1}]}}
function evaluatePixel(s){return {dem:[s.DEM], dataMask:[s.dataMask]}}"""
stat = SentinelHubStatistical(aggregation=SentinelHubStatistical.aggregation(evalscript=stats_script, time_interval=("2021-04-01", "2021-05-01"),
                              aggregation_interval="P30D", size=(256, 256)), input_data=[SentinelHubStatistical.input_data(DEM)], bbox=bbox, config=config)
res = stat.get_data()[0]
s = res["data"][0]["outputs"]["dem"]["bands"]["B0"]["stats"]
print("statistics dem:", {k: s[k] for k in ("min", "max", "mean", "sampleCount")}, "GDAL/numpy mean:", float(ref.astype(np.float64).mean()))
assert abs(s["mean"] - float(ref.astype(np.float64).mean())) < 1e-3 and abs(s["min"] - float(ref.min())) < 1e-3 and abs(s["max"] - float(ref.max())) < 1e-3
print("OK")
