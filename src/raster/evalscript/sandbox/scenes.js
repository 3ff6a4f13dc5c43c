// @ts-check
/**
 * Sandbox module that builds the scene objects scripts see, from host SceneInfo records:
 * - V3 `scenes.orbits[]` = {dateFrom, dateTo, tiles[]} (ORBIT) and `scenes.tiles[]` = {date, shId,
 *   tileOriginalId, cloudCoverage, dataPath} (TILE), dates as ISO strings (Sentinel Hub evalscript V3 docs);
 * - legacy (V1/V2, auto-converted scripts and filterScenes): an array of {date: Date, cloudCoverage, orbitId,
 *   tileId, dataPath}. evaluatePixel's `scenes` is that legacy array carrying the V3 `orbits` / `tiles`
 *   arrays as properties, so `scenes[0].date.getMonth()` and `scenes.orbits[0].dateFrom` both work;
 * - preProcessScenes' `collections` = {scenes: {orbits | tiles}, from: Date, to: Date}; with data fusion one such
 *   object per datasource id, `collections.<id>` (Sentinel Hub "Data fusion"), built by `preProcessFusion`.
 * `matchScenes` maps the objects a script returns back to indices of the host's list (identity first, then
 * equal dates/ids for copies), keeping order and duplicates.
 */
/** @typedef {import("../types").SceneInfo} SceneInfo */
/** @typedef {import("../types").TimeRange} TimeRange */
/** @typedef {import("../types").Mosaicking} Mosaicking */

/**
 * `o` without its undefined properties (in place).
 * @template {Record<string, unknown>} T
 * @param {T} o
 * @returns {T}
 */
const clean = (o) => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
};
/** @param {string} iso */
const dayStart = (iso) => iso.slice(0, 10) + "T00:00:00Z";
/** @param {string} iso */
const dayEnd = (iso) => iso.slice(0, 10) + "T23:59:59Z";

/**
 * The V3 tile object of a scene.
 * @param {SceneInfo} info
 */
export function tileOf(info) {
  return clean({
    date: info.date,
    shId: info.shId,
    tileOriginalId: info.tileOriginalId ?? info.id,
    cloudCoverage: info.cloudCoverage,
    dataPath: info.dataPath,
  });
}

/**
 * The V3 orbit object of a scene (its own tiles, or one tile made from the scene).
 * @param {SceneInfo} info
 */
export function orbitOf(info) {
  const tiles = (info.tiles ?? [tileOf(info)]).map((t) => clean({ ...t }));
  return { dateFrom: info.dateFrom ?? dayStart(info.date), dateTo: info.dateTo ?? dayEnd(info.date), tiles };
}

/**
 * The legacy (V1/V2) scene object; with ORBIT also the orbit's fields.
 * @param {SceneInfo} info
 * @param {Mosaicking} mosaicking
 */
export function legacyOf(info, mosaicking) {
  const o = clean({
    date: new Date(info.date),
    cloudCoverage: info.cloudCoverage,
    orbitId: info.orbitId,
    tileId: info.shId,
    dataPath: info.dataPath,
  });
  if (mosaicking === "ORBIT") Object.assign(o, orbitOf(info));
  return o;
}

/**
 * evaluatePixel / updateOutputMetadata / updateOutput 'scenes': legacy array + V3 orbits or tiles. Data fusion
 * ('fusion', the argument's 'scenes.<id>'): also '.scenes', the orbits (ORBIT) or tiles, as fusion scripts read
 * 'scenes.<id>.scenes[i]'.
 * @param {SceneInfo[]} infos
 * @param {Mosaicking} mosaicking
 * @param {boolean} [fusion]
 * @returns {any[] & { orbits?: unknown[], tiles?: unknown[], scenes?: unknown[] }}
 */
export function scenesArgument(infos, mosaicking, fusion) {
  /** @type {any[] & { orbits?: unknown[], tiles?: unknown[], scenes?: unknown[] }} */
  const arr = infos.map((i) => legacyOf(i, mosaicking));
  if (mosaicking === "ORBIT") arr.orbits = infos.map(orbitOf);
  else
    arr.tiles = infos.flatMap((i) =>
      mosaicking === "SIMPLE" && i.tiles ? i.tiles.map((t) => clean({ ...t })) : [tileOf(i)],
    );
  if (fusion) arr.scenes = arr.orbits ?? arr.tiles;
  return arr;
}

/**
 * The request's time range as Dates, or the span of the scenes' dates (now when there is none).
 * @param {SceneInfo[]} infos
 * @param {TimeRange} [timeRange]
 * @returns {{ from: Date, to: Date }}
 */
export function timeRangeOf(infos, timeRange) {
  if (timeRange) return { from: new Date(timeRange.from), to: new Date(timeRange.to) };
  const times = infos.map((i) => Date.parse(i.date)).filter((t) => !Number.isNaN(t));
  const now = Date.now();
  return {
    from: new Date(times.length ? Math.min(...times) : now),
    to: new Date(times.length ? Math.max(...times) : now),
  };
}

/**
 * preProcessScenes' argument.
 * @param {SceneInfo[]} infos
 * @param {Mosaicking} mosaicking
 * @param {TimeRange} [timeRange]
 * @returns {{ scenes: { orbits?: unknown[], tiles?: unknown[] }, from: Date, to: Date }}
 */
export function collectionsArgument(infos, mosaicking, timeRange) {
  const list = mosaicking === "ORBIT" ? { orbits: infos.map(orbitOf) } : { tiles: infos.map(tileOf) };
  return { scenes: list, ...timeRangeOf(infos, timeRange) };
}

/**
 * Data fusion: runs 'run(collections)' (the script's preProcessScenes) with collections = {<id>: {scenes, from,
 * to}} for every id of p.timeRanges (its own time range and mosaicking p.mosaickingBy[id] each;
 * p.datasources[i] is the id of p.infos[i]).
 * Returns the indices into p.infos of the scenes the script kept, datasource by datasource in id order. A
 * datasource the returned object lacks keeps all its scenes.
 * @param {Parameters<import("./rpc").SandboxApi["preProcessScenes"]>[0]} p with data fusion's datasources and timeRanges
 * @param {(collections: any) => any} run
 * @returns {number[]}
 */
export function preProcessFusion(p, run) {
  const ranges = /** @type {Record<string, TimeRange>} */ (p.timeRanges),
    datasources = /** @type {string[]} */ (p.datasources);
  const ids = Object.keys(ranges);
  /** @type {Record<string, ReturnType<typeof collectionsArgument>>} */
  const collections = {};
  /** @type {Record<string, unknown[]>} */
  const given = {};
  /** @type {Record<string, number[]>} */
  const at = {};
  for (const id of ids) {
    at[id] = [];
    p.infos.forEach((_, i) => {
      if (datasources[i] === id) at[id].push(i);
    });
    collections[id] = collectionsArgument(
      at[id].map((i) => p.infos[i]),
      p.mosaickingBy?.[id] ?? p.mosaicking,
      ranges[id],
    );
    const s = collections[id].scenes;
    given[id] = /** @type {unknown[]} */ (s.orbits ?? s.tiles).slice();
  }
  const ret = run(collections) ?? collections;
  /** @type {number[]} */
  const out = [];
  for (const id of ids) {
    const r = ret[id];
    const list =
      r === undefined
        ? given[id]
        : Array.isArray(r)
          ? r
          : r && r.scenes
            ? (r.scenes.orbits ?? r.scenes.tiles)
            : undefined;
    for (const k of matchScenes(given[id], list)) out.push(at[id][k]);
  }
  return out;
}

/**
 * A scene object's identity for copies: the orbit's dates, or the tile's date and id.
 * @param {any} o
 */
const keyOf = (o) => {
  if (o === null || typeof o !== "object") return "";
  if (typeof o.dateFrom === "string") return "o:" + o.dateFrom + "|" + o.dateTo;
  const d = o.date instanceof Date ? o.date.toISOString() : String(o.date);
  return "t:" + d + "|" + (o.tileOriginalId ?? o.tileId ?? "");
};

/**
 * Indices into 'given' (objects the script received) of the objects in 'returned'; unknown ones skipped.
 * @param {unknown[]} given
 * @param {unknown} returned
 * @returns {number[]} throws a TypeError when 'returned' is not an array
 */
export function matchScenes(given, returned) {
  if (!Array.isArray(returned)) throw new TypeError("the scene list returned by the script is not an array");
  const byObject = new Map(given.map((o, i) => [o, i]));
  const byKey = new Map();
  given.forEach((o, i) => {
    const k = keyOf(o);
    if (!byKey.has(k)) byKey.set(k, i);
  });
  const out = [];
  for (const o of returned) {
    const i = byObject.get(o) ?? byKey.get(keyOf(o));
    if (i !== undefined) out.push(i);
  }
  return out;
}

/**
 * Deep copy with only structured-clone and JSON friendly values (functions dropped, Dates as ISO strings).
 * @param {unknown} value
 * @param {number} [depth] nesting level (a TypeError above 64)
 * @returns {unknown}
 */
export function toPlain(value, depth = 0) {
  if (depth > 64) throw new TypeError("value is nested too deeply (or cyclic)");
  if (value === null || typeof value === "number" || typeof value === "string" || typeof value === "boolean")
    return value;
  if (typeof value !== "object") return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value) || ArrayBuffer.isView(value))
    return Array.from(/** @type {ArrayLike<unknown>} */ (value), (v) => toPlain(v, depth + 1));
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of Object.keys(value)) {
    const v = toPlain(/** @type {Record<string, unknown>} */ (value)[k], depth + 1);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
