/**
 * WMS versions and their negotiation (OGC 06-042 WMS 1.3.0 section 6.2.4, the same rule as WMS 1.1.1 section 6.2.4):
 * EO Edge speaks 1.1.1 and 1.3.0. A GetCapabilities request without a version is answered in the highest; a
 * supported version in itself; an unknown one in the highest supported version lower than it, or the lowest
 * supported one when it is lower than all of them (so 1.2.0 -> 1.1.1, 2.0.0 -> 1.3.0, 1.0.0 -> 1.1.1). The version
 * is `VERSION`, or `WMTVER`, the name WMS 1.0.0 clients use (1.1.1 section 6.2.4 asks servers to accept it).
 * What differs between the two versions: the CRS parameter and axis order (WMS_VERSIONS, ./params.ts), the
 * capabilities document (./capabilities.ts) and the exception report (./exceptions.ts).
 */
import { WmsException } from "./exceptions";

export type WmsVersion = "1.1.1" | "1.3.0";

/** A request's parameters by upper-case name (./params.ts `Kvp`). */
type Params = ReadonlyMap<string, string>;

/** What one version names differently. */
export interface VersionTraits {
  /** GetMap's CRS parameter: SRS (1.1.1) or CRS (1.3.0). */
  crsParam: "SRS" | "CRS";
}

/** The supported versions, lowest first, and their traits. */
export const WMS_VERSIONS: Readonly<Record<WmsVersion, VersionTraits>> = {
  "1.1.1": { crsParam: "SRS" },
  "1.3.0": { crsParam: "CRS" },
};
const SUPPORTED = Object.keys(WMS_VERSIONS) as WmsVersion[];
const HIGHEST = SUPPORTED[SUPPORTED.length - 1]!;

/** The requested version: VERSION, else WMTVER; undefined when neither is given. */
export const requestedVersion = (p: Params): string | undefined =>
  (p.get("VERSION") ?? p.get("WMTVER"))?.trim() || undefined;

/** `x.y.z` as numbers (missing parts 0), or null when it is not a version number. */
function parts(v: string): number[] | null {
  if (!/^\d+(\.\d+){0,2}$/.test(v)) return null;
  const n = v.split(".").map(Number);
  while (n.length < 3) n.push(0);
  return n;
}

const compare = (a: number[], b: number[]): number => a.reduce((d, x, i) => d || x - b[i]!, 0);

/**
 * The version a GetCapabilities request is answered in, by the negotiation rule above.
 * @throws WmsException InvalidParameterValue for a VERSION that is not a version number.
 */
export function negotiateVersion(requested: string | undefined): WmsVersion {
  if (requested === undefined) return HIGHEST;
  const want = parts(requested);
  if (!want)
    throw new WmsException(
      "InvalidParameterValue",
      `VERSION '${requested.slice(0, 40)}' is not a version number; EO Edge speaks WMS ${SUPPORTED.join(" and ")}.`,
      "VERSION",
    );
  const lower = SUPPORTED.filter((v) => compare(parts(v)!, want) <= 0);
  return lower[lower.length - 1] ?? SUPPORTED[0]!;
}

/**
 * The version of a GetMap request: 1.1.1 or 1.3.0 as given (1.3.0 when absent; WMS 1.3.0 makes it mandatory, but
 * clients omitting it get the highest).
 * @throws WmsException InvalidParameterValue for any other value.
 */
export function operationVersion(p: Params): WmsVersion {
  const v = requestedVersion(p) ?? HIGHEST;
  if (v in WMS_VERSIONS) return v as WmsVersion;
  throw new WmsException(
    "InvalidParameterValue",
    `VERSION '${v.slice(0, 40)}' is not supported; use ${SUPPORTED.join(" or ")}.`,
    "VERSION",
  );
}

/**
 * The version an exception report of request parameters `p` is written in: that of the operation (the negotiated
 * one for GetCapabilities), 1.3.0 when the version itself is the error.
 */
export function reportVersion(p: Params): WmsVersion {
  try {
    return p.get("REQUEST")?.trim().toLowerCase() === "getcapabilities"
      ? negotiateVersion(requestedVersion(p))
      : operationVersion(p);
  } catch {
    return HIGHEST;
  }
}
