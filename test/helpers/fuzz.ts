/**
 * fast-check arbitraries for fuzzing request bodies: random JSON documents, random text, and mutations of a valid
 * request (one member replaced by a random or hostile value, deleted, or a new member added, `__proto__` included).
 */
import fc from "fast-check";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values that have broken parsers before: prototype keys, extremes, wrong types, huge and odd strings. */
const HOSTILE: Json[] = [
  "__proto__",
  "constructor",
  "toString",
  "",
  " ",
  "\u0000",
  "\ud800",
  "%ZZ",
  "*?[",
  "'; DROP TABLE items; --",
  "x".repeat(5000),
  -1,
  0,
  1e308,
  -1e308,
  5e-324,
  2 ** 53 + 1,
  -(2 ** 31),
  1.5,
  [],
  {},
  [[]],
  [null],
  null,
  true,
  "2018-13-45T25:61:00Z",
  "NaN",
  "Infinity",
  "P9999999Y",
  "..",
  "-180,-90,180,90",
  { type: "Point", coordinates: [] },
];

/** Plausible values of Sentinel Hub requests, so that mutated requests often stay valid and reach the evaluation. */
const PLAUSIBLE: Json[] = [
  "image/png",
  "image/jpeg",
  "image/tiff",
  "application/json",
  "default",
  "userdata",
  "UINT8",
  "UINT16",
  "FLOAT32",
  "AUTO",
  "SIMPLE",
  "ORBIT",
  "TILE",
  "mostRecent",
  "leastRecent",
  "leastCC",
  "BILINEAR",
  "NEAREST",
  "BICUBIC",
  "P1D",
  "P5D",
  "P1M",
  "SKIP",
  "SHORTEN",
  "EXTEND",
  "sentinel-2-l2a",
  "sentinel-2-l1c",
  "sentinel-1-grd",
  "S2L2A",
  "DN",
  "REFLECTANCE",
  "http://www.opengis.net/def/crs/EPSG/0/4326",
  "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
  "http://www.opengis.net/def/crs/EPSG/0/3857",
  "2018-04-19T10:00:00Z",
  "2018-04-01T00:00:00Z",
  "2018-04-30T23:59:59Z",
  "2018-04-19",
  1,
  2,
  3,
  7,
  10,
  16,
  20,
  60,
  100,
  0.5,
  true,
  false,
  [0, 1],
  [50],
  ["B02", "B03"],
  { nBins: 3 },
  { bands: 1 },
];

/** A random JSON value (depth <= 3), a hostile one, a plausible one, or one of `domain` (e.g. evalscripts). */
export const value = (domain: Json[] = []): fc.Arbitrary<Json> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
    { weight: 3, arbitrary: fc.constantFrom(...PLAUSIBLE) },
    { weight: domain.length > 0 ? 3 : 0, arbitrary: fc.constantFrom<Json>(...domain, null) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  );

/** Every path (list of keys/indices) to a member of `doc`, the root excluded. */
function paths(doc: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (doc === null || typeof doc !== "object") return [];
  const entries: [string | number, Json][] = Array.isArray(doc) ? doc.map((v, i) => [i, v]) : Object.entries(doc);
  return entries.flatMap(([k, v]) => [[...prefix, k], ...paths(v, [...prefix, k])]);
}

/** Sets an own, enumerable member (so that `__proto__` becomes a key in the JSON text, not a prototype). */
function setOwn(target: Record<string | number, Json>, key: string | number, v: Json): void {
  Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true });
}

interface Mutation {
  at: number;
  op: "set" | "delete" | "add";
  key: string;
  v: Json;
}

function apply(valid: Json, m: Mutation): Json {
  const doc = structuredClone(valid);
  const all = paths(doc);
  if (all.length === 0) {
    if (doc !== null && typeof doc === "object") setOwn(doc as Record<string, Json>, m.key, m.v);
    return doc;
  }
  const path = all[m.at % all.length]!;
  const parent = path.slice(0, -1).reduce<Json>((o, k) => (o as Record<string | number, Json>)[k]!, doc) as Record<
    string | number,
    Json
  >;
  const last = path[path.length - 1]!;
  const child = parent[last];
  if (m.op === "set") setOwn(parent, last, m.v);
  else if (m.op === "delete" && Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (m.op === "delete") delete parent[last];
  else if (child && typeof child === "object" && !Array.isArray(child))
    setOwn(child as Record<string, Json>, m.key, m.v);
  else setOwn(parent, last, m.v);
  return doc;
}

/** `valid` with one (mostly) to three members replaced (by `value(domain)`), deleted or added. */
export function mutationOf(valid: Json, domain: Json[] = []): fc.Arbitrary<Json> {
  const mutation = fc.record({
    at: fc.nat(),
    op: fc.constantFrom<Mutation["op"]>("set", "set", "delete", "add"),
    key: fc.oneof(fc.constantFrom("__proto__", "constructor", "type", "id", "bands"), fc.string({ maxLength: 12 })),
    v: value(domain),
  });
  const count = fc.oneof(
    { weight: 3, arbitrary: fc.constant(1) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) },
  );
  return count.chain((n) => fc.array(mutation, { minLength: n, maxLength: n })).map((ms) => ms.reduce(apply, valid));
}

/** A request body text: mostly mutations of `valid`, sometimes any JSON document or any text at all. */
export function bodyText(valid: Json, domain: Json[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: mutationOf(valid, domain).map((d) => JSON.stringify(d)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((d) => JSON.stringify(d)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  );
}

/** The seed of every fuzz run: fixed so that a failure replays; fast-check prints it with the counterexample. */
export const FUZZ_SEED = 20261123;
