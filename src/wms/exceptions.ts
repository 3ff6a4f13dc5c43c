/**
 * OGC service exceptions: the client errors of WMS and WMTS requests, with the codes of WMS 1.3.0 (OGC 06-042 table
 * E.1), OWS common and Sentinel Hub's own: `InstanceNotFound`, and the rate limiter's refusals with the error
 * envelope's codes (`OUT_OF_PU`, `COMMON_TOO_MANY_REQUESTS`). The report a client receives, in the form of its WMS
 * version, is ./report.ts's.
 */

/** Exception codes of WMS 1.3.0 (table E.1) and OWS common ones used by WMTS GetTile. */
export type WmsExceptionCode =
  | "InvalidFormat"
  | "InvalidCRS"
  | "LayerNotDefined"
  | "StyleNotDefined"
  | "MissingDimensionValue"
  | "InvalidDimensionValue"
  | "OperationNotSupported"
  | "InvalidUpdateSequence"
  | "MissingParameterValue"
  | "InvalidParameterValue"
  | "TileOutOfRange"
  | "InstanceNotFound";

/** A client error of an OGC request: code, message, the parameter it concerns (locator) and the HTTP status. */
export class WmsException extends Error {
  constructor(
    readonly code: WmsExceptionCode,
    message: string,
    readonly locator?: string,
    readonly status = 400,
  ) {
    super(message);
  }
}
