#!/usr/bin/env bash
# End-to-end check of the S3 endpoint (src/s3) with the tools users have, outside vitest:
#   `npm start` on spare ports, then against its S3 port (the endpoint at the root of its own address) `aws s3 cp`
#   up (multipart: 9 MB), `aws s3 ls`, a boto3 GetObject with Range, `aws s3 cp` down, `npx wrangler r2 object get`
#   of the same object straight from the local R2 state, `aws s3 presign` (Signature Version 2, aws cli v1's default,
#   and s3v4) through curl, and GDAL's /vsis3/ (gdal_translate) when GDAL is installed; every byte is compared with
#   the uploaded file. Usage: test/e2e/check-s3.sh  (env: PORT, default 8797, S3 on PORT+2; EO_EDGE_STATE, default .state).
# Needs aws cli and python3 with boto3 (Debian: apt-get install -y awscli python3-boto3; GDAL: gdal-bin).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PORT="${PORT:-8797}" EO_EDGE_STATE="${EO_EDGE_STATE:-.state}"
work="$(mktemp -d)"
log="$work/server.log"
setsid npm start >"$log" 2>&1 &
server=$!
stop() { kill -INT -- "-$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"; }
trap stop EXIT
for _ in $(seq 1 300); do grep -q "EO Edge is running" "$log" && break; kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }; sleep 1; done
grep -q "EO Edge is running" "$log" || { echo "server did not start"; cat "$log"; exit 1; }

keys="$EO_EDGE_STATE/demo-s3-keys.json"
export AWS_ACCESS_KEY_ID="${S3_ACCESS_KEY_ID:-$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['accessKeyId'])" "$keys")}"
export AWS_SECRET_ACCESS_KEY="${S3_SECRET_ACCESS_KEY:-$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['secretAccessKey'])" "$keys")}"
export AWS_DEFAULT_REGION=us-east-1
endpoint="$(EO_EDGE_STATE="$EO_EDGE_STATE" npm run -s credentials | python3 -c "import json,sys; print(json.load(sys.stdin)['s3_endpoint'])")"
bucket=check-s3
key="run-$(date +%s)/sample file.bin"
head -c 9000000 /dev/urandom >"$work/in.bin" # above aws cli's 8 MiB multipart threshold: 2 parts

echo "== $(aws --version 2>&1)"
echo "== aws s3 cp (upload)"
aws --endpoint-url "$endpoint" s3 cp --only-show-errors "$work/in.bin" "s3://$bucket/$key"
echo "== aws s3 ls"
aws --endpoint-url "$endpoint" s3 ls "s3://$bucket/" --recursive | grep -F "$key"
echo "== aws s3 ls (ListBuckets)"
aws --endpoint-url "$endpoint" s3 ls | grep -w "$bucket"
echo "== aws s3 cp (download)"
aws --endpoint-url "$endpoint" s3 cp --only-show-errors "s3://$bucket/$key" "$work/down.bin"
cmp "$work/in.bin" "$work/down.bin" && echo "downloaded bytes equal the upload"
echo "== boto3 get_object Range=bytes=1000-1999"
python3 - "$endpoint" "$bucket" "$key" "$work/in.bin" <<'PY'
import sys, boto3
endpoint, bucket, key, path = sys.argv[1:]
s3 = boto3.client("s3", endpoint_url=endpoint)
r = s3.get_object(Bucket=bucket, Key=key, Range="bytes=1000-1999")
body = r["Body"].read()
want = open(path, "rb").read()[1000:2000]
print(f"boto3 {boto3.__version__}: HTTP {r['ResponseMetadata']['HTTPStatusCode']} ContentRange={r['ContentRange']} {len(body)} bytes, equal={body == want}")
assert r["ResponseMetadata"]["HTTPStatusCode"] == 206 and body == want
small = bytes(range(256)) * 40
s3.put_object(Bucket=bucket, Key=key + ".small", Body=small)  # one PutObject (streamed into R2, SHA-256 checked)
got = s3.get_object(Bucket=bucket, Key=key + ".small")["Body"].read()
print(f"boto3 put_object/get_object of {len(small)} bytes: equal={got == small}")
assert got == small
s3.delete_object(Bucket=bucket, Key=key + ".small")
try:
    s3.get_object(Bucket=bucket, Key=key + ".missing")
except s3.exceptions.NoSuchKey as e:
    print("boto3 missing key ->", e.response["Error"]["Code"])
PY
echo "== npx wrangler r2 object get eo-edge-buckets/$bucket/$key --local"
npx wrangler r2 object get "eo-edge-buckets/$bucket/$key" --local --persist-to "$EO_EDGE_STATE" --file "$work/r2.bin" 2>&1 | grep -v "^$" | tail -3
cmp "$work/in.bin" "$work/r2.bin" && echo "wrangler r2 bytes equal the upload"
echo "== aws s3 presign + curl (aws cli v1's default Signature Version 2, then s3v4)"
url="$(aws --endpoint-url "$endpoint" s3 presign "s3://$bucket/$key" --expires-in 300)"
echo "${url%%\?*}?$(sed -E 's/.*(AWSAccessKeyId|X-Amz-Algorithm)=.*/\1/' <<<"$url")=..."
curl -sf "$url" -o "$work/presigned.bin"
cmp "$work/in.bin" "$work/presigned.bin" && echo "presigned URL bytes equal the upload"
printf '[default]\ns3 =\n    signature_version = s3v4\n' >"$work/aws-config"
url="$(AWS_CONFIG_FILE="$work/aws-config" aws --endpoint-url "$endpoint" s3 presign "s3://$bucket/$key" --expires-in 300)"
echo "${url%%\?*}?X-Amz-Algorithm=...&X-Amz-Expires=$(sed -E 's/.*X-Amz-Expires=([0-9]+).*/\1/' <<<"$url")&..."
curl -sf "$url" -o "$work/presigned4.bin"
cmp "$work/in.bin" "$work/presigned4.bin" && echo "presigned URL bytes equal the upload"
gdalpy=""
for py in /usr/bin/python3 python3; do "$py" -c "from osgeo import gdal" 2>/dev/null && { gdalpy="$py"; break; }; done
if [ -n "$gdalpy" ]; then
  echo "== GDAL /vsis3/ (AWS_S3_ENDPOINT=${endpoint#http://})"
  AWS_S3_ENDPOINT="${endpoint#http://}" AWS_HTTPS=NO AWS_VIRTUAL_HOSTING=FALSE \
    "$gdalpy" -c "from osgeo import gdal; import sys; gdal.UseExceptions(); f = gdal.VSIFOpenL(sys.argv[1], 'rb'); open(sys.argv[2], 'wb').write(gdal.VSIFReadL(1, 10**8, f))" \
    "/vsis3/$bucket/$key" "$work/gdal.bin"
  cmp "$work/in.bin" "$work/gdal.bin" && echo "GDAL /vsis3/ bytes equal the upload"
fi
echo "== aws s3 rm"
aws --endpoint-url "$endpoint" s3 rm "s3://$bucket/$key"
echo "S3 END-TO-END CHECK PASSED"
