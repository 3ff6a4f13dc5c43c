/**
 * WMS 1.3.0 GetCapabilities document (OGC 06-042 7.2.4, schema capabilities_1_3_0.xsd): one root layer per
 * instance (the advertised CRSs, a world EX_GeographicBoundingBox) with a named child per configured layer, each
 * with its collection's extent (EX_GeographicBoundingBox + CRS:84 BoundingBox), a TIME dimension (the collection's
 * acquisition interval, ISO 8601, default = the layer's default time range) and its styles. Element order follows
 * the schema's sequence.
 */
import { XMLBuilder } from "fast-xml-parser";
import type { LayerInput } from "./configuration/schema";
import { CAPABILITY_CRS, MAP_FORMATS } from "./params";
import { defaultWindow } from "./render";

/** Geographic extent [west, south, east, north] in degrees and time interval [start, end] (ISO 8601) of a layer. */
export interface LayerExtent {
  bbox: [number, number, number, number];
  interval: [string, string];
}

const WORLD: [number, number, number, number] = [-180, -90, 180, 90];
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", format: true, suppressEmptyNode: true, suppressBooleanAttributes: false });

const online = (href: string) => ({ "@xmlns:xlink": "http://www.w3.org/1999/xlink", "@xlink:type": "simple", "@xlink:href": href });
const dcp = (href: string) => ({ HTTP: { Get: { OnlineResource: online(href) } } });

function geographic(b: [number, number, number, number]) {
  return {
    EX_GeographicBoundingBox: { westBoundLongitude: b[0], eastBoundLongitude: b[2], southBoundLatitude: b[1], northBoundLatitude: b[3] },
    BoundingBox: { "@CRS": "CRS:84", "@minx": b[0], "@miny": b[1], "@maxx": b[2], "@maxy": b[3] },
  };
}

/** YYYY-MM-DD (UTC) of `ms` since epoch. */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function layerElement(l: LayerInput, extent: LayerExtent | undefined) {
  const w = defaultWindow(l);
  const interval = extent ? `${extent.interval[0]}/${extent.interval[1]}/P1D` : `${isoDay(0)}/${isoDay(Date.now())}/P1D`;
  return {
    "@queryable": "0",
    Name: l.id,
    Title: l.title ?? l.id,
    Abstract: l.description ?? "",
    ...geographic(extent?.bbox ?? WORLD),
    Dimension: { "@name": "time", "@units": "ISO8601", "@default": `${isoDay(w.from)}/${isoDay(w.to)}`, "@multipleValues": "0", "@current": "0", "#text": interval },
    Style: l.styles.map((s) => ({ Name: s.name, Title: s.description || s.name })),
  };
}

/**
 * The capabilities XML of an instance served at `url` (the instance's WMS URL, e.g. `<base>/ogc/wms/<id>`).
 * `extents`: per collection id (sentinel-2-l2a, ...), from the catalog; a layer without one advertises the world.
 */
export function capabilitiesXml(url: string, title: string, layers: LayerInput[], extents: Map<string, LayerExtent>, collectionOf: (l: LayerInput) => string): string {
  const href = `${url}?`;
  const doc = {
    "?xml": { "@version": "1.0", "@encoding": "UTF-8" },
    WMS_Capabilities: {
      "@version": "1.3.0",
      "@xmlns": "http://www.opengis.net/wms",
      "@xmlns:xlink": "http://www.w3.org/1999/xlink",
      Service: { Name: "WMS", Title: title, OnlineResource: online(href) },
      Capability: {
        Request: {
          GetCapabilities: { Format: "text/xml", DCPType: dcp(href) },
          GetMap: { Format: [...MAP_FORMATS], DCPType: dcp(href) },
        },
        Exception: { Format: "XML" },
        Layer: {
          Title: title,
          CRS: CAPABILITY_CRS,
          ...geographic(WORLD),
          Layer: layers.map((l) => layerElement(l, extents.get(collectionOf(l)))),
        },
      },
    },
  };
  return builder.build(doc) as string;
}
