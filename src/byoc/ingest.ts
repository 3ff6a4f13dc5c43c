/**
 * BYOC ingestion on the ingest queue (kind `byoc-ingest`, message `{kind, tile, collection}`, sent by
 * src/ingestion/queue.ts for the BYOC API and third-party import deliveries alike): takes the tile QUEUED
 * -> INGESTING, inspects its files (inspect.ts) and ends INGESTED (tile geometry, CRS, item and, for a collection
 * without bands, the bands, all in one D1 batch) or FAILED with the cause. Redelivery-safe: every move is a
 * conditional UPDATE (tiles.ts) and the item is written only while the tile is INGESTING, so a late or duplicate
 * message changes nothing once the tile is INGESTED or FAILED. Storage faults are retried; a message that fails
 * every attempt ends the tile FAILED (onDead).
 *
 * Nothing in flight is lost: each tile's ingestion is a leased unit (src/tasks/lease.ts) of its collection's
 * UnitObject (`byoc:<collection id>`), put before the tile is QUEUED (a new tile is answered WAITING and queued
 * after the response: its unit is put first, so a Worker killed before queueing it leaves a unit whose message
 * the watchdog sends; the consumer takes a tile still WAITING too). A message lost with a killed Worker, or an
 * ingestion killed mid-way, is sent again when its lease expires; after its last attempt the tile is FAILED with
 * the cause. Any tile can be reingested unless its unit is live (an ingestion under way: queued or running under
 * a lease that has not expired); so a tile QUEUED or INGESTING whose Worker died can be once its lease expired.
 */
import type { Env } from "../env";
import { crsFromEpsg, transformBounds } from "../raster/crs";
import type { TaskMessage } from "../tasks/messages";
import type { UnitRef } from "../tasks/runner";
import { ingestionUnits } from "../ingestion/queue";
import { IngestError, inspectTile, type Inspection } from "./inspect";
import type { ByocCollection, ByocTile } from "../storage/byoc/model";
import { configureBands, getCollection } from "../storage/byoc/store";
import { itemStatement, moveStatement, moveTile, tileById, tileItem } from "../storage/byoc/tiles";

export { BYOC_INGEST_KIND } from "../ingestion/queue";

/** The leased unit of a `byoc-ingest` message (the `lease` of the kind); null for a message without its collection. */
export const ingestUnit = (body: TaskMessage, env: Env): UnitRef | null =>
  typeof body.collection === "string" && typeof body.tile === "string"
    ? { stub: ingestionUnits(env, body.collection), unit: body.tile }
    : null;

/** A CRS84 polygon of a box in `epsg` (its corners after transformBounds' densified edges). */
function lonLatPolygon(bbox: number[], epsg: number): { type: "Polygon"; coordinates: number[][][] } {
  const [w, s, e, n] = transformBounds(bbox, crsFromEpsg(epsg), crsFromEpsg(4326));
  return {
    type: "Polygon",
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

/**
 * Writes the INGESTED state: the item and the tile row, in one batch, only while the tile is INGESTING. The tile
 * geometry is the one given at creation, else the files' common extent.
 */
async function finish(env: Pick<Env, "DB">, c: ByocCollection, t: ByocTile, r: Inspection): Promise<void> {
  const tileGeometry = t.tileGeometryGiven && t.tileGeometry ? t.tileGeometry : lonLatPolygon(r.bbox, r.epsg);
  const done: ByocTile = {
    ...t,
    tileGeometry,
    tileEpsg: r.epsg,
    nativeBbox: r.bbox,
    metersPerPixel: r.metersPerPixel,
    fileExt: r.fileExt,
  };
  await env.DB.batch([
    itemStatement(env, tileItem(c, done), "INGESTING"),
    moveStatement(env, t.id, ["INGESTING"], "INGESTED", {
      tile_geometry: JSON.stringify(tileGeometry),
      tile_epsg: r.epsg,
      native_bbox: JSON.stringify(r.bbox),
      meters_per_pixel: r.metersPerPixel,
      file_ext: r.fileExt,
      warnings: r.warnings.length ? r.warnings.join(" ") : null,
    }),
  ]);
}

/**
 * Inspects the tile against its collection; a collection without bands gets the tile's (configureBands), and when
 * another tile configured it meanwhile the tile is inspected again against those bands.
 * @throws IngestError (the tile fails); storage errors.
 */
async function inspectAndConfigure(
  env: Env,
  c: ByocCollection,
  t: ByocTile,
): Promise<{ c: ByocCollection; r: Inspection }> {
  const r = await inspectTile(env, c, t);
  if (c.bands.length) return { c, r };
  const configured = { ...c, bands: r.bands };
  if (await configureBands(env, configured)) return { c: configured, r };
  const now = (await getCollection(env, t.account, t.collection)) ?? configured;
  return { c: now, r: await inspectTile(env, now, t) };
}

/** Handles one `byoc-ingest` message. @throws storage errors (the message is retried). */
export async function byocIngest(body: TaskMessage, env: Env): Promise<void> {
  const id = String(body.tile);
  const t = await tileById(env, id);
  // WAITING too: the watchdog's message of a new tile whose Worker died before queueing it
  if (!t || !(await moveTile(env, id, ["WAITING", "QUEUED", "INGESTING"], "INGESTING"))) return;
  const c = await getCollection(env, t.account, t.collection);
  if (!c) return;
  let done: { c: ByocCollection; r: Inspection };
  try {
    done = await inspectAndConfigure(env, c, t);
  } catch (e) {
    if (!(e instanceof IngestError)) throw e;
    await moveTile(env, id, ["INGESTING"], "FAILED", { failed_cause: e.message });
    return;
  }
  await finish(env, done.c, { ...t, status: "INGESTING" }, done.r);
}

/** A message that failed every attempt (or whose every attempt was lost: `cause`): the tile ends FAILED (from WAITING, QUEUED or INGESTING). */
export async function byocIngestDead(
  body: TaskMessage,
  env: Env,
  _message: Message<unknown>,
  cause?: string,
): Promise<void> {
  const why = cause ?? "Ingestion failed repeatedly (storage errors).";
  await moveTile(env, String(body.tile), ["WAITING", "QUEUED", "INGESTING"], "FAILED", {
    failed_cause: `${why} Reingest the tile to try again.`,
  });
}
