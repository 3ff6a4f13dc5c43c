"""Shared GDAL helpers of the reference scripts (references.py, ref_statistics.py). Debian's python3-gdal."""
import json
from osgeo import gdal, ogr, osr

gdal.UseExceptions()


def rasterize(ring, grid):
    """gdal.RasterizeLayer of a polygon ring onto grid {epsg, bbox, width, height}: True where the pixel centre is inside."""
    return rasterize_geometry({"type": "Polygon", "coordinates": [ring]}, grid)


def rasterize_geometry(geometry, grid):
    """gdal.RasterizeLayer of a GeoJSON (Multi)Polygon in the grid's CRS onto grid {epsg, bbox, width, height}
    (pixel centres, no ALL_TOUCHED): a boolean array, row 0 north."""
    ds = gdal.GetDriverByName("MEM").Create("", grid["width"], grid["height"], 1, gdal.GDT_Byte)
    x0, y0, x1, y1 = grid["bbox"]
    ds.SetGeoTransform([x0, (x1 - x0) / grid["width"], 0, y1, 0, -(y1 - y0) / grid["height"]])
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(grid["epsg"])
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    ds.SetProjection(srs.ExportToWkt())
    vds = ogr.GetDriverByName("Memory").CreateDataSource("")
    lyr = vds.CreateLayer("p", srs, ogr.wkbUnknown)
    f = ogr.Feature(lyr.GetLayerDefn())
    f.SetGeometry(ogr.CreateGeometryFromJson(json.dumps(geometry)))
    lyr.CreateFeature(f)
    gdal.RasterizeLayer(ds, [1], lyr, burn_values=[1])
    return ds.GetRasterBand(1).ReadAsArray() == 1


def gis_srs(epsg):
    """osr.SpatialReference of an EPSG code in traditional GIS axis order (x = easting / longitude)."""
    s = osr.SpatialReference()
    s.ImportFromEPSG(epsg)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s
