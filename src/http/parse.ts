/** Request body parsing with zod: every failure becomes a 400 COMMON_BAD_PAYLOAD envelope. */
import type { ZodType } from "zod";
import { badRequest, ROOT_PATH, zodIssues } from "./errors";
import { readText } from "./limits";
import { namingUnknown, unknownMembers } from "./members";

/** True for the JSON media types a JSON body may be sent as: application/json, any `+json`, or none given. */
export const isJsonType = (type: string): boolean =>
  type === "" || type === "application/json" || type.endsWith("+json");

/**
 * Parses a JSON body whatever its Content-Type (the catalog accepts `curl -d` bodies). Throws 400 when the body is
 * empty or not JSON, 413 over MAX_BODY_BYTES (src/http/limits.ts, counted while reading).
 */
export async function readJson(request: Request): Promise<unknown> {
  return parseJson(await readText(request));
}

/** Parses JSON text; 400 (naming `what`) when it is empty or not JSON. */
export function parseJson(text: string, what = "The request body"): unknown {
  if (!text.trim()) throw badRequest(`${what} is empty; send a JSON document.`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * Validates `value` against `schema`; 400 with zod's issues in `errors` when invalid, naming the first and any
 * member the schema does not declare (./members.ts).
 */
export function validate<T>(schema: ZodType<T>, value: unknown, what = "request"): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = zodIssues(r.error);
  const [path, message] = Object.entries(issues)[0] ?? [ROOT_PATH, "invalid value"];
  const where = path !== ROOT_PATH ? ` at '${path}'` : "";
  throw namingUnknown(badRequest(`Invalid ${what}${where}: ${message}`, issues), unknownMembers(schema, value));
}

/** The request's media type: Content-Type without parameters, lower case ("" when absent). */
export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}
