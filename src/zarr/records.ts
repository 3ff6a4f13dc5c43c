/**
 * Zarr collection records in D1 (table zarr_collections, migration 0009) and their Sentinel Hub JSON
 * (OpenAPI `ZarrCollection`, `ZarrArray`). Every query is scoped to the owning account.
 */
import type { Env } from "../env";
import { jsonColumn } from "../storage/db";

export type ZarrStatus = "CREATED" | "INGESTING" | "INGESTED" | "FAILED";

/** One array of a group as listed by the API: its name and metadata files. */
export interface ZarrArrayInfo {
  name: string;
  zarray: Record<string, unknown>;
  zattrs: Record<string, unknown> | null;
}

/** What ingestion found (null members before a successful ingestion). */
export interface IngestedInfo {
  envelope: { type: "Polygon"; coordinates: number[][][] } | null;
  width: number | null;
  height: number | null;
  zattrs: Record<string, unknown> | null;
  arrays: ZarrArrayInfo[];
  bands: Record<string, Record<string, unknown>> | null;
  maxMetersPerPixel: number | null;
}

export interface ZarrRecord extends IngestedInfo {
  id: string;
  account: string;
  name: string;
  s3Bucket: string;
  path: string;
  crs: string;
  status: ZarrStatus;
  ingestionErrors: string | null;
  created: string;
}

interface Row {
  id: string;
  account: string;
  name: string;
  s3_bucket: string;
  path: string;
  crs: string;
  status: ZarrStatus;
  ingestion_errors: string | null;
  envelope: string | null;
  width: number | null;
  height: number | null;
  zattrs: string | null;
  arrays: string;
  bands: string | null;
  max_mpp: number | null;
  created: string;
}

function fromRow(r: Row): ZarrRecord {
  return {
    id: r.id,
    account: r.account,
    name: r.name,
    s3Bucket: r.s3_bucket,
    path: r.path,
    crs: r.crs,
    status: r.status,
    ingestionErrors: r.ingestion_errors,
    created: r.created,
    envelope: jsonColumn(r.envelope),
    width: r.width,
    height: r.height,
    zattrs: jsonColumn(r.zattrs),
    arrays: jsonColumn<ZarrArrayInfo[]>(r.arrays) ?? [],
    bands: jsonColumn(r.bands),
    maxMetersPerPixel: r.max_mpp,
  };
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

/** Inserts a new record (status CREATED, nothing ingested). */
export async function insertZarr(
  env: Pick<Env, "DB">,
  r: Pick<ZarrRecord, "id" | "account" | "name" | "s3Bucket" | "path" | "crs" | "created">,
): Promise<void> {
  await env.DB.prepare(
    "INSERT INTO zarr_collections (id, account, name, s3_bucket, path, crs, status, created) VALUES (?, ?, ?, ?, ?, ?, 'CREATED', ?)",
  )
    .bind(r.id, r.account, r.name, r.s3Bucket, r.path, r.crs, r.created)
    .run();
}

/** The account's record with id `id`, or null (unknown id or another account's). */
export async function getZarr(env: Pick<Env, "DB">, account: string, id: string): Promise<ZarrRecord | null> {
  const row = await env.DB.prepare("SELECT * FROM zarr_collections WHERE id = ? AND account = ?")
    .bind(id, account)
    .first<Row>();
  return row ? fromRow(row) : null;
}

/** All records of the account in (created, id) order. */
export async function listZarr(env: Pick<Env, "DB">, account: string): Promise<ZarrRecord[]> {
  const rows = await env.DB.prepare("SELECT * FROM zarr_collections WHERE account = ? ORDER BY created, id")
    .bind(account)
    .all<Row>();
  return rows.results.map(fromRow);
}

/** Sets the status, the errors and what ingestion found. */
export async function saveIngestion(
  env: Pick<Env, "DB">,
  id: string,
  status: ZarrStatus,
  errors: string | null,
  info: IngestedInfo,
): Promise<void> {
  await env.DB.prepare(
    "UPDATE zarr_collections SET status = ?, ingestion_errors = ?, envelope = ?, width = ?, height = ?, zattrs = ?, arrays = ?, bands = ?, max_mpp = ? WHERE id = ?",
  )
    .bind(
      status,
      errors,
      json(info.envelope),
      info.width,
      info.height,
      json(info.zattrs),
      JSON.stringify(info.arrays),
      json(info.bands),
      info.maxMetersPerPixel,
      id,
    )
    .run();
}

/** Marks a collection INGESTING (its ingestion started; what it found before stays until the ingestion saves). */
export async function markIngesting(env: Pick<Env, "DB">, id: string): Promise<void> {
  await env.DB.prepare("UPDATE zarr_collections SET status = 'INGESTING', ingestion_errors = NULL WHERE id = ?")
    .bind(id)
    .run();
}

/** Renames the account's collection; false when there is none. */
export async function renameZarr(env: Pick<Env, "DB">, account: string, id: string, name: string): Promise<boolean> {
  const [r] = await env.DB.batch([
    env.DB.prepare("UPDATE zarr_collections SET name = ? WHERE id = ? AND account = ?").bind(name, id, account),
    env.DB.prepare(
      "UPDATE data_collections SET title = ? WHERE id = ? AND kind = 'zarr' AND EXISTS (SELECT 1 FROM zarr_collections WHERE id = ? AND account = ?)",
    ).bind(name, id, id, account),
  ]);
  return (r?.meta.changes ?? 0) > 0;
}

/** Deletes the record (the registry entry and items are dropped by src/zarr/ingest.ts unregister). */
export async function deleteZarr(env: Pick<Env, "DB">, id: string): Promise<void> {
  await env.DB.prepare("DELETE FROM zarr_collections WHERE id = ?").bind(id).run();
}

/**
 * The Sentinel Hub `ZarrCollection` JSON of a record; its bands are BYOC bands (the spec), each with the read-only
 * `aliases` of OpenAPI BYOCFormat (always empty: not settable by users).
 */
export function zarrJson(r: ZarrRecord): Record<string, unknown> {
  const bands = Object.fromEntries(Object.entries(r.bands ?? {}).map(([name, b]) => [name, { ...b, aliases: [] }]));
  return {
    id: r.id,
    accountId: r.account,
    name: r.name,
    created: r.created,
    s3Bucket: r.s3Bucket,
    path: r.path,
    status: r.status,
    ingestionErrors: r.ingestionErrors,
    crs: r.crs,
    envelope: r.envelope,
    width: r.width,
    height: r.height,
    zattrs: r.zattrs,
    additionalData: { bands, ...(r.maxMetersPerPixel === null ? {} : { maxMetersPerPixel: r.maxMetersPerPixel }) },
  };
}

/** The Sentinel Hub `ZarrArray` JSON of one array of a record. */
export function arrayJson(r: ZarrRecord, a: ZarrArrayInfo): Record<string, unknown> {
  return { name: a.name, s3Bucket: r.s3Bucket, path: `${r.path}${a.name}/`, zarray: a.zarray, zattrs: a.zattrs };
}
