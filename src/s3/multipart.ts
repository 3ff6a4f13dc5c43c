/**
 * Multipart uploads of the S3 endpoint (what `aws s3 cp` uses above 8 MiB; S3 API reference):
 * CreateMultipartUpload (POST ?uploads), UploadPart (PUT ?partNumber&uploadId), CompleteMultipartUpload
 * (POST ?uploadId, XML list of parts), AbortMultipartUpload (DELETE ?uploadId), over the store's MultipartUploads
 * (R2's multipart API). ListParts and ListMultipartUploads answer NotImplemented.
 */
import { XMLParser } from "fast-xml-parser";
import type { ObjectStore, UploadedPart } from "../buckets/types";
import type { SignedRequest } from "./auth";
import { bodyOf } from "./payload";
import { S3Error, invalidArgument, notImplemented, xmlResponse } from "./xml";

const xml = new XMLParser({ parseTagValue: false, isArray: (name) => name === "Part" });

/** The parts of a CompleteMultipartUpload body. @throws S3Error MalformedXML. */
function partsOf(body: ArrayBuffer): UploadedPart[] {
  const malformed = new S3Error(
    400,
    "MalformedXML",
    "The XML you provided was not well-formed or did not validate against our published schema.",
  );
  let doc: { CompleteMultipartUpload?: { Part?: { PartNumber?: string; ETag?: string }[] } };
  try {
    doc = xml.parse(new TextDecoder().decode(body));
  } catch {
    throw malformed;
  }
  const parts = doc.CompleteMultipartUpload?.Part ?? [];
  if (parts.length === 0) throw malformed;
  return parts.map((p) => {
    const partNumber = Number(p.PartNumber);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000 || !p.ETag) throw malformed;
    return { partNumber, etag: String(p.ETag).replace(/^"|"$/g, "") };
  });
}

/** Storage failures of an upload as S3 errors: unknown upload id NoSuchUpload, small parts EntityTooSmall, else InvalidPart. */
async function storage<T>(uploadId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof S3Error) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (/smaller than the minimum/i.test(message))
      throw new S3Error(
        400,
        "EntityTooSmall",
        `Your proposed upload is smaller than the minimum allowed object size (parts but the last need 5 MiB): ${message}`,
      );
    if (/does not exist|no such upload|not found/i.test(message))
      throw new S3Error(404, "NoSuchUpload", "The specified multipart upload does not exist.", { UploadId: uploadId });
    throw new S3Error(400, "InvalidPart", `The storage refused the upload: ${message}`, { UploadId: uploadId });
  }
}

/** The multipart operation `request` asks for, or undefined when it is none. @throws S3Error. */
export async function multipartOperation(
  store: ObjectStore,
  key: string,
  request: Request,
  s: SignedRequest,
): Promise<Response | undefined> {
  const q = new URL(request.url).searchParams;
  const uploadId = q.get("uploadId");
  const m = request.method;
  if (!q.has("uploads") && uploadId === null) return undefined;
  const mp = store.multipart;
  if (!mp) throw notImplemented(`Multipart uploads are not available for bucket '${store.bucket}'.`);
  if (m === "POST" && q.has("uploads")) {
    const id = await mp.create(key, { contentType: request.headers.get("content-type") ?? undefined });
    return xmlResponse("InitiateMultipartUploadResult", { Bucket: store.bucket, Key: key, UploadId: id });
  }
  if (uploadId === null || uploadId === "") throw invalidArgument("uploadId must be given.", "uploadId", "");
  if (m === "PUT") {
    const n = Number(q.get("partNumber"));
    if (!Number.isInteger(n) || n < 1 || n > 10000)
      throw invalidArgument(
        "Part number must be an integer between 1 and 10000, inclusive.",
        "partNumber",
        q.get("partNumber") ?? "",
      );
    const body = await bodyOf(request, s);
    const etag = await storage(uploadId, () => mp.uploadPart(key, uploadId, n, body));
    return new Response(null, { headers: { etag: `"${etag}"` } });
  }
  if (m === "POST") {
    const parts = partsOf(await bodyOf(request, s));
    const o = await storage(uploadId, () => mp.complete(key, uploadId, parts));
    return xmlResponse("CompleteMultipartUploadResult", {
      Location: `/${store.bucket}/${key}`,
      Bucket: store.bucket,
      Key: key,
      ETag: `"${o.etag}"`,
    });
  }
  if (m === "DELETE") {
    await storage(uploadId, () => mp.abort(key, uploadId));
    return new Response(null, { status: 204 });
  }
  throw notImplemented("ListParts is not implemented by this endpoint.");
}
