/**
 * CQL2 JSON scalar expressions -> SQL (built by src/storage/filters.ts): property references (through the
 * collection's queryables), literals, timestamps and dates, arithmetic and casei(). Every literal becomes a bound
 * parameter.
 */
import { badRequest } from "../../http/errors";
import { arithmeticSql, columnSql, lowerSql, paramSql } from "../../storage/filters";
import type { Queryable } from "../queryables";
import { parseDate, parseInstant } from "../time";

export type ScalarType = "string" | "number" | "datetime" | "boolean";

export interface Scalar {
  text: string;
  params: unknown[];
  type: ScalarType;
  /** The JSON literal, when this is one (strings may still become datetimes). */
  literal?: string | number | boolean;
  /** How to name it in messages. */
  label: string;
}

export type Lookup = (name: string) => Queryable;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type ArithmeticOp = "+" | "-" | "*" | "/";

const ARITHMETIC: Record<ArithmeticOp, (a: number, b: number) => number> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
};

function literal(value: string | number | boolean): Scalar {
  if (typeof value === "boolean")
    return { ...paramSql(value ? 1 : 0), type: "boolean", literal: value, label: String(value) };
  if (typeof value === "number") return { ...paramSql(value), type: "number", literal: value, label: String(value) };
  return { ...paramSql(value), type: "string", literal: value, label: `'${value}'` };
}

/** A timestamp/date literal as ms. */
function timeLiteral(text: unknown, kind: "timestamp" | "date"): Scalar {
  const t = typeof text === "string" ? (kind === "date" ? parseDate(text) : parseInstant(text)) : null;
  if (t === null) throw badRequest(`Invalid ${kind} literal ${JSON.stringify(text)} in the filter.`);
  return { ...paramSql(t), type: "datetime", label: `${kind.toUpperCase()}('${text}')` };
}

function property(name: unknown, lookup: Lookup): Scalar {
  if (typeof name !== "string")
    throw badRequest('A property reference needs a string name: {"property": "eo:cloud_cover"}.');
  const q = lookup(name);
  if (q.type === "geometry" || !q.sql) throw badRequest(`Property '${name}' is a geometry; use it in s_intersects().`);
  return { ...columnSql(q.sql), type: q.type, label: name };
}

function arithmetic(op: ArithmeticOp, args: unknown[], lookup: Lookup): Scalar {
  if (args.length !== 2) throw badRequest(`Operator '${op}' takes two numbers.`);
  const [a, b] = args.map((x) => scalar(x, lookup));
  for (const s of [a!, b!])
    if (s.type !== "number") throw badRequest(`Operator '${op}' needs numbers; ${s.label} is a ${s.type}.`);
  if (typeof a!.literal === "number" && typeof b!.literal === "number")
    return literal(ARITHMETIC[op]!(a!.literal, b!.literal));
  return { ...arithmeticSql(a!, op, b!), type: "number", label: `${a!.label} ${op} ${b!.label}` };
}

/** Compiles a CQL2 JSON scalar (property, literal, timestamp, date, arithmetic, casei). Throws 400 otherwise. */
export function scalar(node: unknown, lookup: Lookup): Scalar {
  if (typeof node === "string" || typeof node === "number" || typeof node === "boolean") return literal(node);
  if (node === null) throw badRequest("null is not a comparable value in the filter; use 'IS NULL' (op isNull).");
  if (!isObject(node)) throw badRequest(`Unexpected ${JSON.stringify(node)} in the filter where a value was expected.`);
  if ("property" in node) return property(node.property, lookup);
  if ("timestamp" in node) return timeLiteral(node.timestamp, "timestamp");
  if ("date" in node) return timeLiteral(node.date, "date");
  const op = typeof node.op === "string" ? node.op.toLowerCase() : "";
  const args = Array.isArray(node.args) ? node.args : [];
  if (Object.hasOwn(ARITHMETIC, op)) return arithmetic(op as ArithmeticOp, args, lookup);
  if (op === "casei" || op === "lower") {
    const inner = scalar(args[0], lookup);
    if (args.length !== 1 || inner.type !== "string") throw badRequest("casei() takes one string value.");
    const lowered = typeof inner.literal === "string" ? literal(inner.literal.toLowerCase()) : undefined;
    return lowered ?? { ...inner, ...lowerSql(inner), literal: undefined, label: `casei(${inner.label})` };
  }
  throw badRequest(`Unsupported expression ${JSON.stringify(node).slice(0, 80)} where a value was expected.`);
}

/** Converts a string literal compared with a datetime into a datetime (ms). */
function asDatetime(s: Scalar): Scalar {
  if (s.type === "datetime") return s;
  if (typeof s.literal === "string") {
    const t = parseInstant(s.literal) ?? parseDate(s.literal);
    if (t !== null) return { ...paramSql(t), type: "datetime", label: s.label };
    throw badRequest(`${s.label} is not an RFC 3339 date-time to compare with a datetime.`);
  }
  throw badRequest(`Cannot compare ${s.label} (a ${s.type}) with a datetime.`);
}

/**
 * Brings comparable operands to one type (string literals become datetimes next to a datetime).
 * Throws 400 when the types differ.
 */
export function unify(operands: Scalar[]): Scalar[] {
  if (operands.some((s) => s.type === "datetime")) return operands.map(asDatetime);
  const first = operands[0]!;
  for (const s of operands.slice(1)) {
    if (s.type !== first.type)
      throw badRequest(`Cannot compare ${first.label} (a ${first.type}) with ${s.label} (a ${s.type}).`);
  }
  return operands;
}
