// The console's client of the service's S3 endpoint (`<origin>/s3`, path-style, AWS Signature V4 signed in the
// browser with aws4fetch): ListObjectsV2 of a prefix and downloads of objects, for the outputs of batch tasks;
// PutObject, for a statistical batch's GeoPackage uploaded from the batch page.
// Each operation signs with a key of its own: created for it (POST /api/v1/accounts/me/s3keys, whose secret is shown
// only in that answer) and deleted when it ends, so the console neither keeps a secret nor leaves keys behind
// (an account may have at most 10).
import { AwsClient } from "aws4fetch";
import { call, json } from "./api.js";

const ENDPOINT = `${location.origin}/s3`;
const KEYS = "/api/v1/accounts/me/s3keys";

/** Runs `use(fetchS3)` with a fresh key (deleted afterwards); fetchS3(path, query) throws with the S3 error's Code. */
async function withKey(use) {
  const { accessKeyId, secretAccessKey } = await json(KEYS, { method: "POST" });
  const client = new AwsClient({ accessKeyId, secretAccessKey, service: "s3", region: "us-east-1" });
  const fetchS3 = async (path, query = "", init = {}) => {
    const r = await client.fetch(`${ENDPOINT}${path}${query}`, init);
    if (r.ok) return r;
    const xml = await r.text();
    const tag = (t) => new RegExp(`<${t}>([^<]*)</${t}>`).exec(xml)?.[1] ?? "";
    throw new Error(`S3 ${r.status} ${tag("Code")}: ${tag("Message")}`);
  };
  try {
    return await use(fetchS3);
  } finally {
    await call(`${KEYS}/${encodeURIComponent(accessKeyId)}`, { method: "DELETE" }).catch((err) =>
      console.warn("S3 key not deleted:", err.message),
    );
  }
}

/** Encodes each segment of an object key for a URL path (keeps the slashes). */
const keyPath = (key) => key.split("/").map(encodeURIComponent).join("/");

/** The objects of `bucket` under `prefix`: [{key, size}] (all pages of ListObjectsV2, at most `max` objects). */
export function listObjects(bucket, prefix, max = 1000) {
  return withKey(async (fetchS3) => {
    const out = [];
    let token = "";
    do {
      const q = new URLSearchParams({
        "list-type": "2",
        prefix,
        "max-keys": String(Math.min(max, 1000)),
        ...(token ? { "continuation-token": token } : {}),
      });
      const doc = new DOMParser().parseFromString(
        await (await fetchS3(`/${encodeURIComponent(bucket)}`, `?${q}`)).text(),
        "application/xml",
      );
      for (const c of doc.querySelectorAll("Contents"))
        out.push({ key: c.querySelector("Key").textContent, size: Number(c.querySelector("Size").textContent) });
      token =
        doc.querySelector("IsTruncated")?.textContent === "true"
          ? (doc.querySelector("NextContinuationToken")?.textContent ?? "")
          : "";
    } while (token && out.length < max);
    return out;
  });
}

/** Writes `body` (a Blob or File) as object `key` of `bucket` (S3 PutObject); resolves when stored. */
export function putObject(bucket, key, body) {
  return withKey(
    async (fetchS3) =>
      void (await fetchS3(`/${encodeURIComponent(bucket)}/${keyPath(key)}`, "", { method: "PUT", body })),
  );
}

/** The bytes of object `key` of `bucket` as a Blob. */
export function getObject(bucket, key) {
  return withKey(async (fetchS3) => (await fetchS3(`/${encodeURIComponent(bucket)}/${keyPath(key)}`)).blob());
}
