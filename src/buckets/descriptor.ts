/**
 * Checks, at submission, of what a task request says about object storage: every bucket descriptor URL
 * (Sentinel Hub `ObjectStorageInfoV2` / `S3BucketInfo`, templated or not) and every output identifier that
 * becomes a file name. The zod schemas of async, batch and statistical batch all use these, so a URL one API
 * refuses is refused by the others at submission rather than failing the task once it runs.
 * Resolving a descriptor to a store is ./index.ts; this file only decides whether one is well formed.
 */
import { z } from "zod";
import { parseS3Url } from "./index";

/** A delivery template's placeholder (`<REQUEST_ID>`, `<OUTPUT>`, `<requestId>`, `<tileName>`, `<ID>`, ...). */
const PLACEHOLDER = /<([A-Za-z_]+)>/g;
/** C0 control characters and DEL: never part of a bucket name or key a client means (a newline, a tab, NUL). */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Longest descriptor URL: S3 keys are at most 1024 bytes, plus the scheme and bucket. */
export const MAX_S3_URL_CHARS = 1100;
/** Longest output identifier (a file name without its extension). */
export const MAX_IDENTIFIER_CHARS = 200;

/** `s` with its control characters shown as `\uXXXX` escapes (for messages), cut to 120 characters. */
const printable = (s: string): string =>
  s.slice(0, 120).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * Why `url` cannot be a descriptor URL (`s3://<bucket>/<prefix>`, the rules of parseS3Url: a valid bucket name,
 * no `.` or `..` segment), or undefined when it can. A placeholder stands for its own name (`<tileName>` is
 * checked as `tileName`), so a template is checked as any of its file paths would be; control characters and
 * URLs over {@link MAX_S3_URL_CHARS} are refused too.
 */
export function s3UrlProblem(url: string): string | undefined {
  if (url.length > MAX_S3_URL_CHARS)
    return `the URL is ${url.length} characters long; at most ${MAX_S3_URL_CHARS} are accepted`;
  if (CONTROL.test(url)) return `'${printable(url)}' contains a control character (newline, tab, ...)`;
  try {
    parseS3Url(url.replace(PLACEHOLDER, "$1"));
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Why `name` cannot be an output identifier that names a file (`<identifier>.tif` in a delivery, a Zarr array),
 * or undefined when it can: one path segment (no `/` or `\`, not `.` or `..`), no control character, at most
 * {@link MAX_IDENTIFIER_CHARS} characters.
 */
export function fileNameProblem(name: string): string | undefined {
  if (name.length > MAX_IDENTIFIER_CHARS) return `an identifier is at most ${MAX_IDENTIFIER_CHARS} characters`;
  if (CONTROL.test(name)) return `'${printable(name)}' contains a control character`;
  if (/[/\\]/.test(name) || name === "." || name === "..")
    return `'${printable(name)}' is not a file name: no '/', '\\', '.' or '..'`;
  return undefined;
}

/** A zod refinement adding the issue `problem(value)` names, if any. */
const refinedBy = (problem: (v: string) => string | undefined) => (v: string, ctx: z.RefinementCtx) => {
  const p = problem(v);
  if (p) ctx.addIssue({ code: "custom", message: p });
};

/** A descriptor URL checked by {@link s3UrlProblem}. */
export const s3UrlSchema = z
  .string({ error: "s3.url is required: s3://<bucket>/<prefix>" })
  .superRefine(refinedBy(s3UrlProblem));

/** An output identifier that names a file, checked by {@link fileNameProblem} (default `default`). */
export const identifierSchema = z
  .string()
  .min(1, "an identifier is not empty")
  .superRefine(refinedBy(fileNameProblem))
  .default("default");

/** `S3BucketInfo`: `url` plus optional keys and region (an `iamRoleARN` is accepted; unknown members are kept). */
export const s3DescriptorSchema = z
  .object({
    url: s3UrlSchema,
    accessKey: z.string().optional(),
    secretAccessKey: z.string().optional(),
    region: z.string().optional(),
    iamRoleARN: z.string().optional(),
  })
  .passthrough();

/**
 * `ObjectStorageInfoV2` with its `s3` descriptor; `what` names the member in the error when it is missing or not
 * an object. Other members (a `gs` descriptor) are kept but never used: there is no Google Cloud Storage here.
 */
export const objectStorageSchema = (what: string) =>
  z
    .object(
      { s3: s3DescriptorSchema },
      { error: `${what} must be an object-storage descriptor {"s3": {"url": "s3://<bucket>/<prefix>"}}` },
    )
    .passthrough();
