/**
 * WMS GetCapabilities documents of an instance, in the version the request negotiated (./version.ts):
 * - 1.3.0 (OGC 06-042 7.2.4, schema capabilities_1_3_0.xsd): `WMS_Capabilities` in the wms namespace, sent as
 *   text/xml; CRS elements, EX_GeographicBoundingBox + a CRS:84 BoundingBox, a TIME Dimension holding its extent;
 * - 1.1.1 (OGC 01-068r3 7.1, WMS_MS_Capabilities.dtd): `WMT_MS_Capabilities` without namespace, sent as
 *   application/vnd.ogc.wms_xml and without the DOCTYPE line (clients such as OWSLib parse it as plain XML, and
 *   none has to fetch the DTD); SRS elements, LatLonBoundingBox + an EPSG:4326 BoundingBox (lon,lat), a TIME
 *   Dimension with its Extent, service name OGC:WMS, exceptions application/vnd.ogc.se_xml.
 * Both: one root layer per instance (the advertised CRSs, a world extent) with a named child per configured layer,
 * each with its collection's extent, its acquisition interval as TIME values (ISO 8601, default = the layer's
 * default time range) and its styles. Element order follows the schema's (1.3.0) or the DTD's (1.1.1) sequence.
 */
import { XMLBuilder } from "fast-xml-parser";
import type { LayerInput } from "./configuration/schema";
import { CAPABILITY_CRS, MAP_FORMATS } from "./params";
import { defaultWindow } from "./render";
import type { WmsVersion } from "./version";

/** Geographic extent [west, south, east, north] in degrees and time interval [start, end] (ISO 8601) of a layer. */
export interface LayerExtent {
  bbox: [number, number, number, number];
  interval: [string, string];
}

type Box = [number, number, number, number];
const WORLD: Box = [-180, -90, 180, 90];
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  format: true,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});

const online = (href: string) => ({
  "@xmlns:xlink": "http://www.w3.org/1999/xlink",
  "@xlink:type": "simple",
  "@xlink:href": href,
});
const dcp = (href: string) => ({ HTTP: { Get: { OnlineResource: online(href) } } });
const corners = (b: Box) => ({ "@minx": b[0], "@miny": b[1], "@maxx": b[2], "@maxy": b[3] });

/** The geographic extent elements of `b` (lon/lat degrees) in `version`'s form. */
function geographic(b: Box, version: WmsVersion) {
  if (version === "1.1.1")
    return { LatLonBoundingBox: corners(b), BoundingBox: { "@SRS": "EPSG:4326", ...corners(b) } };
  return {
    EX_GeographicBoundingBox: {
      westBoundLongitude: b[0],
      eastBoundLongitude: b[2],
      southBoundLatitude: b[1],
      northBoundLatitude: b[3],
    },
    BoundingBox: { "@CRS": "CRS:84", ...corners(b) },
  };
}

/** YYYY-MM-DD (UTC) of `ms` since epoch. */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The TIME dimension of a layer: 1.3.0 holds its values in Dimension, 1.1.1 declares it and gives them in Extent. */
function timeDimension(l: LayerInput, extent: LayerExtent | undefined, version: WmsVersion) {
  const w = defaultWindow(l);
  const values = extent ? `${extent.interval[0]}/${extent.interval[1]}/P1D` : `${isoDay(0)}/${isoDay(Date.now())}/P1D`;
  const value = {
    "@default": `${isoDay(w.from)}/${isoDay(w.to)}`,
    "@multipleValues": "0",
    "@current": "0",
    "#text": values,
  };
  if (version === "1.1.1")
    return {
      Dimension: { "@name": "time", "@units": "ISO8601" },
      Extent: { "@name": "time", ...value, "@nearestValue": "0" },
    };
  return { Dimension: { "@name": "time", "@units": "ISO8601", ...value } };
}

function layerElement(l: LayerInput, extent: LayerExtent | undefined, version: WmsVersion) {
  return {
    "@queryable": "0",
    Name: l.id,
    Title: l.title ?? l.id,
    Abstract: l.description ?? "",
    ...geographic(extent?.bbox ?? WORLD, version),
    ...timeDimension(l, extent, version),
    Style: l.styles.map((s) => ({ Name: s.name, Title: s.description || s.name })),
  };
}

/**
 * Per version: the root element's name and attributes, the service name, the formats of GetCapabilities (also the
 * document's media type, WMS 1.1.1 section 6.5.4, 1.3.0 section 7.2.3) and of exceptions.
 */
const FORMS: Readonly<
  Record<
    WmsVersion,
    { root: string; attributes: Record<string, string>; service: string; capabilities: string; exception: string }
  >
> = {
  "1.1.1": {
    root: "WMT_MS_Capabilities",
    attributes: { "@version": "1.1.1" },
    service: "OGC:WMS",
    capabilities: "application/vnd.ogc.wms_xml",
    exception: "application/vnd.ogc.se_xml",
  },
  "1.3.0": {
    root: "WMS_Capabilities",
    attributes: {
      "@version": "1.3.0",
      "@xmlns": "http://www.opengis.net/wms",
      "@xmlns:xlink": "http://www.w3.org/1999/xlink",
    },
    service: "WMS",
    capabilities: "text/xml",
    exception: "XML",
  },
};

/** The media type of the capabilities document of `version` (with its charset for text/xml). */
export function capabilitiesType(version: WmsVersion): string {
  const type = FORMS[version].capabilities;
  return type.startsWith("text/") ? `${type}; charset=utf-8` : type;
}

/**
 * The capabilities XML in WMS `version` of an instance served at `url` (the instance's WMS URL, e.g.
 * `<base>/ogc/wms/<id>`). `extents`: per collection id (sentinel-2-l2a, ...), from the catalog; a layer without
 * one advertises the world.
 */
export function capabilitiesXml(
  version: WmsVersion,
  url: string,
  title: string,
  layers: LayerInput[],
  extents: Map<string, LayerExtent>,
  collectionOf: (l: LayerInput) => string,
): string {
  const href = `${url}?`;
  const form = FORMS[version];
  const crsName = version === "1.1.1" ? "SRS" : "CRS";
  const doc = {
    "?xml": { "@version": "1.0", "@encoding": "UTF-8" },
    [form.root]: {
      ...form.attributes,
      Service: { Name: form.service, Title: title, OnlineResource: online(href) },
      Capability: {
        Request: {
          GetCapabilities: { Format: form.capabilities, DCPType: dcp(href) },
          GetMap: { Format: [...MAP_FORMATS], DCPType: dcp(href) },
        },
        Exception: { Format: form.exception },
        Layer: {
          Title: title,
          [crsName]: CAPABILITY_CRS[version],
          ...geographic(WORLD, version),
          Layer: layers.map((l) => layerElement(l, extents.get(collectionOf(l)), version)),
        },
      },
    },
  };
  return builder.build(doc) as string;
}
