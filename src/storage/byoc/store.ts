/**
 * BYOC collections in the registry (D1 data_collections kind 'byoc' + collection_bands): the collection's config
 * JSON `{s3Bucket, noData?, bands: {name: BandFormat}}` is what the API shows; collection_bands rows (sample type,
 * no-data, source, band_index) are what processing reads. Both are written in one D1 batch.
 */
import type { Env } from "../../env";
import { keysetSql, searchSql, type SeekPage } from "../keyset";
import { byocType, sampleTypeOf, type BandFormat, type ByocCollection } from "./model";

type DB = Pick<Env, "DB">;

interface Row {
  id: string;
  owner: string;
  title: string;
  config: string;
  created: string;
}

function toCollection(r: Row): ByocCollection {
  const config = JSON.parse(r.config) as { s3Bucket: string; noData?: number; bands?: [string, BandFormat][] };
  return {
    id: r.id,
    accountId: r.owner,
    name: r.title,
    s3Bucket: config.s3Bucket,
    noData: config.noData,
    created: r.created,
    bands: config.bands ?? [],
  };
}

/** The config JSON of a collection (bands always present, so SQL can test json_array_length(config, '$.bands')). */
export const configOf = (c: ByocCollection): string =>
  JSON.stringify({ s3Bucket: c.s3Bucket, noData: c.noData, bands: c.bands });

/** The statements that replace a collection's collection_bands rows with `c.bands` (units DN, kind file). */
function bandStatements(env: DB, c: ByocCollection): D1PreparedStatement[] {
  const del = env.DB.prepare("DELETE FROM collection_bands WHERE collection = ?").bind(c.id);
  const ins = c.bands.map(([name, f], position) =>
    env.DB.prepare(
      `INSERT INTO collection_bands (collection, position, name, kind, units, default_units, sample_type, resolution, nodata, source, band_index)
       VALUES (?, ?, ?, 'file', '["DN"]', 'DN', ?, NULL, ?, ?, ?)`,
    ).bind(c.id, position, name, sampleTypeOf(f), f.noData ?? c.noData ?? null, f.source, f.bandIndex),
  );
  return [del, ...ins];
}

/**
 * Registers a new collection of `c.accountId` with its bands (one batch). No location is stored: a BYOC collection
 * is hosted by its bucket's region (src/locations/regions.ts), decided on each request.
 */
export async function insertCollection(env: DB, c: ByocCollection): Promise<void> {
  const row = env.DB.prepare(
    `INSERT INTO data_collections (id, type, aliases, kind, owner, title, location, optical, config, stac, created)
     VALUES (?, ?, '[]', 'byoc', ?, ?, NULL, 0, ?, '{}', ?)`,
  ).bind(c.id, byocType(c.id), c.accountId, c.name, configOf(c), c.created);
  await env.DB.batch([row, ...bandStatements(env, c)]);
}

/**
 * Stores name, bucket, noData and bands of an existing collection (one batch), plus `extra` statements (e.g. the
 * rewritten items of its tiles) in the same transaction.
 */
export async function saveCollection(env: DB, c: ByocCollection, extra: D1PreparedStatement[] = []): Promise<void> {
  const row = env.DB.prepare("UPDATE data_collections SET title = ?, config = ? WHERE id = ? AND kind = 'byoc'").bind(
    c.name,
    configOf(c),
    c.id,
  );
  await env.DB.batch([row, ...bandStatements(env, c), ...extra]);
}

/** The collection `id` of `account`, or null (unknown, not BYOC, or another account's). */
export async function getCollection(env: DB, account: string, id: string): Promise<ByocCollection | null> {
  const r = await env.DB.prepare(
    "SELECT id, owner, title, config, created FROM data_collections WHERE id = ? AND owner = ? AND kind = 'byoc'",
  )
    .bind(id, account)
    .first<Row>();
  return r ? toCollection(r) : null;
}

/**
 * Gives a collection without bands the bands `c.bands`, unless another tile did first (the config update is
 * conditional on an empty band list). True when this call configured it.
 */
export async function configureBands(env: DB, c: ByocCollection): Promise<boolean> {
  const won = await env.DB.prepare(
    "UPDATE data_collections SET config = ? WHERE id = ? AND json_array_length(config, '$.bands') = 0",
  )
    .bind(configOf(c), c.id)
    .run();
  if (won.meta.changes === 0) return false;
  await env.DB.batch(bandStatements(env, c));
  return true;
}

/** Deletes a collection, its tiles and their catalog items (one batch). */
export async function deleteCollection(env: DB, id: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM items WHERE collection = ?").bind(byocType(id)),
    env.DB.prepare("DELETE FROM byoc_tiles WHERE collection = ?").bind(id),
    env.DB.prepare("DELETE FROM collection_bands WHERE collection = ?").bind(id),
    env.DB.prepare("DELETE FROM data_collections WHERE id = ?").bind(id),
  ]);
}

/** One page (count + 1 rows, see pagedList) of `account`'s collections in (created, id) order whose title matches `search` (parseSearch). */
export async function listCollections(
  env: DB,
  account: string,
  search: readonly string[][],
  page: SeekPage,
): Promise<ByocCollection[]> {
  const k = keysetSql(["created", "id"], page);
  const s = searchSql(search, "title");
  const sql = `SELECT id, owner, title, config, created FROM data_collections
    WHERE owner = ? AND kind = 'byoc' AND ${s.text} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`;
  const { results } = await env.DB.prepare(sql)
    .bind(account, ...s.params, ...k.params, k.limit)
    .all<Row>();
  return results.map(toCollection);
}
