// The console's client of the service's S3 endpoint (`<origin>/s3`, path-style, AWS Signature V4 signed in the
// browser with aws4fetch): ListObjectsV2 of a prefix and downloads of objects, for the outputs of batch tasks.
// The key: an S3 endpoint key of the account created for this browser tab (POST /api/v1/accounts/me/s3keys; its
// secret is shown only once, so it is kept in sessionStorage and reused while the tab lives).
import { AwsClient } from "aws4fetch";
import { json } from "./api.js";

const KEY = "eo-edge-s3-key";
const ENDPOINT = `${location.origin}/s3`;
let client = null;

/** The signing client, with the tab's key (created on first use). */
async function s3() {
  if (client) return client;
  let key = JSON.parse(sessionStorage.getItem(KEY) ?? "null");
  if (!key) {
    const created = await json("/api/v1/accounts/me/s3keys", { method: "POST" });
    key = { accessKeyId: created.accessKeyId, secretAccessKey: created.secretAccessKey };
    sessionStorage.setItem(KEY, JSON.stringify(key));
  }
  client = new AwsClient({ ...key, service: "s3", region: "us-east-1" });
  return client;
}

/** Signed fetch of `path` (/bucket/key...) on the endpoint; throws with the S3 error's Code and Message. */
async function signedFetch(path, query = "") {
  const r = await (await s3()).fetch(`${ENDPOINT}${path}${query}`);
  if (!r.ok) {
    const xml = await r.text();
    const tag = (t) => new RegExp(`<${t}>([^<]*)</${t}>`).exec(xml)?.[1] ?? "";
    throw new Error(`S3 ${r.status} ${tag("Code")}: ${tag("Message")}`);
  }
  return r;
}

/** Encodes each segment of an object key for a URL path (keeps the slashes). */
const keyPath = (key) => key.split("/").map(encodeURIComponent).join("/");

/**
 * The objects of `bucket` under `prefix`: [{key, size}] (all pages of ListObjectsV2, at most `max` objects).
 */
export async function listObjects(bucket, prefix, max = 1000) {
  const out = [];
  let token = "";
  do {
    const q = new URLSearchParams({ "list-type": "2", prefix, "max-keys": "1000", ...(token ? { "continuation-token": token } : {}) });
    const doc = new DOMParser().parseFromString(await (await signedFetch(`/${encodeURIComponent(bucket)}`, `?${q}`)).text(), "application/xml");
    for (const c of doc.querySelectorAll("Contents")) out.push({ key: c.querySelector("Key").textContent, size: Number(c.querySelector("Size").textContent) });
    token = doc.querySelector("IsTruncated")?.textContent === "true" ? doc.querySelector("NextContinuationToken")?.textContent ?? "" : "";
  } while (token && out.length < max);
  return out;
}

/** The bytes of object `key` of `bucket` as a Blob. */
export async function getObject(bucket, key) {
  return (await signedFetch(`/${encodeURIComponent(bucket)}/${keyPath(key)}`)).blob();
}
