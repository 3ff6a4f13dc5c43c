// The archive twin's object store: GET and HEAD of `/objects/<bucket-or-host>/<key>` answered as S3 (or Azure Blob
// Storage, for the Planetary Computer's accounts) answers them: one byte range (`bytes=a-b`, `a-`, `-n`) -> 206 with
// Content-Range; an unsatisfiable range -> 416 InvalidRange; a missing key -> 404 NoSuchKey (BlobNotFound); a range
// list, which neither service supports, -> the whole object (200), as S3 does. ETag = the object's MD5 (S3's ETag of a
// single-part upload), If-None-Match -> 304.
import { createReadStream } from "node:fs";
import { checkRequesterPays } from "./auth.mjs";
import { BUCKETS } from "./store.mjs";

const escapeXml = (s) => String(s).replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Writes S3's (or Azure's) XML error document. */
export function sendXmlError(res, kind, { status, code, message }, extra = {}) {
  const fields = Object.entries({ Code: code, Message: message, ...extra })
    .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
    .join("");
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields}${kind === "s3" ? "<RequestId>TWIN</RequestId><HostId>archive-twin</HostId>" : ""}</Error>`;
  const headers = { "content-type": "application/xml", "content-length": Buffer.byteLength(body) };
  if (kind === "azure") headers["x-ms-error-code"] = code;
  res.writeHead(status, headers).end(res.req.method === "HEAD" ? undefined : body);
}

/**
 * Parses a Range header against an object of `size` bytes: undefined (no range, or one the server ignores: a list
 * or bad syntax) -> whole object; {start, end} inclusive; or "unsatisfiable".
 */
export function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec((header ?? "").trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  if (m[1] === "") {
    const n = Number(m[2]);
    return n === 0 ? "unsatisfiable" : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return undefined; // invalid range: ignored (RFC 9110 14.2)
  return start >= size ? "unsatisfiable" : { start, end };
}

const CONTENT_TYPES = {
  tif: "image/tiff",
  tiff: "image/tiff",
  json: "application/json",
  xml: "application/xml",
  txt: "text/plain",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
};
const contentType = (key) => CONTENT_TYPES[key.split(".").pop().toLowerCase()] ?? "binary/octet-stream";

/**
 * Answers GET/HEAD /objects/<name>/<key> (`path` is the part after /objects/, still URL-encoded). `twin`: { store,
 * sas, stats }. Access: requester-pays buckets need SigV4 of TWIN_AWS_KEYS; Azure hosts need a SAS of `twin.sas`.
 */
export async function serveObject(req, res, path, twin) {
  const slash = path.indexOf("/");
  const name = decodeURIComponent(slash < 0 ? path : path.slice(0, slash));
  const key = slash < 0 ? "" : decodeURIComponent(path.slice(slash + 1));
  const bucket = BUCKETS[name];
  const kind = bucket?.kind ?? "s3";
  if (req.method !== "GET" && req.method !== "HEAD")
    return sendXmlError(res, kind, {
      status: 405,
      code: "MethodNotAllowed",
      message: "The specified method is not allowed against this resource.",
    });
  if (!bucket)
    return sendXmlError(
      res,
      "s3",
      { status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist" },
      { BucketName: name },
    );
  const denied = bucket.requesterPays
    ? await checkRequesterPays(req, bucket.region)
    : kind === "azure"
      ? twin.sas.check(name.split(".")[0], key.split("/")[0], new URL(req.url, "http://twin").searchParams)
      : undefined;
  if (denied) return sendXmlError(res, kind, denied);
  const object = twin.store.objects.get(`${name}/${key}`);
  if (!object)
    return kind === "azure"
      ? sendXmlError(res, kind, { status: 404, code: "BlobNotFound", message: "The specified blob does not exist." })
      : sendXmlError(
          res,
          kind,
          { status: 404, code: "NoSuchKey", message: "The specified key does not exist." },
          { Key: key },
        );
  const etag = kind === "azure" ? `"0x${object.etag().slice(0, 15).toUpperCase()}"` : `"${object.etag()}"`;
  const headers = {
    "accept-ranges": "bytes",
    etag,
    "last-modified": object.mtime.toUTCString(),
    "content-type": contentType(key),
  };
  if (bucket.requesterPays) headers["x-amz-request-charged"] = "requester";
  if (kind === "azure") Object.assign(headers, { "x-ms-blob-type": "BlockBlob", "x-ms-version": "2021-06-08" });
  if (req.headers["if-none-match"] === etag) return res.writeHead(304, headers).end();
  const range = parseRange(req.headers.range, object.size);
  if (range === "unsatisfiable") {
    res.setHeader("content-range", `bytes */${object.size}`);
    return sendXmlError(
      res,
      kind,
      { status: 416, code: "InvalidRange", message: "The requested range is not satisfiable" },
      kind === "s3" ? { RangeRequested: req.headers.range, ActualObjectSize: object.size } : {},
    );
  }
  const { start, end } = range ?? { start: 0, end: object.size - 1 };
  headers["content-length"] = end - start + 1;
  if (range) headers["content-range"] = `bytes ${start}-${end}/${object.size}`;
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === "HEAD" || object.size === 0) return res.end();
  twin.stats.bytes += end - start + 1;
  // an injected mid-body fault (scripts/archive-twin.mjs): half the body, then the connection closed or silent
  const fault = req.twinFault;
  const last = fault ? start + Math.floor((end - start) / 2) : end;
  await new Promise((done) => {
    const stream = createReadStream(object.file, { start, end: last });
    if (fault) {
      res.on("close", () => (stream.destroy(), done()));
      stream.on("data", (chunk) => res.write(chunk));
      // "cut": the socket ends once the half is flushed, short of the Content-Length; "stall": it stays open
      stream.on("end", () => (fault === "cut" ? res.socket?.end() : undefined));
      return;
    }
    stream.on("error", () => (res.destroy(), done()));
    res.on("close", () => (stream.destroy(), done()));
    stream.pipe(res);
  });
}
