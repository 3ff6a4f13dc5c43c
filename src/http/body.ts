/**
 * Request bodies of the evalscript APIs (Processing, Statistical): JSON, or multipart/form-data with a `request`
 * part (the JSON request) and an optional `evalscript` part (Sentinel Hub's multipart request form).
 */
import { ApiError, badRequest } from "./errors";
import { readBytes } from "./limits";
import { isJsonType, mediaType, parseJson } from "./parse";

/** A form part as text (string parts, or file parts read as text); null when absent. */
async function formText(form: FormData, name: string): Promise<string | null> {
  const part = form.get(name) as unknown;
  if (part === null) return null;
  return typeof part === "string" ? part : (part as Blob).text();
}

/**
 * Reads the body. For multipart requests, `placeEvalscript(body, script)` puts the `evalscript` part where the
 * API expects it. Throws 400 for malformed JSON, a missing `request` part or an unsupported Content-Type (415),
 * 413 for a body over MAX_BODY_BYTES (src/http/limits.ts), counted while reading.
 */
export async function readScriptRequest(
  request: Request,
  placeEvalscript: (body: Record<string, unknown>, script: string) => void,
): Promise<unknown> {
  const type = mediaType(request);
  if (!isJsonType(type) && type !== "multipart/form-data")
    throw new ApiError(
      415,
      `Unsupported Content-Type '${type.slice(0, 100)}': send application/json (or multipart/form-data with 'request' and 'evalscript' parts).`,
    );
  const bytes = await readBytes(request);
  if (type !== "multipart/form-data") return parseJson(new TextDecoder().decode(bytes));
  const form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type")! } })
    .formData()
    .catch(() => {
      throw badRequest("Malformed multipart/form-data body.");
    });
  const text = await formText(form, "request");
  if (text === null) throw badRequest("multipart/form-data requests need a 'request' part holding the JSON request.");
  const body = parseJson(text, "The 'request' part");
  const script = await formText(form, "evalscript");
  if (script !== null && body && typeof body === "object") placeEvalscript(body as Record<string, unknown>, script);
  return body;
}
