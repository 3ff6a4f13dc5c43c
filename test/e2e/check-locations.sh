#!/usr/bin/env bash
# Runs `npm start` (two locations side by side: aws-eu-central-1 and creo, scripts/start.mjs) on spare ports with a
# fresh state, then asks each location for Sentinel-1 GRD and Sentinel-2 L2A (hosted in aws-eu-central-1, where
# sentinelhub-py expects them) and for the Sentinel-1 BYOC sample of a CREODIAS bucket (hosted in creo: a BYOC
# collection is hosted by its bucket's region) through the Processing API and the Catalog, prints every answer, and
# stops the server.
# Usage: test/e2e/check-locations.sh   (PORT, PORT2 and EO_EDGE_STATE may be set; defaults 8797, PORT+1, a temp dir)
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=${PORT:-8797}
PORT2=${PORT2:-$((PORT + 1))}
STATE=${EO_EDGE_STATE:-$(mktemp -d)}
LOG=$(mktemp)
OUT=$(mktemp)
EU="http://127.0.0.1:$PORT"
CREO="http://127.0.0.1:$PORT2"

PORT=$PORT PORT2=$PORT2 EO_EDGE_STATE=$STATE setsid npm start >"$LOG" 2>&1 &
PID=$!
trap 'kill -INT -- -$PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -f "$OUT"' EXIT
for _ in $(seq 1 300); do
  grep -q "EO Edge is running" "$LOG" && break
  kill -0 $PID 2>/dev/null || { cat "$LOG"; echo "npm start exited"; exit 1; }
  sleep 1
done
grep -q "EO Edge is running" "$LOG" || { tail -40 "$LOG"; echo "npm start did not come up"; exit 1; }
grep -E '^  (aws-eu-central-1|creo) ' "$LOG"

ID=$(sed -nE 's/.*"client_id": *"([^"]+)".*/\1/p' "$STATE/demo-client.json")
SECRET=$(sed -nE 's/.*"client_secret": *"([^"]+)".*/\1/p' "$STATE/demo-client.json")
TOKEN=$(curl -s -d grant_type=client_credentials -d client_id="$ID" -d client_secret="$SECRET" \
  "$EU/auth/realms/main/protocol/openid-connect/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')

S1='{"input":{"bounds":{"bbox":[626396.008448501,1150782.1888995206,632796.008448501,1157182.1888995206],
  "properties":{"crs":"http://www.opengis.net/def/crs/EPSG/0/32643"}},
  "data":[{"type":"sentinel-1-grd","dataFilter":{"timeRange":{"from":"2018-07-16T00:00:00Z","to":"2018-07-17T00:00:00Z"}}}]},
  "output":{"width":32,"height":32,"responses":[{"identifier":"default","format":{"type":"image/tiff"}}]},
  "evalscript":"//VERSION=3\nfunction setup(){return {input:[\"VV\"],output:{bands:1,sampleType:\"FLOAT32\"}}}\nfunction evaluatePixel(s){return [s.VV]}"}'
S2='{"input":{"bounds":{"bbox":[-12.0,24.3,-11.9,24.4]},
  "data":[{"type":"sentinel-2-l2a","dataFilter":{"timeRange":{"from":"2020-02-19T00:00:00Z","to":"2020-02-20T00:00:00Z"}}}]},
  "output":{"width":8,"height":8,"responses":[{"identifier":"default","format":{"type":"image/tiff"}}]},
  "evalscript":"//VERSION=3\nfunction setup(){return {input:[\"B04\"],output:{bands:1,sampleType:\"FLOAT32\"}}}\nfunction evaluatePixel(s){return [s.B04]}"}'
# The BYOC sample in the CREODIAS bucket (scripts/seed-byoc.ts): the same scene's VV as a BYOC collection
BYOC=byoc-00000000-0000-4000-8000-00000000c4e0
S1_BYOC=${S1/\"sentinel-1-grd\"/\"$BYOC\"}
BYOC_SEARCH='{"collections":["'$BYOC'"],"datetime":"2018-07-16T00:00:00Z/2018-07-17T00:00:00Z","limit":1,"fields":{"include":["id"]}}'

# Prints "<what>: HTTP <status> <content-type> <bytes>" and a JSON body (error envelope, listing) when there is one.
ask() {
  local what=$1 url=$2 body=${3:-}
  local args=(-s -o "$OUT" -w '%{http_code} %{content_type} %{size_download}' -H "Authorization: Bearer $TOKEN")
  [ -n "$body" ] && args+=(-X POST -H 'Content-Type: application/json' --data-binary "$body")
  local meta
  meta=$(curl "${args[@]}" "$url")
  echo "$what: HTTP $meta"
  case "$meta" in *json*) head -c 600 "$OUT"; echo ;; esac
}

echo "--- locations"
ask "GET $EU/api/v1/metadata/location" "$EU/api/v1/metadata/location"
ask "GET $CREO/api/v1/metadata/location/nope" "$CREO/api/v1/metadata/location/nope"
echo "--- Sentinel-1 GRD and Sentinel-2 L2A (hosted in aws-eu-central-1)"
ask "POST $CREO/api/v1/process sentinel-1-grd (wrong location)" "$CREO/api/v1/process" "$S1"
ask "POST $EU/api/v1/process sentinel-1-grd (right location)" "$EU/api/v1/process" "$S1"
ask "POST $CREO/api/v1/process sentinel-2-l2a (wrong location)" "$CREO/api/v1/process" "$S2"
ask "POST $EU/api/v1/process sentinel-2-l2a (right location)" "$EU/api/v1/process" "$S2"
echo "--- $BYOC, a BYOC collection of a bucket in CREODIAS region WAW3-1 (hosted in creo)"
ask "POST $EU/api/v1/process (wrong location)" "$EU/api/v1/process" "$S1_BYOC"
ask "POST $CREO/api/v1/process (right location)" "$CREO/api/v1/process" "$S1_BYOC"
echo "--- Catalog"
ask "GET $EU/api/v1/catalog/1.0.0/collections ids" "$EU/api/v1/catalog/1.0.0/collections?fields=id"
ask "GET $CREO/api/v1/catalog/1.0.0/collections ids" "$CREO/api/v1/catalog/1.0.0/collections?fields=id"
ask "POST $EU/api/v1/catalog/1.0.0/search $BYOC (wrong location)" "$EU/api/v1/catalog/1.0.0/search" "$BYOC_SEARCH"
ask "POST $CREO/api/v1/catalog/1.0.0/search $BYOC (right location)" "$CREO/api/v1/catalog/1.0.0/search" "$BYOC_SEARCH"
