/**
 * BYOC tiles in D1 (table byoc_tiles, migration 0008) and their catalog items. State machine, every move a
 * conditional UPDATE so redelivered or concurrent queue messages cannot undo each other:
 *   create -> WAITING (the create answer); queued after the response -> QUEUED; consumer takes it:
 *   WAITING|QUEUED|INGESTING -> INGESTING (WAITING: a new tile whose Worker died before queueing it, sent by the
 *   watchdog; INGESTING again on a redelivery after a crash); INGESTING -> INGESTED (status + item + bands in one batch) | FAILED (cause);
 *   reingest: WAITING|INGESTED|FAILED -> QUEUED (item removed in the same batch), and QUEUED|INGESTING -> QUEUED
 *   once the ingestion's lease expired (ingest.ts).
 */
import type { Env } from "../../env";
import { jsonColumn } from "../db";
import { keysetSql, type SeekPage } from "../keyset";
import type { StacItem } from "../stac";
import { fileKey } from "./paths";
import { byocType, type BandFormat, type ByocCollection, type ByocTile, type TileStatus } from "./model";

type DB = Pick<Env, "DB">;

interface Row {
  id: string;
  collection: string;
  account: string;
  path: string;
  status: TileStatus;
  sensing_time: string | null;
  cover_geometry: string | null;
  tile_geometry: string | null;
  tile_epsg: number | null;
  native_bbox: string | null;
  meters_per_pixel: number | null;
  failed_cause: string | null;
  warnings: string | null;
  created: string;
  file_ext?: string | null;
  tile_geometry_given?: number;
}

function toTile(r: Row): ByocTile {
  return {
    id: r.id,
    collection: r.collection,
    account: r.account,
    path: r.path,
    status: r.status,
    sensingTime: r.sensing_time,
    coverGeometry: jsonColumn(r.cover_geometry),
    tileGeometry: jsonColumn(r.tile_geometry),
    tileEpsg: r.tile_epsg,
    nativeBbox: jsonColumn(r.native_bbox),
    metersPerPixel: r.meters_per_pixel,
    failedCause: r.failed_cause,
    warnings: r.warnings,
    created: r.created,
    fileExt: r.file_ext ?? null,
    tileGeometryGiven: r.tile_geometry_given === 1,
  };
}

/**
 * Inserts a new tile (WAITING), with its tile geometry when the user gave one (`tileGeometryGiven`).
 * @throws Error (D1 UNIQUE constraint) when the collection has a tile with that path.
 */
export async function insertTile(env: DB, t: ByocTile): Promise<void> {
  const given = t.tileGeometryGiven && t.tileGeometry ? JSON.stringify(t.tileGeometry) : null;
  await env.DB.prepare(
    `INSERT INTO byoc_tiles (id, collection, account, path, status, sensing_time, cover_geometry, tile_geometry, tile_geometry_given, created)
     VALUES (?, ?, ?, ?, 'WAITING', ?, ?, ?, ?, ?)`,
  )
    .bind(
      t.id,
      t.collection,
      t.account,
      t.path,
      t.sensingTime,
      t.coverGeometry === null ? null : JSON.stringify(t.coverGeometry),
      given,
      given ? 1 : 0,
      t.created,
    )
    .run();
}

/** The tile `id` of collection `collection`, or null. */
export async function getTile(env: DB, collection: string, id: string): Promise<ByocTile | null> {
  const r = await env.DB.prepare("SELECT * FROM byoc_tiles WHERE collection = ? AND id = ?")
    .bind(collection, id)
    .first<Row>();
  return r ? toTile(r) : null;
}

/** The tile `id` whatever its collection (the queue consumer), or null. */
export async function tileById(env: DB, id: string): Promise<ByocTile | null> {
  const r = await env.DB.prepare("SELECT * FROM byoc_tiles WHERE id = ?").bind(id).first<Row>();
  return r ? toTile(r) : null;
}

/** Number of tiles of a collection (any status). */
export async function tileCount(env: DB, collection: string): Promise<number> {
  const r = await env.DB.prepare("SELECT count(*) AS n FROM byoc_tiles WHERE collection = ?")
    .bind(collection)
    .first<{ n: number }>();
  return r?.n ?? 0;
}

/** Query filters of the tile list (OpenAPI getByocCollectionTiles). */
export interface TileQuery {
  descending: boolean;
  path: string | null;
  status: TileStatus | null;
}

/** One page (count + 1 rows) of a collection's tiles in (created, id) order, filtered by exact path and status. */
export async function listTiles(env: DB, collection: string, q: TileQuery, page: SeekPage): Promise<ByocTile[]> {
  const k = keysetSql(["created", "id"], page, q.descending);
  const where = [q.path === null ? "" : " AND path = ?", q.status === null ? "" : " AND status = ?"].join("");
  const params = [q.path, q.status].filter((p) => p !== null);
  const sql = `SELECT * FROM byoc_tiles WHERE collection = ?${where} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`;
  const { results } = await env.DB.prepare(sql)
    .bind(collection, ...params, ...k.params, k.limit)
    .all<Row>();
  return results.map(toTile);
}

/** Moves a tile from one of `from` to `to`; true when it moved. `set` adds column assignments. */
export async function moveTile(
  env: DB,
  id: string,
  from: TileStatus[],
  to: TileStatus,
  set: Record<string, unknown> = {},
): Promise<boolean> {
  return (await moveStatement(env, id, from, to, set).run()).meta.changes > 0;
}

const COLUMN = /^[a-z_]+$/;

/** The conditional UPDATE of moveTile, for a batch. */
export function moveStatement(
  env: DB,
  id: string,
  from: TileStatus[],
  to: TileStatus,
  set: Record<string, unknown> = {},
): D1PreparedStatement {
  const cols = Object.keys(set).filter((c) => COLUMN.test(c));
  const assign = cols.map((c) => `, ${c} = ?`).join("");
  return env.DB.prepare(
    `UPDATE byoc_tiles SET status = ?${assign} WHERE id = ? AND status IN (${from.map(() => "?").join(", ")})`,
  ).bind(to, ...cols.map((c) => set[c] ?? null), id, ...from);
}

/** Sets cover geometry and sensing time of tile `t` of collection `c`, and rewrites its item (one D1 batch). */
export async function updateTile(env: DB, c: ByocCollection, t: ByocTile): Promise<void> {
  const row = env.DB.prepare("UPDATE byoc_tiles SET sensing_time = ?, cover_geometry = ? WHERE id = ?").bind(
    t.sensingTime,
    t.coverGeometry === null ? null : JSON.stringify(t.coverGeometry),
    t.id,
  );
  await env.DB.batch([row, ...(await rewriteItems(env, c, t))]);
}

/**
 * The INGESTED tiles of collection `from` whose path collection `to` has no tile at, oldest first (copyTiles): path,
 * sensing time, cover geometry, and the tile geometry when the user gave it at creation.
 */
export async function tilesToCopy(
  env: DB,
  from: string,
  to: string,
): Promise<Pick<ByocTile, "path" | "sensingTime" | "coverGeometry" | "tileGeometry" | "tileGeometryGiven">[]> {
  const { results } = await env.DB.prepare(
    `SELECT path, sensing_time, cover_geometry, tile_geometry, tile_geometry_given FROM byoc_tiles s WHERE collection = ? AND status = 'INGESTED'
       AND NOT EXISTS (SELECT 1 FROM byoc_tiles t WHERE t.collection = ? AND t.path = s.path) ORDER BY created, id`,
  )
    .bind(from, to)
    .all<{
      path: string;
      sensing_time: string | null;
      cover_geometry: string | null;
      tile_geometry: string | null;
      tile_geometry_given: number;
    }>();
  return results.map((r) => {
    const given = r.tile_geometry_given === 1 && r.tile_geometry !== null;
    return {
      path: r.path,
      sensingTime: r.sensing_time,
      coverGeometry: jsonColumn<ByocTile["coverGeometry"]>(r.cover_geometry),
      tileGeometry: given ? jsonColumn<ByocTile["tileGeometry"]>(r.tile_geometry) : null,
      tileGeometryGiven: given,
    };
  });
}

/** Id and status of tile `id` when it was created at or after `since` (an ISO instant); null otherwise. */
export async function tileStatusSince(
  env: DB,
  id: string,
  since: string,
): Promise<{ id: string; status: string } | null> {
  return env.DB.prepare("SELECT id, status FROM byoc_tiles WHERE id = ? AND created >= ?")
    .bind(id, since)
    .first<{ id: string; status: string }>();
}

/** Deletes a tile and its item (one batch). */
export async function deleteTile(env: DB, c: ByocCollection, id: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM items WHERE collection = ? AND id = ?").bind(byocType(c.id), id),
    env.DB.prepare("DELETE FROM byoc_tiles WHERE id = ?").bind(id),
  ]);
}

/** The distinct files of a collection's bands: source -> (band name at 0-based sample index). */
export function filesOf(bands: [string, BandFormat][]): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const [name, f] of bands) {
    const names = files.get(f.source) ?? [];
    names[f.bandIndex - 1] = name;
    files.set(f.source, names);
  }
  return files;
}

/**
 * The catalog item of an ingested tile: id = tile id, collection byoc-<uuid>, CRS84 geometry (the tile geometry), datetime = sensing
 * time (the creation time when it has none), one asset per file (key `<source>.tif`, href `s3://bucket/key`)
 * whose `eo:bands` name the collection's bands at their sample index (the processing engine's locateBand).
 */
export function tileItem(c: ByocCollection, t: ByocTile): StacItem {
  const g = t.tileGeometry!;
  const positions = (g.type === "Polygon" ? g.coordinates : g.coordinates.flat()).flat();
  const xs = positions.map((p) => p[0]!),
    ys = positions.map((p) => p[1]!);
  const assets = Object.fromEntries(
    [...filesOf(c.bands)].map(([source, names]) => [
      `${source}.tif`,
      {
        href: `s3://${c.s3Bucket}/${fileKey(t.path, source, t.fileExt)}`,
        type: "image/tiff; application=geotiff; profile=cloud-optimized",
        roles: ["data"],
        "eo:bands": Array.from(names, (n, i) => ({ name: n ?? `_${i + 1}` })),
      },
    ]),
  );
  return {
    type: "Feature",
    stac_version: "1.0.0",
    id: t.id,
    collection: byocType(c.id),
    geometry: g,
    bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
    properties: { datetime: t.sensingTime ?? t.created, "proj:epsg": t.tileEpsg, "proj:bbox": t.nativeBbox },
    links: [],
    assets,
  };
}

/** INSERT OR REPLACE of a tile's item, done only while the tile is `guard` (a batch member). */
export function itemStatement(env: DB, item: StacItem, guard: TileStatus): D1PreparedStatement {
  const [minLon, minLat, maxLon, maxLat] = item.bbox;
  return env.DB.prepare(
    `INSERT OR REPLACE INTO items (collection, id, datetime, cloud_cover, min_lon, min_lat, max_lon, max_lat, doc)
     SELECT ?, ?, ?, NULL, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM byoc_tiles WHERE id = ? AND status = ?)`,
  ).bind(
    item.collection,
    item.id,
    Date.parse(item.properties.datetime),
    minLon,
    minLat,
    maxLon,
    maxLat,
    JSON.stringify(item),
    item.id,
    guard,
  );
}

/** The items of every ingested tile of `c` rewritten (after a band rename or a sensing time change). */
export async function rewriteItems(env: DB, c: ByocCollection, only?: ByocTile): Promise<D1PreparedStatement[]> {
  const tiles = only
    ? [only]
    : (
        await env.DB.prepare("SELECT * FROM byoc_tiles WHERE collection = ? AND status = 'INGESTED'")
          .bind(c.id)
          .all<Row>()
      ).results.map(toTile);
  return tiles
    .filter((t) => t.status === "INGESTED" && t.tileGeometry)
    .map((t) => itemStatement(env, tileItem(c, t), "INGESTED"));
}
