// The curl, sentinelhub-py and sentinelhub-js equivalents of a Processing API request sent to this server
// (origin = location.origin). Clients' hosts and auth per /work/shared/docs/clients.md: sentinelhub-py takes
// sh_base_url/sh_token_url in SHConfig; sentinelhub-js has hard-coded hosts, redirected with an axios interceptor.

/**
 * Shell: token by client credentials, then `body` POSTed to `path` writing the file `out`; an error answer is
 * printed (to stderr) and no file is left (curl --fail-with-body, curl >= 7.76).
 */
export function curlPost(origin, path, body, out) {
  return `TOKEN=$(curl -s -d grant_type=client_credentials -d client_id=$CLIENT_ID -d client_secret=$CLIENT_SECRET \\
  ${origin}/auth/realms/main/protocol/openid-connect/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
curl -s --fail-with-body -X POST ${origin}${path} -H "Authorization: Bearer $TOKEN" \\
  -H 'Content-Type: application/json' -o ${out} --data-binary @- <<'JSON' || { cat ${out} >&2; rm -f ${out}; false; }
${JSON.stringify(body, null, 2)}
JSON`;
}

/** Shell: the Processing API request `body` by curl, writing the file `out` (curlPost). */
export const curlSnippet = (origin, body, out) => curlPost(origin, "/api/v1/process", body, out);

/** Python lines of an SHConfig `config` for this server, the credentials from CLIENT_ID / CLIENT_SECRET. */
export const pyConfig = (origin) => `config = SHConfig()
config.sh_base_url = "${origin}"
config.sh_token_url = "${origin}/auth/realms/main/protocol/openid-connect/token"
config.sh_client_id = os.environ["CLIENT_ID"]
config.sh_client_secret = os.environ["CLIENT_SECRET"]`;

/**
 * Python: sentinelhub-py's download client posting the same JSON (its session gets the token). With
 * decode_data=False, download() of one request returns a DownloadResponse (sentinelhub-py 3.11.5,
 * sentinelhub/download/client.py): its `.content` is the response's bytes.
 */
export function pySnippet(origin, body, out) {
  return `import json, os
from sentinelhub import SHConfig, DownloadRequest, MimeType, SentinelHubDownloadClient

${pyConfig(origin)}

body = json.loads(r"""${JSON.stringify(body)}""")
request = DownloadRequest(request_type="POST", url=f"{config.sh_base_url}/api/v1/process", post_values=body,
                          data_type=MimeType.RAW, headers={"content-type": "application/json"}, use_session=True)
response = SentinelHubDownloadClient(config=config).download(request, decode_data=False)
with open("${out}", "wb") as f:
    f.write(response.content)`;
}

const LAYERS = { "sentinel-2-l2a": "S2L2ALayer", "sentinel-2-l1c": "S2L1CLayer", "sentinel-1-grd": "S1GRDAWSEULayer" };
const FORMATS = { "image/png": "MimeTypes.PNG", "image/jpeg": "MimeTypes.JPEG", "image/tiff": '"image/tiff"' };

/** sentinelhub-js CRS of an EPSG code: its constants for 4326 and 3857, else a CRS object of the same shape. */
const jsCrs = (epsg) =>
  epsg === 4326 || epsg === 3857
    ? `CRS_EPSG${epsg}`
    : `{ authId: "EPSG:${epsg}", auth: "EPSG", opengisUrl: "http://www.opengis.net/def/crs/EPSG/0/${epsg}" }`;

/**
 * S1GRDAWSEULayer's parameters of the builder's Sentinel-1 options (options.js; null: not chosen) and, when one of
 * acquisitionMode, polarization, resolution is not chosen, the line that keeps the layer from asking a configuration
 * instance for them (sentinelhub-js 0.12.6 needs all three or an instanceId/layerId; a null member is not sent as a
 * filter). sentinelhub-js sends demInstance and orthorectify only when orthorectify is true.
 */
function s1Params(r) {
  const f = r.s1Filter ?? {},
    p = r.processing ?? {};
  const params = {
    acquisitionMode: f.acquisitionMode ?? null,
    polarization: f.polarization ?? null,
    resolution: f.resolution ?? null,
    orbitDirection: f.orbitDirection ?? null,
    backscatterCoeff: p.backCoeff ?? null,
    orthorectify: p.orthorectify ?? null,
    demInstanceType: p.demInstance ?? null,
    speckleFilter: p.speckleFilter ?? null,
  };
  const text = Object.entries(params)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}, `)
    .join("");
  const open = [f.acquisitionMode, f.polarization, f.resolution].includes(undefined)
    ? "\nlayer.updateLayerFromServiceIfNeeded = async () => {}; // no configuration instance: the options above as they are"
    : "";
  return { text, open };
}

/**
 * JavaScript (Node): a sentinelhub-js layer's getMap through the Processing API, its requests redirected to this
 * server. `r` = {collection, epsg, bbox [minx,miny,maxx,maxy] and geometry (or null) in that CRS, from, to, width,
 * height, format, mosaickingOrder, maxcc (%), evalscript, processing, s1Filter (options.js)}; BYOC collections
 * (byoc-<id>) use BYOCLayer, sentinel-1-grd S1GRDAWSEULayer with the Sentinel-1 options.
 */
export function jsSnippet(origin, r, out) {
  const byoc = r.collection.startsWith("byoc-");
  const cls = byoc ? "BYOCLayer" : (LAYERS[r.collection] ?? "S2L2ALayer");
  const s1 = cls === "S1GRDAWSEULayer" ? s1Params(r) : { text: "", open: "" };
  const sampling = ["upsampling", "downsampling"].filter((k) => r.processing?.[k]);
  // S1GRDAWSEULayer's constructor takes no upsampling / downsampling: set on the layer
  const samplingLines = sampling.map((k) => `\nlayer.${k} = "${r.processing[k]}";`).join("");
  const extra = (byoc ? `collectionId: "${r.collection.slice(5)}", ` : "") + s1.text;
  const crs = jsCrs(r.epsg);
  const imports = [
    "ApiType",
    "BBox",
    ...(crs.startsWith("CRS_") ? [crs] : []),
    "MimeTypes",
    cls,
    "addAxiosRequestInterceptor",
    "requestAuthToken",
    "setAuthToken",
  ];
  return `import { writeFileSync } from "node:fs";
import { ${imports.join(", ")} } from "@sentinel-hub/sentinelhub-js";

// sentinelhub-js calls https://services.sentinel-hub.com/...: send those requests to EO Edge instead
addAxiosRequestInterceptor((config) => ({ ...config, url: config.url.replace(/^https:\\/\\/[^/]+/, "${origin}") }));
setAuthToken(await requestAuthToken(process.env.CLIENT_ID, process.env.CLIENT_SECRET));
const layer = new ${cls}({ ${extra}mosaickingOrder: "${r.mosaickingOrder}", maxCloudCoverPercent: ${r.maxcc}, evalscript: ${JSON.stringify(r.evalscript)} });${s1.open}${samplingLines}
const data = await layer.getMap({
  bbox: new BBox(${crs}, ${r.bbox.join(", ")}),${
    r.geometry
      ? `
  geometry: ${JSON.stringify(r.geometry)},`
      : ""
  }
  fromTime: new Date("${r.from}"), toTime: new Date("${r.to}"),
  width: ${r.width}, height: ${r.height}, format: ${FORMATS[r.format] ?? "MimeTypes.PNG"},
}, ApiType.PROCESSING);
writeFileSync("${out}", Buffer.from(data));
process.exit(0); // sentinelhub-js' request cache keeps Node's event loop alive`;
}
