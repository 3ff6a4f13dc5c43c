/**
 * WMTS 1.0.0 GetCapabilities (OGC 07-057r7, KVP encoding) of an instance: each layer with its WGS84 extent, styles,
 * formats, a TIME dimension and links to Sentinel Hub's tile matrix sets PopularWebMercator256 / 512 (EPSG:3857,
 * top-left corner (-20037508.34, 20037508.34), 2^z x 2^z tiles at matrix z, 0..MAX_ZOOM; scale denominator =
 * resolution / 0.00028 m, the standardized rendering pixel size of OGC 07-057r7 6.1).
 */
import { XMLBuilder } from "fast-xml-parser";
import type { LayerInput } from "./configuration/schema";
import { isoDay, type LayerExtent } from "./capabilities";
import { MAP_FORMATS } from "./params";
import { defaultWindow } from "./render";
import { MAX_ZOOM, MERCATOR_HALF } from "./tiles";

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  format: true,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});
const PIXEL_SIZE_M = 0.00028;

/** One tile matrix set of `size` px tiles, matrices 0..MAX_ZOOM. */
function matrixSet(size: number) {
  return {
    "ows:Identifier": `PopularWebMercator${size}`,
    "ows:SupportedCRS": "urn:ogc:def:crs:EPSG::3857",
    TileMatrix: Array.from({ length: MAX_ZOOM + 1 }, (_, z) => ({
      "ows:Identifier": String(z),
      ScaleDenominator: (2 * MERCATOR_HALF) / (size * 2 ** z) / PIXEL_SIZE_M,
      TopLeftCorner: `${-MERCATOR_HALF} ${MERCATOR_HALF}`,
      TileWidth: size,
      TileHeight: size,
      MatrixWidth: 2 ** z,
      MatrixHeight: 2 ** z,
    })),
  };
}

function operation(name: string, href: string) {
  const kvp = { "ows:Constraint": { "@name": "GetEncoding", "ows:AllowedValues": { "ows:Value": "KVP" } } };
  return { "@name": name, "ows:DCP": { "ows:HTTP": { "ows:Get": { "@xlink:href": href, ...kvp } } } };
}

function layerElement(l: LayerInput, extent: LayerExtent | undefined) {
  const b = extent?.bbox ?? [-180, -85.0511287798, 180, 85.0511287798];
  const w = defaultWindow(l);
  return {
    "ows:Title": l.title ?? l.id,
    "ows:Abstract": l.description ?? "",
    "ows:WGS84BoundingBox": { "ows:LowerCorner": `${b[0]} ${b[1]}`, "ows:UpperCorner": `${b[2]} ${b[3]}` },
    "ows:Identifier": l.id,
    Style: l.styles.map((s, i) => ({ "@isDefault": String(i === 0), "ows:Identifier": s.name })),
    Format: [...MAP_FORMATS],
    Dimension: {
      "ows:Identifier": "time",
      Default: `${isoDay(w.from)}/${isoDay(w.to)}`,
      Value: extent ? `${extent.interval[0]}/${extent.interval[1]}/P1D` : `${isoDay(w.from)}/${isoDay(w.to)}/P1D`,
    },
    TileMatrixSetLink: [{ TileMatrixSet: "PopularWebMercator256" }, { TileMatrixSet: "PopularWebMercator512" }],
  };
}

/** The WMTS capabilities XML of an instance served at `url` (`<base>/ogc/wmts/<id>`); extents as in capabilitiesXml. */
export function wmtsCapabilitiesXml(
  url: string,
  title: string,
  layers: LayerInput[],
  extents: Map<string, LayerExtent>,
  collectionOf: (l: LayerInput) => string,
): string {
  const href = `${url}?`;
  const doc = {
    "?xml": { "@version": "1.0", "@encoding": "UTF-8" },
    Capabilities: {
      "@xmlns": "http://www.opengis.net/wmts/1.0",
      "@xmlns:ows": "http://www.opengis.net/ows/1.1",
      "@xmlns:xlink": "http://www.w3.org/1999/xlink",
      "@version": "1.0.0",
      "ows:ServiceIdentification": {
        "ows:Title": title,
        "ows:ServiceType": "OGC WMTS",
        "ows:ServiceTypeVersion": "1.0.0",
      },
      "ows:OperationsMetadata": { "ows:Operation": [operation("GetCapabilities", href), operation("GetTile", href)] },
      Contents: {
        Layer: layers.map((l) => layerElement(l, extents.get(collectionOf(l)))),
        TileMatrixSet: [matrixSet(256), matrixSet(512)],
      },
    },
  };
  return builder.build(doc) as string;
}
