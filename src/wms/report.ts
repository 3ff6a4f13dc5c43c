/**
 * The report of an OGC service exception (WMS 1.3.0, OGC 06-042 section 6.11 and annex E.3 "Service exception" schema):
 * `<ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc">` with one `<ServiceException
 * code="..." locator="...">message</ServiceException>`, sent as `text/xml` with a 4xx status; for a WMS 1.1.1
 * request the 1.1.1 report (WMS 1.1.1 annex A.3, exception_1_1_1.dtd: no namespace, version 1.1.1) sent as
 * `application/vnd.ogc.se_xml`. The exceptions and their codes are ./exceptions.ts's.
 */
import { XMLBuilder } from "fast-xml-parser";
import type { WmsVersion } from "./version";

/** The exception report's media type per version (WMS 1.1.1 section 6.9; 1.3.0 section 7.3.3.11). */
const REPORT_TYPE: Readonly<Record<WmsVersion, string>> = {
  "1.1.1": "application/vnd.ogc.se_xml",
  "1.3.0": "text/xml; charset=utf-8",
};

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  format: true,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});

/** The ServiceExceptionReport XML of `e` in WMS `version`'s form. */
export function exceptionXml(
  e: { code?: string; message: string; locator?: string },
  version: WmsVersion = "1.3.0",
): string {
  const ex: Record<string, string> = { ...(e.code ? { "@code": e.code } : {}), "#text": e.message };
  if (e.locator) ex["@locator"] = e.locator;
  const ns = version === "1.3.0" ? { "@xmlns": "http://www.opengis.net/ogc" } : {};
  const doc = {
    "?xml": { "@version": "1.0", "@encoding": "UTF-8" },
    ServiceExceptionReport: { "@version": version, ...ns, ServiceException: ex },
  };
  return builder.build(doc) as string;
}

/**
 * The HTTP response of a service exception in WMS `version`'s form and media type, with the exception's status and
 * `headers` (e.g. Retry-After).
 */
export function exceptionResponse(
  e: { code?: string; message: string; locator?: string; status?: number; headers?: Record<string, string> },
  version: WmsVersion = "1.3.0",
): Response {
  return new Response(exceptionXml(e, version), {
    status: e.status ?? 400,
    headers: { ...e.headers, "content-type": REPORT_TYPE[version] },
  });
}
