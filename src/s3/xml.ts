/**
 * S3's XML answers (S3 API reference: Error responses, ListObjectsV2/ListObjects, ListBuckets, DeleteObjects) and
 * its errors as a throwable {@link S3Error}, rendered with fast-xml-parser's builder (which escapes text).
 */
import { XMLBuilder } from "fast-xml-parser";

export const S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/";

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", suppressEmptyNode: false });

/** `<?xml ...?><root xmlns=S3_NS>...</root>` of a plain object (arrays repeat their element). */
export function xmlDocument(root: string, body: Record<string, unknown>, namespace = true): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    builder.build({ [root]: namespace ? { "@xmlns": S3_NS, ...body } : body })
  );
}

/** An XML answer with S3's content type. */
export const xmlResponse = (root: string, body: Record<string, unknown>, status = 200): Response =>
  new Response(xmlDocument(root, body), { status, headers: { "content-type": "application/xml" } });

/** An S3 error: its HTTP status, S3 error code (NoSuchKey, SignatureDoesNotMatch, ...), message and extra fields. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `<Error><Code/><Message/>...<Resource/><RequestId/></Error>`; a HEAD answer carries no body (as S3's). */
export function errorResponse(err: S3Error, resource: string, method: string): Response {
  const headers = { "content-type": "application/xml", "x-amz-request-id": crypto.randomUUID(), ...err.headers };
  if (method === "HEAD") return new Response(null, { status: err.status, headers });
  const body = {
    Code: err.code,
    Message: err.message,
    ...err.fields,
    Resource: resource,
    RequestId: headers["x-amz-request-id"],
  };
  return new Response(xmlDocument("Error", body, false), { status: err.status, headers });
}

/** Frequent errors. */
export const noSuchKey = (key: string) =>
  new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });
export const invalidArgument = (message: string, name?: string, value?: string) =>
  new S3Error(
    400,
    "InvalidArgument",
    message,
    name === undefined ? {} : { ArgumentName: name, ArgumentValue: value ?? "" },
  );
export const accessDenied = (message: string) => new S3Error(403, "AccessDenied", message);
export const notImplemented = (message: string) => new S3Error(501, "NotImplemented", message);
