#!/usr/bin/env python3
"""S3 requests signed and answers parsed by botocore (the library boto3 and aws cli are built on), for the tests of
EO Edge's S3 endpoint (src/s3/, PY_S3 binding of vitest.config.ts): an oracle independent of the Worker's code.

stdin: {"items": [item, ...]}, each item
  {"endpoint": "http://localhost/s3", "key": "AK", "secret": "SK", "region": "us-east-1",
   "op": "put_object" | "get_object" | "list_objects_v2" | ... (a boto3 S3 client method), "params": {...},
   "time": "2020-01-01T00:00:00" (optional: sign as at this UTC time),
   "presign": 3600 (optional: a presigned URL of that many seconds instead of a header-signed request),
   "signature_version": "s3v4" (default) or "s3" (Signature Version 2: HmacV1Auth, presigned HmacV1QueryAuth),
   "response": {"status": 200, "headers": {...}, "body": "<base64>"} (optional)}
Without "response": answers {"method", "url", "headers", "body": base64} of the request botocore would send.
With "response": answers what the boto3 call returns for that HTTP answer ({"result": {...}} with bytes as
base64 and dates as ISO text), or {"error": {"Code", "Message", ...}, "status"} for an S3 error.
stdout: {"results": [...]} in item order. Exit 3 when boto3 is missing (the tests then skip).
"""
import base64
import datetime
import email.utils
import json
import sys
import time

try:
    import boto3
    import botocore.auth
    from botocore.awsrequest import AWSResponse
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError as e:  # pragma: no cover
    sys.stderr.write(f"boto3/botocore missing: {e}\n")
    sys.exit(3)


# botocore's signers read the clock through their module's `datetime` (the awscrt signer when awscrt is present)
SIGNERS = [botocore.auth]
try:
    import botocore.crt.auth
    SIGNERS.append(botocore.crt.auth)
except ImportError:
    pass


class Captured(Exception):
    """Raised from before-send to stop botocore after signing, carrying the prepared request."""

    def __init__(self, request):
        super().__init__("captured")
        self.request = request


class FixedClock:
    """Stands in for botocore.auth's `datetime` module so that signatures carry a chosen time."""

    def __init__(self, when):
        self.when = when
        self.datetime = self
        self.timedelta = datetime.timedelta
        self.timezone = datetime.timezone

    def utcnow(self):
        return self.when


class FixedTime:
    """Stands in for botocore.auth's `time` module (SigV2 presigned URLs: Expires = time() + expiry)."""

    def __init__(self, when):
        self.seconds = when.replace(tzinfo=datetime.timezone.utc).timestamp()

    def time(self):
        return self.seconds

    def __getattr__(self, name):
        return getattr(time, name)


class RawBody:
    """The minimal urllib3-like body botocore's AWSResponse reads from."""

    def __init__(self, data):
        self.data = data
        self.done = False

    def stream(self, amt=None, decode_content=True):
        if not self.done:
            self.done = True
            yield self.data

    def read(self, amt=None, decode_content=True):
        data, self.data = self.data, b""
        return data


def client(item):
    cfg = Config(signature_version=item.get("signature_version", "s3v4"), s3={"addressing_style": "path"}, retries={"max_attempts": 0})
    return boto3.client("s3", endpoint_url=item["endpoint"], aws_access_key_id=item["key"], aws_secret_access_key=item["secret"],
                        region_name=item.get("region", "us-east-1"), config=cfg)


def body_bytes(body):
    if body is None:
        return b""
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    if isinstance(body, str):
        return body.encode()
    data = body.read()
    body.seek(0)
    return data


def plain(value):
    """JSON-able copy of a boto3 result: bytes and streams as base64, dates as ISO text."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if hasattr(value, "read"):
        return base64.b64encode(value.read()).decode()
    return value


def sign(item):
    c = client(item)
    if "presign" in item:
        url = c.generate_presigned_url(item["op"], Params=item.get("params", {}), ExpiresIn=item["presign"])
        return {"method": "GET" if item["op"] != "put_object" else "PUT", "url": url, "headers": {}, "body": ""}

    def capture(request, **_):
        raise Captured(request)

    c.meta.events.register("before-send.s3.*", capture)
    try:
        getattr(c, item["op"])(**item.get("params", {}))
    except Captured as cap:
        r = cap.request
        headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in r.headers.items()}
        return {"method": r.method, "url": r.url, "headers": headers, "body": base64.b64encode(body_bytes(r.body)).decode()}
    raise RuntimeError("botocore sent nothing")


def parse(item):
    c = client(item)
    answer = item["response"]

    def respond(request, **_):
        return AWSResponse(request.url, answer["status"], answer["headers"], RawBody(base64.b64decode(answer["body"])))

    c.meta.events.register("before-send.s3.*", respond)
    try:
        return {"result": plain(getattr(c, item["op"])(**item.get("params", {})))}
    except ClientError as e:
        return {"error": e.response.get("Error", {}), "status": e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")}


def run(item):
    when = datetime.datetime.fromisoformat(item["time"]) if "time" in item else None
    clock = FixedClock(when) if when else datetime
    for module in SIGNERS:
        module.datetime = clock
    # SigV2 reads the clock through time.time() (presigned Expires) and email.utils.formatdate (the Date header)
    botocore.auth.time = FixedTime(when) if when else time
    botocore.auth.formatdate = (lambda usegmt=True: email.utils.formatdate(FixedTime(when).time(), usegmt=usegmt)) if when else email.utils.formatdate
    if "params" in item and "Body" in item["params"]:
        item["params"]["Body"] = base64.b64decode(item["params"]["Body"])
    return parse(item) if "response" in item else sign(item)


def handle(request):
    """The answer to one request (stdin's JSON above); test/services/py_serve.py calls it for each of many."""
    return {"results": [run(i) for i in request["items"]]}


if __name__ == "__main__":
    json.dump(handle(json.load(sys.stdin)), sys.stdout)
