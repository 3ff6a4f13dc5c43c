/**
 * STAC API Fields extension: `fields: {include, exclude}` (POST) or `fields=a,-b` (GET), on dotted JSON paths
 * such as `properties.eo:cloud_cover`. As the interface spec says, include takes precedence when a path is in both.
 * - no `fields`: the whole item;
 * - include given: the default set (a minimal valid STAC item) plus the included paths, minus the excluded ones;
 * - only exclude given: the whole item minus the excluded paths;
 * - an excluded path keeps the included paths below it (exclude `properties`, include `properties.datetime`).
 */
export interface FieldsSpec {
  include: string[];
  exclude: string[];
}

/** The minimal set that keeps an item valid STAC (STAC fields extension default, plus version and collection). */
const DEFAULT = ["type", "stac_version", "stac_extensions", "id", "collection", "geometry", "bbox", "links", "assets", "properties.datetime"];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses the GET form: comma list, `-` prefix excludes, `+` or no prefix includes. */
export function parseFieldsParam(value: string): FieldsSpec {
  const spec: FieldsSpec = { include: [], exclude: [] };
  for (const raw of value.split(",")) {
    const f = raw.trim();
    if (f.startsWith("-")) spec.exclude.push(f.slice(1).trim());
    else if (f) spec.include.push(f.replace(/^\+/, "").trim());
  }
  return spec;
}

function copyPath(from: Json, to: Json, path: string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(from, head)) return; // own members only: never __proto__, toString...
  if (rest.length === 0) {
    to[head] = structuredClone(from[head]);
    return;
  }
  if (!isObj(from[head])) return;
  if (!isObj(to[head])) to[head] = {};
  copyPath(from[head] as Json, to[head] as Json, rest);
}

function deletePath(obj: Json, path: string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(obj, head)) return;
  if (rest.length === 0) delete obj[head];
  else if (isObj(obj[head])) deletePath(obj[head] as Json, rest);
}

function getPath(obj: Json, path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) cur = isObj(cur) && Object.hasOwn(cur, p) ? cur[p] : undefined;
  return cur;
}

/** Applies a fields spec to one rendered item (returns a new object). */
export function applyFields(item: Json, spec: FieldsSpec | undefined): Json {
  if (!spec) return item;
  const include = spec.include.filter(Boolean);
  const exclude = spec.exclude.filter((e) => e && !include.includes(e));
  let out: Json;
  if (include.length === 0 && exclude.length > 0) out = structuredClone(item);
  else {
    out = {};
    for (const p of [...DEFAULT, ...include]) copyPath(item, out, p.split("."));
  }
  for (const e of exclude) {
    const kept = include.filter((i) => i.startsWith(`${e}.`));
    deletePath(out, e.split("."));
    for (const k of kept) if (getPath(item, k.split(".")) !== undefined) copyPath(item, out, k.split("."));
  }
  return out;
}
