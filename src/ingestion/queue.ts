/**
 * Sending BYOC tiles to ingestion on the ingest queue (wrangler.toml; kind `byoc-ingest`, message `{kind, tile, collection}`), for
 * every writer of tiles (the BYOC API, third-party import deliveries); the kind's consumer is src/byoc/ingest.ts.
 * Each tile's ingestion is a leased unit (src/tasks/lease.ts) of its collection's UnitObject (`byoc:<collection
 * id>`), put before the tile is QUEUED, so a message lost with a killed Worker is sent again by the watchdog.
 * Outside src/storage (which src/tasks imports) so that storage imports nothing of tasks; shared by two areas, so
 * in neither.
 */
import type { Env } from "../env";
import type { TaskMessage } from "../tasks/messages";
import { sendMessages, unitsStub, type Producers } from "../tasks/runner";
import { byocType, type ByocCollection, type TileStatus } from "../storage/byoc/model";
import { moveStatement } from "../storage/byoc/tiles";

export const BYOC_INGEST_KIND = "byoc-ingest";

/** The UnitObject holding the ingestion units of collection `collection` (one per tile, named by tile id). */
export const ingestionUnits = (env: Pick<Env, "UNITS">, collection: string) => unitsStub(env, `byoc:${collection}`);

/** A tile's ingestion message, on the ingest queue. */
const ingestMessage = (tileId: string, c: ByocCollection): TaskMessage => ({
  kind: BYOC_INGEST_KIND,
  tile: tileId,
  collection: c.id,
  queue: "ingest",
});

/**
 * Leases the ingestion of tile `tileId`: its unit put, so that from now on a Worker killed before or during the
 * ingestion leaves a unit its watchdog sends (at worst it finds nothing to do). False while an ingestion of the tile
 * is under way (its unit is live).
 */
export async function leaseIngestion(env: Pick<Env, "UNITS">, tileId: string, c: ByocCollection): Promise<boolean> {
  return (
    (await ingestionUnits(env, c.id).putUnits([{ id: tileId, message: ingestMessage(tileId, c) }], true)).length > 0
  );
}

/**
 * Sends tile `tileId`, leased (leaseIngestion), to ingestion: moved from `from` to QUEUED (its item removed), then
 * the message. False (nothing sent) when the tile is no longer `from`.
 */
export async function queueIngestion(
  env: Pick<Env, "DB"> & Producers,
  tileId: string,
  c: ByocCollection,
  from: TileStatus,
): Promise<boolean> {
  const [, moved] = await env.DB.batch([
    env.DB.prepare("DELETE FROM items WHERE collection = ? AND id = ?").bind(byocType(c.id), tileId),
    moveStatement(env, tileId, [from], "QUEUED", { failed_cause: null, warnings: null }),
  ]);
  if (!moved || moved.meta.changes === 0) return false;
  await sendMessages(env, [ingestMessage(tileId, c)]);
  return true;
}

/**
 * Sends tile `tileId` (in state `from`, as the caller saw it) to ingestion now: leaseIngestion, then
 * queueIngestion. False (nothing queued) while an ingestion of the tile is under way, or when it is no longer `from`.
 */
export async function enqueueIngestion(
  env: Pick<Env, "DB" | "UNITS"> & Producers,
  tileId: string,
  c: ByocCollection,
  from: TileStatus,
): Promise<boolean> {
  return (await leaseIngestion(env, tileId, c)) && queueIngestion(env, tileId, c, from);
}
