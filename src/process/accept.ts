/**
 * Response format negotiation for the Processing API (RFC 9110 section 12.5.1, through the `negotiator` package):
 * the Accept header is a list of media ranges with q-values (q=0 excludes a type; `*\/*` and `image/*` match
 * several); the best type the request can produce wins, ties going to the request's own `format.type`. So
 * axios's default `Accept: application/json, text/plain, *\/*` gets the requested format.
 * What a request can produce:
 * - one response: its own format.type first, then the other image formats (an image Accept overrides the
 *   requested type, as Sentinel Hub documents; `userdata` is JSON only), `application/octet-stream`, or packed as
 *   `application/x-tar`, `application/tar` or `multipart/mixed`;
 * - several responses: `application/x-tar` (the default), `application/tar`, `multipart/mixed`, octet-stream.
 * The spec's Accept "sets the response type": `application/octet-stream` is answered with that Content-Type, the
 * bytes being the requested format (one response) or the default tar (several).
 * An Accept list that matches none of these is a 400 naming what the request can produce: Sentinel Hub's OpenAPI
 * documents 400 (and no 406) for the process endpoint.
 */
import Negotiator from "negotiator";
import { badRequest } from "../http/errors";
import type { ResponseRequest } from "./schema";

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/tiff", "application/json"] as const;
const PICTURES = ["image/png", "image/jpeg", "image/tiff"];
const PACKED = ["application/x-tar", "application/tar", "multipart/mixed"];
const OCTET_STREAM = "application/octet-stream";

/** How to answer: one encoded `type` sent as `contentType`, a tar sent as `contentType`, or multipart/mixed. */
export type Packing =
  | { kind: "single"; type: string; contentType: string }
  | { kind: "tar"; contentType: string }
  | { kind: "multipart" };

/** The media types a request for `responses` can be answered with, most preferred first. */
export function producibleTypes(responses: readonly ResponseRequest[]): string[] {
  if (responses.length > 1) return [PACKED[0]!, PACKED[1]!, PACKED[2]!, OCTET_STREAM];
  const own = responses[0]!.format.type.toLowerCase();
  const formats = responses[0]!.identifier === "userdata" ? ["application/json"] : PICTURES;
  return [own, ...formats.filter((t) => t !== own), OCTET_STREAM, ...PACKED];
}

/**
 * The type to answer with: the best match of `accept` (an Accept header value; null or blank = anything) among
 * `available` (most preferred first), or null when the header excludes them all.
 */
export function bestType(accept: string | null, available: readonly string[]): string | null {
  if (!accept?.trim()) return available[0] ?? null;
  return new Negotiator({ headers: { accept } }).mediaType(available) ?? null;
}

/**
 * Decides how to answer `responses` under an Accept header.
 * @throws ApiError 400 for a single response of an unsupported format.type, or an Accept header that excludes
 *   every type the request can produce (the message lists them).
 */
export function negotiate(responses: ResponseRequest[], accept: string | null): Packing {
  const own = responses[0]!.format.type;
  if (responses.length === 1 && !(IMAGE_TYPES as readonly string[]).includes(own.toLowerCase()))
    throw badRequest(
      `Unsupported output format '${own}'. Supported: ${IMAGE_TYPES.join(", ")} (several responses: application/x-tar, multipart/mixed).`,
    );
  const available = producibleTypes(responses);
  const chosen = bestType(accept, available);
  if (!chosen)
    throw badRequest(
      `The Accept header '${accept}' allows none of the types this request can produce: ${available.join(", ")}.`,
    );
  const type = chosen === OCTET_STREAM ? available[0]! : chosen;
  if (type === "multipart/mixed") return { kind: "multipart" };
  if (type.endsWith("tar")) return { kind: "tar", contentType: chosen };
  return { kind: "single", type, contentType: chosen };
}
