#!/usr/bin/python3
"""Writes the archive twin's constructed STAC items and collections (data/archive/stac/) and its object list
(data/archive/objects.json) from the real fixtures under data/archive/<bucket>/<key> (data/SOURCES.md section 8).

Items are built the way each archive publishes them, from the fixtures' own metadata (GDAL for geometry and grids,
the Landsat MTL.json, the Sentinel-1 productInfo.json): Earth Search v1 (asset hrefs on the AWS buckets) and the
Planetary Computer (hrefs on its Azure storage accounts). Field names and asset keys follow the real items of those
archives (stactools-packages cop-dem / landsat / sentinel1 examples, Earth Search items). Only the Earth Search
sentinel-2-l2a item of 29RKH is a real item copied unchanged; it is not touched here.

Run: /usr/bin/python3 scripts/make_archive_items.py (needs python3-gdal). Deterministic: re-running rewrites the
same files.
"""
import json
from pathlib import Path

from osgeo import gdal

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = ROOT / "data" / "archive"
STAC = ARCHIVE / "stac"
DEM = {
    30: ("copernicus-dem-30m", "Copernicus_DSM_COG_10_N00_00_E006_00_DEM", "COP30_hh"),
    90: ("copernicus-dem-90m", "Copernicus_DSM_COG_30_S90_00_W164_00_DEM", "COP90_hh"),
}
LANDSAT_DIR = "collection02/level-2/standard/oli-tirs/2020/001/062/LC08_L2SP_001062_20201031_20201106_02_T2"
LANDSAT_PRODUCT = "LC08_L2SP_001062_20201031_20201106_02_T2"
S1_DIR = "GRD/2018/7/16/IW/DV/S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A_FD5B"
S1_PRODUCT_INFO = "data/sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B/productInfo.json"
COG = "image/tiff; application=geotiff; profile=cloud-optimized"
COPERNICUS_LICENCE = "https://spacedata.copernicus.eu/documents/20123/121286/CSCDA_ESA_Mission-specific+Annex_31_Oct_22.pdf"
SENTINEL_LICENCE = "https://sentinel.esa.int/documents/247904/690755/Sentinel_Data_Legal_Notice"
LANDSAT_LICENCE = "https://www.usgs.gov/core-science-systems/hdds/data-policy"


def write(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1) + "\n")


def grid(path):
    """proj:shape, proj:transform, bbox and footprint polygon (lon/lat) of a north-up raster in EPSG:4326."""
    ds = gdal.Open(str(path))
    gt, w, h = ds.GetGeoTransform(), ds.RasterXSize, ds.RasterYSize
    west, north = gt[0], gt[3]
    east, south = west + gt[1] * w, north + gt[5] * h
    ring = [[east, south], [east, north], [west, north], [west, south], [east, south]]
    return {"shape": [h, w], "transform": [gt[1], gt[2], gt[0], gt[4], gt[5], gt[3]],
            "bbox": [west, south, east, north], "geometry": {"type": "Polygon", "coordinates": [ring]}}


def item(collection, item_id, props, geometry, bbox, assets, links, extensions):
    return {"type": "Feature", "stac_version": "1.0.0", "stac_extensions": extensions, "id": item_id,
            "collection": collection, "geometry": geometry, "bbox": bbox, "properties": props, "links": links,
            "assets": assets}


def dem_items(objects):
    """cop-dem-glo-30/-90 as Earth Search (AWS copernicus-dem-*) and the Planetary Computer (elevationeuwest) publish them."""
    out = []
    for gsd, (bucket, name, pc_folder) in DEM.items():
        key = f"{name}/{name}.tif"
        file = f"data/archive/{bucket}/{key}"
        g = grid(ROOT / file)
        objects[f"{bucket}/{key}"] = file
        objects[f"elevationeuwest.blob.core.windows.net/copernicus-dem/{pc_folder}/{name}.tif"] = file
        collection = f"cop-dem-glo-{gsd}"
        props = {"datetime": "2021-04-22T00:00:00Z", "platform": "tandem-x", "gsd": gsd, "proj:epsg": 4326,
                 "proj:shape": g["shape"], "proj:transform": g["transform"]}
        band = {"sampling": "point", "data_type": "float32", "spatial_resolution": gsd, "unit": "meter"}
        links = [{"rel": "license", "href": COPERNICUS_LICENCE, "title": "Copernicus DEM licence"}]
        ext = ["https://stac-extensions.github.io/projection/v1.0.0/schema.json", "https://stac-extensions.github.io/raster/v1.1.0/schema.json"]
        for archive, href in (("earth-search", f"https://{bucket}.s3.amazonaws.com/{key}"),
                              ("planetary-computer", f"https://elevationeuwest.blob.core.windows.net/copernicus-dem/{pc_folder}/{name}.tif")):
            data = {"href": href, "type": COG, "title": f"{collection}: {name}", "raster:bands": [band], "roles": ["data"]}
            out.append((archive, item(collection, name, props, g["geometry"], g["bbox"], {"data": data}, links, ext)))
    return out


# Landsat 8 Collection 2 Level-2 assets as stactools-packages/landsat (Planetary Computer) and Earth Search name them:
# asset key -> (file suffix, title, eo:bands common name or None, raster:bands)
SR = {"data_type": "uint16", "nodata": 0, "spatial_resolution": 30, "scale": 2.75e-05, "offset": -0.2, "unit": None}
LANDSAT_ASSETS = {
    "coastal": ("SR_B1.TIF", "Coastal/Aerosol Band (B1)", "coastal", SR),
    "blue": ("SR_B2.TIF", "Blue Band (B2)", "blue", SR),
    "green": ("SR_B3.TIF", "Green Band (B3)", "green", SR),
    "red": ("SR_B4.TIF", "Red Band (B4)", "red", SR),
    "nir08": ("SR_B5.TIF", "Near Infrared Band 0.8 (B5)", "nir08", SR),
    "swir16": ("SR_B6.TIF", "Short-wave Infrared Band 1.6 (B6)", "swir16", SR),
    "swir22": ("SR_B7.TIF", "Short-wave Infrared Band 2.2 (B7)", "swir22", SR),
    "lwir11": ("ST_B10.TIF", "Surface Temperature Band (B10)", "lwir11",
               {"data_type": "uint16", "nodata": 0, "spatial_resolution": 30, "scale": 0.00341802, "offset": 149.0, "unit": "kelvin"}),
    "qa_pixel": ("QA_PIXEL.TIF", "Pixel Quality Assessment Band", None, {"data_type": "uint16", "nodata": 1, "spatial_resolution": 30, "unit": "bit index"}),
}
LANDSAT_META = {"mtl.json": ("MTL.json", "application/json"), "mtl.txt": ("MTL.txt", "text/plain"), "mtl.xml": ("MTL.xml", "application/xml")}
WAVELENGTHS = {"coastal": 0.44, "blue": 0.48, "green": 0.56, "red": 0.65, "nir08": 0.86, "swir16": 1.6, "swir22": 2.2, "lwir11": 10.9}


def landsat_items(objects):
    """landsat-c2-l2 as Earth Search (s3://usgs-landsat, requester pays) and the Planetary Computer (landsateuwest) publish it."""
    mtl = json.loads((ROOT / f"data/archive/usgs-landsat/{LANDSAT_DIR}/{LANDSAT_PRODUCT}_MTL.json").read_text())["LANDSAT_METADATA_FILE"]
    usgs = json.loads((ROOT / f"data/archive/usgs-landsat/{LANDSAT_DIR}/{LANDSAT_PRODUCT}_SR_stac.json").read_text())
    img, proj = mtl["IMAGE_ATTRIBUTES"], mtl["PROJECTION_ATTRIBUTES"]
    item_id = LANDSAT_PRODUCT[:25] + LANDSAT_PRODUCT[34:]  # LC08_L2SP_001062_20201031_02_T2: no processing date
    x0, y0 = float(proj["CORNER_UL_PROJECTION_X_PRODUCT"]) - 15, float(proj["CORNER_UL_PROJECTION_Y_PRODUCT"]) + 15
    props = {
        "datetime": f"{img['DATE_ACQUIRED']}T{img['SCENE_CENTER_TIME'][:15]}Z", "platform": "landsat-8", "instruments": ["oli", "tirs"],
        "eo:cloud_cover": float(img["CLOUD_COVER"]), "landsat:cloud_cover_land": float(img["CLOUD_COVER_LAND"]),
        "view:off_nadir": 0, "view:sun_azimuth": float(img["SUN_AZIMUTH"]), "view:sun_elevation": float(img["SUN_ELEVATION"]),
        "landsat:wrs_type": img["WRS_TYPE"], "landsat:wrs_path": img["WRS_PATH"].zfill(3), "landsat:wrs_row": img["WRS_ROW"].zfill(3),
        "landsat:collection_category": mtl["PRODUCT_CONTENTS"]["COLLECTION_CATEGORY"], "landsat:collection_number": "02",
        "landsat:correction": "L2SP", "landsat:product_id": LANDSAT_PRODUCT, "landsat:scene_id": usgs["properties"]["landsat:scene_id"],
        "proj:epsg": 32600 + int(proj["UTM_ZONE"]), "proj:shape": [int(proj["REFLECTIVE_LINES"]), int(proj["REFLECTIVE_SAMPLES"])],
        "proj:transform": [30.0, 0.0, x0, 0.0, -30.0, y0], "gsd": 30,
    }
    links = [{"rel": "license", "href": LANDSAT_LICENCE, "title": "Public Domain"},
             {"rel": "cite-as", "href": mtl["PRODUCT_CONTENTS"]["DIGITAL_OBJECT_IDENTIFIER"], "title": "Landsat 8-9 OLI/TIRS Collection 2 Level-2"}]
    ext = ["https://stac-extensions.github.io/eo/v1.0.0/schema.json", "https://stac-extensions.github.io/raster/v1.1.0/schema.json",
           "https://stac-extensions.github.io/projection/v1.0.0/schema.json", "https://stac-extensions.github.io/view/v1.0.0/schema.json",
           "https://landsat.usgs.gov/stac/landsat-extension/v1.1.1/schema.json"]
    out = []
    for archive, base in (("earth-search", f"s3://usgs-landsat/{LANDSAT_DIR}/"),
                          ("planetary-computer", f"https://landsateuwest.blob.core.windows.net/landsat-c2/{LANDSAT_DIR.split('/', 1)[1]}/")):
        assets = {}
        for key, (suffix, title, common, band) in LANDSAT_ASSETS.items():
            a = {"href": f"{base}{LANDSAT_PRODUCT}_{suffix}", "type": COG, "title": title,
                 "raster:bands": [{k: v for k, v in band.items() if v is not None}], "roles": ["data"] if common else ["cloud", "cloud-shadow", "snow-ice", "water-mask"]}
            if common:
                a["eo:bands"] = [{"name": suffix.split(".")[0].split("_", 1)[1], "common_name": common, "center_wavelength": WAVELENGTHS[common]}]
            if archive == "earth-search":
                a["alternate"] = {"https": {"href": f"https://landsatlook.usgs.gov/data/{LANDSAT_DIR}/{LANDSAT_PRODUCT}_{suffix}"}}
            assets[key] = a
        for key, (suffix, media) in LANDSAT_META.items():
            assets[key] = {"href": f"{base}{LANDSAT_PRODUCT}_{suffix}", "type": media, "title": f"Product Metadata File ({suffix.split('.')[1]})", "roles": ["metadata"]}
        out.append((archive, item("landsat-c2-l2", item_id, props, usgs["geometry"], usgs["bbox"], assets, links, ext)))
    for suffix in [v[0] for v in LANDSAT_ASSETS.values()] + [v[0] for v in LANDSAT_META.values()] + ["SR_stac.json", "ST_stac.json"]:
        file = f"data/archive/usgs-landsat/{LANDSAT_DIR}/{LANDSAT_PRODUCT}_{suffix}"
        objects[f"usgs-landsat/{LANDSAT_DIR}/{LANDSAT_PRODUCT}_{suffix}"] = file
        if not suffix.endswith("stac.json"):
            objects[f"landsateuwest.blob.core.windows.net/landsat-c2/{LANDSAT_DIR.split('/', 1)[1]}/{LANDSAT_PRODUCT}_{suffix}"] = file
    return out


def s1_items(objects):
    """sentinel-1-grd as Earth Search (s3://sentinel-s1-l1c, requester pays) and the Planetary Computer (sentinel1euwest) publish it."""
    info = json.loads((ROOT / S1_PRODUCT_INFO).read_text())
    ring = info["footprint"]["coordinates"][0]
    lons, lats = [p[0] for p in ring], [p[1] for p in ring]
    mission = info["missionId"]
    props = {
        "datetime": info["startTime"] + "Z", "start_datetime": info["startTime"] + "Z", "end_datetime": info["stopTime"] + "Z",
        "platform": f"sentinel-{mission[1:].lower()}", "constellation": "sentinel-1", "instruments": ["c-sar"],
        "sar:instrument_mode": info["mode"], "sar:frequency_band": "C", "sar:center_frequency": 5.405, "sar:product_type": info["productType"],
        "sar:polarizations": ["VV", "VH"], "sar:resolution_range": 20, "sar:resolution_azimuth": 22, "sar:pixel_spacing_range": 10,
        "sar:pixel_spacing_azimuth": 10, "sar:looks_range": 5, "sar:looks_azimuth": 1, "sar:looks_equivalent_number": 4.4,
        "sar:observation_direction": "right", "sat:absolute_orbit": info["absoluteOrbitNumber"], "sat:orbit_state": "descending",
        "sat:relative_orbit": (info["absoluteOrbitNumber"] - 73) % 175 + 1,  # Sentinel-1A's 175-orbit cycle "s1:datatake_id": str(info["missionDataTakeId"]),
        "s1:product_identifier": info["id"], "s1:resolution": "high", "s1:processing_level": "1",
    }
    links = [{"rel": "license", "href": SENTINEL_LICENCE, "title": "Sentinel Data Legal Notice"}]
    ext = ["https://stac-extensions.github.io/sar/v1.0.0/schema.json", "https://stac-extensions.github.io/sat/v1.0.0/schema.json"]
    out = []
    item_id = info["id"][:-5]  # stactools-sentinel1's ids (both archives') drop the product's 4-character checksum
    for archive, base in (("earth-search", f"s3://sentinel-s1-l1c/{S1_DIR}/"),
                          ("planetary-computer", f"https://sentinel1euwest.blob.core.windows.net/s1-grd/{S1_DIR}/")):
        assets = {pol: {"href": f"{base}measurement/iw-{pol}.tiff", "type": "image/tiff; application=geotiff; profile=cloud-optimized",
                        "title": f"{pol.upper()} Data", "description": "Actual SAR data that have been processed into an image",
                        "raster:bands": [{"data_type": "uint16", "nodata": 0}], "roles": ["data", "amplitude"]} for pol in ("vh", "vv")}
        if archive == "earth-search":
            assets["productInfo"] = {"href": f"{base}productInfo.json", "type": "application/json", "title": "Product Info", "roles": ["metadata"]}
        out.append((archive, item("sentinel-1-grd", item_id, props, {"type": "Polygon", "coordinates": [ring]},
                                  [min(lons), min(lats), max(lons), max(lats)], assets, links, ext)))
    for pol in ("vh", "vv"):
        file = f"data/archive/sentinel-s1-l1c/{S1_DIR}/measurement/iw-{pol}.tiff"
        objects[f"sentinel-s1-l1c/{S1_DIR}/measurement/iw-{pol}.tiff"] = file
        objects[f"sentinel1euwest.blob.core.windows.net/s1-grd/{S1_DIR}/measurement/iw-{pol}.tiff"] = file
    objects[f"sentinel-s1-l1c/{S1_DIR}/productInfo.json"] = S1_PRODUCT_INFO
    return out


COLLECTIONS = {
    "cop-dem-glo-30": ("Copernicus DEM GLO-30", "The Copernicus DEM is a Digital Surface Model (DSM) which represents the surface of the Earth including buildings, infrastructure and vegetation. GLO-30 provides limited worldwide coverage at 30 meters.", COPERNICUS_LICENCE, [[-180, -90, 180, 90]], ["2021-04-22T00:00:00Z", "2021-04-22T00:00:00Z"]),
    "cop-dem-glo-90": ("Copernicus DEM GLO-90", "The Copernicus DEM is a Digital Surface Model (DSM) which represents the surface of the Earth including buildings, infrastructure and vegetation. GLO-90 provides worldwide coverage at 90 meters.", COPERNICUS_LICENCE, [[-180, -90, 180, 90]], ["2021-04-22T00:00:00Z", "2021-04-22T00:00:00Z"]),
    "landsat-c2-l2": ("Landsat Collection 2 Level-2", "Atmospherically corrected global Landsat Collection 2 Level-2 data from the Thematic Mapper (TM), Enhanced Thematic Mapper Plus (ETM+) and Operational Land Imager (OLI) / Thermal Infrared Sensor (TIRS).", LANDSAT_LICENCE, [[-180, -90, 180, 90]], ["1982-08-22T00:00:00Z", None]),
    "sentinel-1-grd": ("Sentinel-1 Level-1C Ground Range Detected (GRD)", "Sentinel-1 is a pair of Synthetic Aperture Radar (SAR) imaging satellites launched in 2014 and 2016 by the European Space Agency (ESA). Level-1 Ground Range Detected (GRD) products.", SENTINEL_LICENCE, [[-180, -90, 180, 90]], ["2014-10-10T00:28:21Z", None]),
}
PUBLISHED = {"earth-search": ["cop-dem-glo-30", "cop-dem-glo-90", "landsat-c2-l2", "sentinel-1-grd"],
             "planetary-computer": ["cop-dem-glo-30", "cop-dem-glo-90", "landsat-c2-l2", "sentinel-1-grd"]}


def collection(cid):
    title, description, licence, bbox, interval = COLLECTIONS[cid]
    return {"type": "Collection", "stac_version": "1.0.0", "id": cid, "title": title, "description": description,
            "license": "proprietary",
            "extent": {"spatial": {"bbox": bbox}, "temporal": {"interval": [interval]}},
            "links": [{"rel": "license", "href": licence}], "eoedge:constructed": True}


def main():
    objects = json.loads((ARCHIVE / "objects.json").read_text())
    objects = {k: v for k, v in objects.items() if k.startswith("sentinel-cogs/")}  # 29RKH: written by hand, kept
    items = dem_items(objects) + landsat_items(objects) + s1_items(objects)
    for archive, it in items:
        it["properties"]["eoedge:constructed"] = True
        write(STAC / archive / it["collection"] / f"{it['id']}.json", it)
    for archive, ids in PUBLISHED.items():
        for cid in ids:
            write(STAC / archive / "collections" / f"{cid}.json", collection(cid))
    for file in objects.values():
        assert (ROOT / file).is_file(), file
    write(ARCHIVE / "objects.json", dict(sorted(objects.items())))
    print(f"{len(items)} items, {len(objects)} objects")


if __name__ == "__main__":
    main()
