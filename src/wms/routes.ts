/**
 * OGC endpoints of WMS instances at the location's wmsUrl: `GET /ogc/wms/{instanceId}` (WMS 1.1.1 and 1.3.0
 * GetCapabilities, negotiated as the standard says, and GetMap in either version: ./version.ts) and
 * `GET /ogc/wmts/{instanceId}` (WMTS 1.0.0 KVP GetCapabilities and GetTile in Sentinel Hub's tile
 * matrix sets PopularWebMercator256/512; an XYZ template for
 * Leaflet / OpenLayers is `/ogc/wmts/{id}?REQUEST=GetTile&LAYER=<layer>&TILEMATRIXSET=PopularWebMercator256&
 * TILEMATRIX={z}&TILECOL={x}&TILEROW={y}`).
 *
 * Authentication: as Sentinel Hub's OGC services, the instance id in the URL is the credential (a random UUID, no
 * bearer token: map clients such as GDAL, QGIS, Leaflet send plain GETs); requests render with the instance
 * owner's account. Whoever holds the URL can read the maps; deleting the instance revokes it.
 * Limits: every call takes a token from the owner's rate-limit policies, and GetMap / GetTile are metered (route
 * metadata `account` and `metered`, read by src/ratelimit/middleware.ts): past the owner's monthly processing
 * units 403 OUT_OF_PU, over a policy 429, with the rate-limit headers; their units are charged to the owner.
 * Every client error, those refusals included, is an OGC ServiceExceptionReport with its 4xx status and headers
 * (exceptions.ts; the route metadata's `errors`), in the request's WMS version (1.3.0's for WMTS).
 */
import type { Env } from "../env";
import { itemsBackend } from "../storage/backend";
import { collectionForType } from "../pipeline/collections";
import { publicBaseUrl } from "../http/base";
import { ApiError, kindedError } from "../http/errors";
import type { Api, AuthedRequest } from "../http/router";
import type { LayerInput } from "./configuration/schema";
import { instanceById, getLayer, listLayers, type StoredInstance } from "./configuration/store";
import { capabilitiesType, capabilitiesXml, isoDay, type LayerExtent } from "./capabilities";
import { wmtsCapabilitiesXml } from "./wmts-capabilities";
import { WmsException } from "./exceptions";
import { exceptionResponse } from "./report";
import { formatOf, kvp, parseGetMap, parseMaxcc, parseTime, required, type Kvp } from "./params";
import { renderMap, type MapTarget } from "./render";
import { MAX_ZOOM, tileBbox, tileIndex, tileSize } from "./tiles";
import { negotiateVersion, reportVersion, requestedVersion, type WmsVersion } from "./version";
import { crsFromEpsg } from "../raster/crs";
import { chargeLater } from "../accounts/units";

const PUBLIC = true;

/** The instance lookup of each request (the rate limiter asks for its owner, then the handler for it: one D1 read). */
const lookups = new WeakMap<Request, Promise<StoredInstance | null>>();

/** The instance of the path, or null when there is none (read once per request). */
function findInstance(request: AuthedRequest, env: Env): Promise<StoredInstance | null> {
  let found = lookups.get(request);
  if (!found) lookups.set(request, (found = instanceById(env, decodeURIComponent(request.params.instanceId ?? ""))));
  return found;
}

/** The instance of the path; 404 exception when there is none. */
async function instanceOf(request: AuthedRequest, env: Env): Promise<StoredInstance> {
  const inst = await findInstance(request, env);
  if (!inst)
    throw new WmsException(
      "InstanceNotFound",
      `No WMS instance '${decodeURIComponent(request.params.instanceId ?? "")}'; create one with POST /configuration/v1/wms/instances.`,
      undefined,
      404,
    );
  return inst;
}

/** The account an OGC request acts for (RouteMeta `account`): the instance's owner; none for an unknown instance. */
const ownerOf = async (request: AuthedRequest, env: Env): Promise<string | undefined> =>
  (await findInstance(request, env))?.account;

/** RouteMeta `metered` of an OGC route: true for its rendering operation (`getmap`, `gettile`), whatever the case. */
const renders =
  (op: string) =>
  (request: Request): boolean =>
    kvp(new URL(request.url)).get("REQUEST")?.trim().toLowerCase() === op;

async function layerOf(env: Env, inst: StoredInstance, name: string, locator: string): Promise<LayerInput> {
  const layer = await getLayer(env, inst.id, name);
  if (!layer) throw new WmsException("LayerNotDefined", `Layer '${name}' is not defined in this instance.`, locator);
  return layer;
}

/** Checks SERVICE (when given) and returns REQUEST. */
function operation(p: Kvp, service: string): string {
  const s = p.get("SERVICE");
  if (s !== undefined && s.toUpperCase() !== service)
    throw new WmsException("InvalidParameterValue", `SERVICE must be ${service}; it is '${s}'.`, "SERVICE");
  return required(p, "REQUEST").toLowerCase();
}

/**
 * The encoded map as a response (format content type, processing units spent); the units are charged to the instance
 * owner's account after the response (chargeLater: exactly once, off the critical path of every map tile), when the
 * rate limiter admitted the request.
 */
async function mapResponse(
  request: AuthedRequest,
  env: Env,
  ctx: ExecutionContext,
  inst: StoredInstance,
  layer: LayerInput,
  target: MapTarget,
): Promise<Response> {
  const { body, processingUnits } = await renderMap(env, inst.account, layer, target);
  chargeLater(ctx, env, inst.account, processingUnits, request.admitted);
  return new Response(body, {
    headers: { "content-type": target.format, "x-processingunits-spent": String(processingUnits) },
  });
}

/**
 * The instance's layers and the items' extent (src/storage/extents.ts) of each layer's collection (EX_GeographicBoundingBox /
 * WGS84BoundingBox, TIME values), keyed by the layer's datasourceDefaults.type (see collectionOf).
 */
async function layersWithExtents(env: Env, inst: StoredInstance): Promise<[LayerInput[], Map<string, LayerExtent>]> {
  const [layers, extents] = await Promise.all([listLayers(env, inst.id), itemsBackend(env).extents()]);
  const byType = new Map<string, LayerExtent>();
  for (const l of layers) {
    const type = collectionOf(l);
    const e = extents.get((await collectionForType(env, inst.account, type)).id);
    if (e) byType.set(type, { bbox: e.bbox, interval: [isoDay(e.from), isoDay(e.to)] });
  }
  return [layers, byType];
}

/** The key of a layer's extent: its data collection type as configured (checked against the registry when stored). */
const collectionOf = (l: LayerInput): string => l.datasourceDefaults.type;
const xmlResponse = (xml: string, type = "text/xml; charset=utf-8") =>
  new Response(xml, { headers: { "content-type": type } });

/** GET /ogc/wms/{instanceId}. */
async function wms(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const p = kvp(new URL(request.url));
  const inst = await instanceOf(request, env);
  const op = operation(p, "WMS");
  if (op === "getcapabilities") {
    const version = negotiateVersion(requestedVersion(p));
    const xml = capabilitiesXml(
      version,
      `${publicBaseUrl(env)}/ogc/wms/${inst.id}`,
      inst.body.name,
      ...(await layersWithExtents(env, inst)),
      collectionOf,
    );
    return xmlResponse(xml, capabilitiesType(version));
  }
  if (op !== "getmap")
    throw new WmsException(
      "OperationNotSupported",
      `REQUEST '${p.get("REQUEST")}' is not supported; use GetCapabilities or GetMap.`,
      "REQUEST",
    );
  const req = parseGetMap(p);
  return mapResponse(request, env, ctx, inst, await layerOf(env, inst, req.layer, "LAYERS"), req);
}

/** GET /ogc/wmts/{instanceId}: GetCapabilities, GetTile. */
async function wmts(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const p = kvp(new URL(request.url));
  const inst = await instanceOf(request, env);
  const op = operation(p, "WMTS");
  if (op === "getcapabilities")
    return xmlResponse(
      wmtsCapabilitiesXml(
        `${publicBaseUrl(env)}/ogc/wmts/${inst.id}`,
        inst.body.name,
        ...(await layersWithExtents(env, inst)),
        collectionOf,
      ),
    );
  if (op !== "gettile")
    throw new WmsException(
      "OperationNotSupported",
      `REQUEST '${p.get("REQUEST")}' is not supported; use GetCapabilities or GetTile.`,
      "REQUEST",
    );
  const size = tileSize(p.get("TILEMATRIXSET") ?? "PopularWebMercator256");
  const z = tileIndex(required(p, "TILEMATRIX"), "TILEMATRIX", MAX_ZOOM);
  const x = tileIndex(required(p, "TILECOL"), "TILECOL", 2 ** z - 1);
  const y = tileIndex(required(p, "TILEROW"), "TILEROW", 2 ** z - 1);
  const format = formatOf(p.get("FORMAT") ?? "image/png");
  const time = p.get("TIME")?.trim();
  const maxcc = parseMaxcc(p);
  const layer = await layerOf(env, inst, required(p, "LAYER"), "LAYER");
  const target: MapTarget = {
    crs: crsFromEpsg(3857),
    bbox: tileBbox(z, x, y),
    width: size,
    height: size,
    format,
    ...(time ? { time: parseTime(time) } : {}),
    ...(maxcc !== undefined ? { maxcc } : {}),
  };
  return mapResponse(request, env, ctx, inst, layer, target);
}

/**
 * The refusals keep their API code in the report, as in the envelope: the limiter's (OUT_OF_PU,
 * COMMON_TOO_MANY_REQUESTS) and the memory admission's 503 (COMMON_SERVICE_UNAVAILABLE, with Retry-After).
 */
const REFUSALS = new Set([403, 429, 503]);

/**
 * The exception report, in WMS `version`, of a thrown client error: WmsException as itself; the rate limiter's 403
 * OUT_OF_PU and 429, and the admission's 503, with their code, status and headers (rate limits, Retry-After); other
 * ApiError / engine errors (bad bbox, unknown collection, evalscript failure) as InvalidParameterValue with their 4xx
 * status. Anything else is rethrown (a logged 500 envelope).
 */
function asException(err: unknown, version: WmsVersion): Response {
  if (err instanceof WmsException) return exceptionResponse(err, version);
  const api = err instanceof ApiError ? err : kindedError(err);
  if (!api || (api.status >= 500 && !REFUSALS.has(api.status))) throw err;
  const code = REFUSALS.has(api.status) ? api.code : "InvalidParameterValue";
  return exceptionResponse({ code, message: api.message, status: api.status, headers: api.headers }, version);
}

/** RouteMeta `errors` of the WMS route: the report in the request's version (reportVersion). */
const wmsException = (err: unknown, request: Request): Response =>
  asException(err, reportVersion(kvp(new URL(request.url))));
/** RouteMeta `errors` of the WMTS route: WMS 1.3.0's report. */
const wmtsException = (err: unknown): Response => asException(err, "1.3.0");

/** Registers the public OGC routes (the instance id is the credential, see the module docs). */
export function registerWms(api: Api): void {
  const ogc = (summary: string, op: string, errors: (err: unknown, request: Request) => Response) => ({
    public: PUBLIC,
    tags: ["OGC"],
    summary,
    responseType: "image/png",
    account: ownerOf,
    metered: renders(op),
    // may start before the limiter's decision: the routes only read, and the charge waits for the decision
    speculative: true,
    errors,
  });
  api
    .on(
      "GET",
      "/ogc/wms/:instanceId",
      wms,
      ogc(
        "OGC WMS 1.1.1 and 1.3.0: GetCapabilities (version negotiation), GetMap (KVP query; the instance id is the credential)",
        "getmap",
        wmsException,
      ),
    )
    .on(
      "GET",
      "/ogc/wmts/:instanceId",
      wmts,
      ogc("OGC WMTS 1.0.0 and XYZ tiles: GetCapabilities, GetTile (KVP query)", "gettile", wmtsException),
    );
}
