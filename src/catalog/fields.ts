/**
 * STAC API Fields extension (stac-api-extensions/fields, "Include/Exclude Semantics"): `fields: {include,
 * exclude}` (POST) or `fields=a,+b,-c` (GET) on dotted JSON paths such as `properties.eo:cloud_cover`.
 * - `include` missing (POST only) and `exclude` given: the whole item minus the excluded paths;
 * - `include` null or empty (always so for GET, where an empty list and a missing one look alike): the default set
 *   (a minimal valid STAC item, DEFAULT) minus the excluded paths;
 * - `include` given: only the included paths, plus the item's short identifying members (ALWAYS), minus the
 *   excluded ones;
 * - the most specific path decides, and a path both included and excluded is included: exclude `properties` and
 *   include `properties.datetime` keeps only that property; include `properties` and exclude
 *   `properties.datetime` keeps all properties but that one.
 * Sentinel Hub documents the same rule ("include takes precedence when both are given"). Paths follow own members
 * of objects only (never `__proto__`, `toString`, ...); arrays are not entered.
 */
export interface FieldsSpec {
  /** Undefined: not given (POST); []: null, empty or GET. */
  include?: string[];
  exclude: string[];
}

/** The default set: what keeps an item valid STAC (the extension's list, plus `collection` and `stac_extensions`). */
const DEFAULT = [
  "type",
  "stac_version",
  "stac_extensions",
  "id",
  "collection",
  "geometry",
  "bbox",
  "links",
  "assets",
  "properties.datetime",
];

/** Short identifying members returned with any `include` (the extension allows a minimum beyond it). */
const ALWAYS = ["type", "stac_version", "id", "collection"];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses the GET form: comma list, `-` prefix excludes, `+` (or a space: a decoded `+`) or no prefix includes. */
export function parseFieldsParam(value: string): FieldsSpec {
  const spec: FieldsSpec = { include: [], exclude: [] };
  for (const raw of value.split(",")) {
    const f = raw.trim();
    if (f.startsWith("-")) spec.exclude.push(f.slice(1).trim());
    else if (f) spec.include!.push(f.replace(/^\+/, "").trim());
  }
  return spec;
}

/** The fields decision for one path: included (+), excluded (-), or undecided (the caller's base set decides). */
type Rule = "+" | "-" | undefined;

/** Include/exclude rules by path, the base set, and the paths some rule or base path lies strictly below. */
interface Selection {
  rules: Map<string, Rule>;
  base: Set<string> | "all";
  /** Paths with a rule or a base path strictly below them: selected member by member. */
  partial: Set<string>;
}

function selection(spec: FieldsSpec, item: Json): Selection {
  const rules = new Map<string, Rule>();
  for (const e of spec.exclude.filter(Boolean)) rules.set(e, "-");
  for (const i of (spec.include ?? []).filter(Boolean)) rules.set(i, "+"); // include wins over the same exclude
  const included = (spec.include ?? []).some(Boolean);
  let base: Set<string> | "all";
  if (spec.include === undefined && rules.size > 0) base = "all";
  else if (included) base = new Set(ALWAYS);
  else {
    const props = isObj(item.properties) ? item.properties : {};
    const range =
      props.datetime === null || props.datetime === undefined
        ? ["properties.start_datetime", "properties.end_datetime"]
        : [];
    base = new Set([...DEFAULT, ...range]);
  }
  const partial = new Set<string>();
  for (const path of [...rules.keys(), ...(base === "all" ? [] : base)]) {
    const parts = path.split(".");
    for (let n = 1; n < parts.length; n++) partial.add(parts.slice(0, n).join("."));
  }
  return { rules, base, partial };
}

/** The decision for `path`: its own rule, else its parent's decision, else membership in the base set. */
function decide(sel: Selection, path: string, inherited: Rule): Rule {
  const own = sel.rules.get(path);
  if (own) return own;
  if (inherited) return inherited;
  if (sel.base === "all" || sel.base.has(path)) return "+";
  return undefined;
}

/** The selected members of `obj` at `prefix` (`inherited`: the decision for `prefix`). */
function select(obj: Json, prefix: string, sel: Selection, inherited: Rule): Json {
  const out: Json = {};
  for (const key of Object.keys(obj)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const rule = decide(sel, path, inherited);
    const value = obj[key];
    if (sel.partial.has(path) && isObj(value)) {
      const inner = select(value, path, sel, rule);
      if (Object.keys(inner).length > 0 || rule === "+") out[key] = inner;
    } else if (rule === "+") out[key] = structuredClone(value);
  }
  return out;
}

/** Applies a fields spec to one rendered item (returns a new object; without a spec, the item itself). */
export function applyFields(item: Json, spec: FieldsSpec | undefined): Json {
  if (!spec) return item;
  return select(item, "", selection(spec, item), undefined);
}
