/**
 * At-least-once delivery: a confirm whose Worker was killed after the charge (the order RUNNING, no delivery made)
 * gets its deliveries on the next read and ends DONE; a delivery unit run again (a redelivered message, a rerun
 * after a crash) changes nothing: one BYOC tile, the same files, DONE.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenOf } from "../helpers/byoc";
import { deliver } from "../../src/dataimport/deliver";
import type { Env } from "../../src/env";
import { di, endedDeliveries, ok, sampleInput, seedWestFlanders, until, westFlandersItems, type DeliveryJson, type RecordJson } from "./helpers";

beforeAll(async () => {
  await seedWestFlanders();
});

const order = (itemIds: string[]) => ({ name: "resumed", input: sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", { itemIds }) });

describe("resuming", () => {
  it("a confirm killed after the charge: the next read makes the deliveries, the order ends DONE", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const item = (await westFlandersItems())[3]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
    // what confirmCharge leaves when the Worker dies right after it: RUNNING, charged, a collection id, nothing else
    await env.DB.prepare("UPDATE import_orders SET status = 'RUNNING', charged = 1, collection_id = ? WHERE id = ?").bind(crypto.randomUUID(), o.id).run();
    const [d] = await endedDeliveries(`/orders/${o.id}`, me, 1);
    expect(d!.status).toBe("DONE");
    await until("order DONE", async () => (await ok<RecordJson>(await di(`/orders/${o.id}`, me))).status === "DONE");
  });

  it("a delivery unit run again changes nothing: one tile, the same files", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const item = (await westFlandersItems())[4]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
    const confirmed = await ok<RecordJson>(await di(`/orders/${o.id}/confirm`, me, "POST"));
    const [d] = await endedDeliveries(`/orders/${o.id}`, me, 1);
    const tilesBefore = await env.DB.prepare("SELECT id, status FROM byoc_tiles WHERE collection = ?").bind(confirmed.collectionId).all();
    for (let i = 0; i < 3; i++) await deliver(env as unknown as Env, { delivery: d!.id, parent: o.id });
    const tilesAfter = await env.DB.prepare("SELECT id, status FROM byoc_tiles WHERE collection = ?").bind(confirmed.collectionId).all();
    expect(tilesAfter.results).toEqual(tilesBefore.results);
    expect(tilesAfter.results).toHaveLength(1);
    expect((await ok<DeliveryJson>(await di(`/orders/${o.id}/deliveries/${d!.id}`, me))).status).toBe("DONE");
  });

  it("a delivery unit run twice from WAITING makes one tile", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const item = (await westFlandersItems())[5]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
    const confirmed = await ok<RecordJson>(await di(`/orders/${o.id}/confirm`, me, "POST"));
    const row = await env.DB.prepare("SELECT id FROM import_deliveries WHERE parent = ?").bind(o.id).first<{ id: string }>();
    // the same unit twice at once, as a redelivered message racing the first delivery would
    await Promise.all([deliver(env as unknown as Env, { delivery: row!.id, parent: o.id }), deliver(env as unknown as Env, { delivery: row!.id, parent: o.id })]);
    const [d] = await endedDeliveries(`/orders/${o.id}`, me, 1);
    expect(d!.status).toBe("DONE");
    const tiles = await env.DB.prepare("SELECT count(*) AS n FROM byoc_tiles WHERE collection = ?").bind(confirmed.collectionId).first<{ n: number }>();
    expect(tiles!.n).toBe(1);
  });
});
