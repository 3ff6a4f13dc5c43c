// The curl, sentinelhub-py and pystac-client equivalents of a Catalog API search (POST
// /api/v1/catalog/1.0.0/search) sent to this server (origin = location.origin). Each writes the items it gets to
// `items.json` as a GeoJSON FeatureCollection: curl the first page, sentinelhub-py and pystac-client every page
// (they follow the `next` links). Clients' hosts and auth per /work/shared/docs/clients.md.

import { curlPost, pyConfig } from "./snippets.js";

const tokenUrl = (origin) => `${origin}/auth/realms/main/protocol/openid-connect/token`;

/** Shell: token by client credentials, then the search body posted; the first page written to `out`. */
export const catalogCurl = (origin, body, out = "items.json") =>
  curlPost(origin, "/api/v1/catalog/1.0.0/search", body, out);

/** Python literal of a JSON value (json.loads of its JSON text: true/false/null stay right). */
const py = (v) => `json.loads(${JSON.stringify(JSON.stringify(v))})`;

/**
 * Python: sentinelhub-py 3.11.5's SentinelHubCatalog.search (sentinelhub/api/catalog.py) with the search's
 * collection, time interval, bbox (CRS.WGS84) or geometry, CQL2 JSON filter, fields and limit; its iterator
 * follows the pages.
 */
export function catalogPy(origin, body, out = "items.json") {
  const [from, to] = body.datetime.split("/");
  const where = body.intersects
    ? `geometry=Geometry(${py(body.intersects)}, crs=CRS.WGS84)`
    : `bbox=BBox(${JSON.stringify(body.bbox)}, crs=CRS.WGS84)`;
  const extra = [
    body.filter ? `filter=${py(body.filter)}, filter_lang="cql2-json"` : "",
    body.fields ? `fields=${py(body.fields)}` : "",
  ].filter(Boolean);
  return `import json, os
from sentinelhub import BBox, CRS, Geometry, SHConfig, SentinelHubCatalog

${pyConfig(origin)}

catalog = SentinelHubCatalog(config=config)
search = catalog.search("${body.collections[0]}", time=("${from}", "${to}"), ${where},
                        ${[...extra, `limit=${body.limit}`].join(", ")})
with open("${out}", "w") as f:
    json.dump({"type": "FeatureCollection", "features": list(search)}, f, indent=2)`;
}

/** Python: pystac-client (0.9.0) Client.search of the same body (POST), every page's items as they come. */
export function catalogPystac(origin, body, out = "items.json") {
  const args = [
    `collections=${JSON.stringify(body.collections)}`,
    body.intersects ? `intersects=${py(body.intersects)}` : `bbox=${JSON.stringify(body.bbox)}`,
    `datetime="${body.datetime}"`,
    ...(body.filter ? [`filter=${py(body.filter)}`, `filter_lang="cql2-json"`] : []),
    ...(body.fields ? [`fields=${py(body.fields)}`] : []),
    `limit=${body.limit}`,
    `method="POST"`,
  ];
  return `import json, os
import requests
from pystac_client import Client

token = requests.post("${tokenUrl(origin)}", data={
    "grant_type": "client_credentials", "client_id": os.environ["CLIENT_ID"],
    "client_secret": os.environ["CLIENT_SECRET"]}).json()["access_token"]
catalog = Client.open("${origin}/api/v1/catalog/1.0.0/", headers={"Authorization": f"Bearer {token}"})
search = catalog.search(${args.join(",\n                        ")})
features = [f for page in search.pages_as_dicts() for f in page["features"]]
with open("${out}", "w") as f:
    json.dump({"type": "FeatureCollection", "features": features}, f, indent=2)`;
}
