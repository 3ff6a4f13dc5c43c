/**
 * Bucket policies: how the owner of a bucket grants it to other accounts (S3 PutBucketPolicy on the S3 endpoint).
 * EO Edge reads the subset of the IAM policy language that Sentinel Hub's own bucket policy uses ("your bucket
 * policy must grant Sentinel Hub access", docs.sentinel-hub.com/api/latest/api/byoc, .../batch): statements
 *
 *   {"Effect": "Allow", "Principal": {"AWS": ["<account id>", "arn:aws:iam::<account id>:root"]},
 *    "Action": "s3:*", "Resource": ["arn:aws:s3:::<bucket>", "arn:aws:s3:::<bucket>/*"]}
 *
 * A grant is the whole bucket, read and write, so only `s3:*` (or `*`) actions and the bucket's own two resources
 * are accepted: a narrower policy (GetObject only, one prefix) would be read as more than it says, so it is
 * refused instead. Deny statements, conditions, NotPrincipal / NotAction and `*` principals are refused too.
 */
import { isUuid } from "../http/ids";

/** A policy EO Edge cannot read; `message` says what to change (S3 MalformedPolicy). */
export class PolicyError extends Error {}

/** Largest policy text (AWS: 20 KB per bucket policy). */
export const MAX_POLICY_BYTES = 20 * 1024;
/** Most accounts one policy grants. */
export const MAX_GRANTEES = 100;

const PRINCIPAL = /^(?:arn:aws:iam::)?([^:]+)(?::root)?$/i;
/** The account id a principal names (`<account id>` or `arn:aws:iam::<account id>:root`), lower-case; undefined if none. */
const principalId = (p: string): string | undefined => {
  const id = PRINCIPAL.exec(p)?.[1];
  return id !== undefined && isUuid(id) ? id.toLowerCase() : undefined;
};
const ALLOWED_KEYS = new Set(["Sid", "Effect", "Principal", "Action", "Resource"]);

const fail = (message: string): never => {
  throw new PolicyError(message);
};

/** A string or a list of strings as a list. */
function strings(value: unknown, what: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((v) => typeof v !== "string"))
    fail(`${what} must be a string or a non-empty list of strings.`);
  return list as string[];
}

/** The account ids one statement grants. */
function statementGrantees(s: unknown, bucket: string, i: number): string[] {
  const at = `Statement ${i + 1}`;
  if (typeof s !== "object" || s === null || Array.isArray(s)) return fail(`${at} must be an object.`);
  const extra = Object.keys(s).find((k) => !ALLOWED_KEYS.has(k));
  if (extra)
    fail(`${at}: '${extra.slice(0, 40)}' is not supported (statements hold Sid, Effect, Principal, Action, Resource).`);
  const { Effect, Principal, Action, Resource } = s as Record<string, unknown>;
  if (Effect !== "Allow") fail(`${at}: Effect must be "Allow" (a grant; Deny statements are not supported).`);
  const aws =
    typeof Principal === "object" && Principal !== null ? (Principal as Record<string, unknown>).AWS : undefined;
  if (aws === undefined) fail(`${at}: Principal must be {"AWS": <account id or list of them>}.`);
  const grantees = strings(aws, `${at}: Principal.AWS`).map(
    (p) =>
      principalId(p) ??
      fail(`${at}: principal '${p.slice(0, 80)}' is not an EO Edge account id (or arn:aws:iam::<account id>:root).`),
  );
  if (!strings(Action, `${at}: Action`).every((a) => a === "s3:*" || a === "*"))
    fail(`${at}: Action must be "s3:*": a grant gives the whole bucket, read and write.`);
  const own = [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`];
  if (!strings(Resource, `${at}: Resource`).every((r) => own.includes(r)))
    fail(`${at}: Resource must be ${own.map((r) => `"${r}"`).join(" and/or ")} (grants are per bucket).`);
  return grantees;
}

/**
 * The accounts a bucket policy grants `bucket` to (lower-case ids, each once).
 * @throws PolicyError for text that is not such a policy (see the module comment), larger than MAX_POLICY_BYTES
 *   or granting more than MAX_GRANTEES accounts.
 */
export function policyGrantees(text: string, bucket: string): string[] {
  if (new TextEncoder().encode(text).byteLength > MAX_POLICY_BYTES)
    fail(`A bucket policy is at most ${MAX_POLICY_BYTES} bytes.`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail("The bucket policy is not valid JSON.");
  }
  const statements = typeof doc === "object" && doc !== null ? (doc as { Statement?: unknown }).Statement : undefined;
  if (statements === undefined) fail('The bucket policy must be a JSON object with "Statement".');
  const list = Array.isArray(statements) ? statements : [statements];
  const grantees = [...new Set(list.flatMap((s, i) => statementGrantees(s, bucket, i)))];
  if (grantees.length > MAX_GRANTEES) fail(`A bucket policy grants at most ${MAX_GRANTEES} accounts.`);
  return grantees;
}
