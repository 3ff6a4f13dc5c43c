/**
 * Members a request names that its zod schema does not declare. Request schemas keep unknown members
 * (passthrough: Sentinel Hub's bodies grow, clients send extras), so a misspelt member (`output.arrayParams`) is
 * silently ignored; when the request is then refused, the 400 names them, as what the client most likely got
 * wrong. Also the message of a required member that is missing (zod's global error map, set here once).
 */
import { z, type ZodType } from "zod";
import { ApiError } from "./errors";

// "output.delivery: required member is missing" rather than zod's "Invalid input: expected object, received undefined"
z.config({
  customError: (iss) =>
    iss.code === "invalid_type" && iss.input === undefined
      ? `required member is missing (expected ${iss.expected})`
      : undefined,
});

/** zod's definition of a schema (its internals: type and the fields the walk follows). */
type Def = {
  type: string;
  innerType?: ZodType;
  in?: ZodType;
  shape?: Record<string, ZodType>;
  element?: ZodType;
  valueType?: ZodType;
  options?: ZodType[];
  getter?: () => ZodType;
};
const defOf = (s: ZodType): Def => (s as unknown as { _zod?: { def: Def } })._zod?.def ?? { type: "unknown" };

/** The schema under optional / nullable / default / pipe / transform wrappers. */
function unwrap(s: ZodType): ZodType {
  for (let d = defOf(s); ; d = defOf(s)) {
    const next = d.innerType ?? (d.type === "pipe" ? d.in : d.type === "lazy" ? d.getter!() : undefined);
    if (!next) return s;
    s = next;
  }
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Paths (`a.b.c`) of the members of `value` that `schema` does not declare, in document order. */
export function unknownMembers(schema: ZodType, value: unknown, path: string[] = []): string[] {
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type === "object" && isPlain(value))
    // Own members only: a body's "constructor" or "toString" must not find Object.prototype's functions.
    return Object.entries(value).flatMap(([k, v]) =>
      Object.hasOwn(d.shape!, k) ? unknownMembers(d.shape![k]!, v, [...path, k]) : [[...path, k].join(".")],
    );
  if (d.type === "array" && Array.isArray(value))
    return value.flatMap((v, i) => unknownMembers(d.element!, v, [...path, String(i)]));
  if (d.type === "record" && isPlain(value))
    return Object.entries(value).flatMap(([k, v]) => unknownMembers(d.valueType!, v, [...path, k]));
  if (d.type === "union") {
    const match =
      d.options!.find((o) => o.safeParse(value).success) ?? d.options!.find((o) => !unknownMembers(o, value).length);
    return match ? unknownMembers(match, value, path) : [];
  }
  return [];
}

/** `err` (a 400) with the unknown members named in its message and `errors` ("unknown member"); others as they are. */
export function namingUnknown(err: unknown, unknown: string[]): unknown {
  if (!(err instanceof ApiError) || err.status !== 400 || !unknown.length) return err;
  const named = `${err.message.replace(/\.?$/, ".")} The request also has unknown member(s), ignored: ${unknown.join(", ")} (check their spelling).`;
  return new ApiError(
    400,
    named,
    { ...err.errors, ...Object.fromEntries(unknown.map((p) => [p, "unknown member"])) },
    err.code,
    err.headers,
  );
}

/** Runs `check`; a 400 it throws names the members of `value` that `schema` does not declare. */
export async function checkNamingUnknown<T>(schema: ZodType, value: unknown, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (e) {
    throw namingUnknown(e, unknownMembers(schema, value));
  }
}
