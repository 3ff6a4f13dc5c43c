/**
 * At-least-once delivery and restarts: a confirm whose Worker was killed after the charge (the order RUNNING, no
 * delivery made, no engine task, or one stored but never started) is not started by reads (they only read) but by
 * the cron's recovery sweep, and ends DONE; a record whose task ended while its end was not written gets it from the
 * sweep; a delivery unit run again (a redelivered message, a rerun after a crash) changes nothing: one BYOC tile, the
 * same files, DONE.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenOf } from "../helpers/byoc";
import { deliver } from "../../src/dataimport/deliver";
import { importStub } from "../../src/dataimport/plugin";
import { STALLED_SQL } from "../../src/dataimport/store";
import type { Env } from "../../src/env";
import {
  di,
  endedDeliveries,
  ok,
  runCron,
  sampleInput,
  seedWestFlanders,
  until,
  westFlandersItems,
  type DeliveryJson,
  type RecordJson,
} from "./helpers";

beforeAll(async () => {
  await seedWestFlanders();
});

const order = (itemIds: string[]) => ({
  name: "resumed",
  input: sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", { itemIds }),
});

/** The order's status in D1 (read without the API). */
const statusOf = async (id: string) =>
  (await env.DB.prepare("SELECT status FROM import_orders WHERE id = ?").bind(id).first<{ status: string }>())?.status;

/** A quote of item `i` left as confirmCharge leaves it when the Worker dies right after it: RUNNING, charged, a collection id. */
async function chargedOnly(me: string, i: number): Promise<RecordJson> {
  const item = (await westFlandersItems())[i]!;
  const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
  await env.DB.prepare("UPDATE import_orders SET status = 'RUNNING', charged = 1, collection_id = ? WHERE id = ?")
    .bind(crypto.randomUUID(), o.id)
    .run();
  return o;
}

describe("resuming", () => {
  it("the sweep's query walks the RUNNING records through their partial index, not every order", async () => {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${STALLED_SQL}`).bind(100).all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail);
    expect(
      details.some((d) =>
        /^SCAN o USING INDEX import_orders_running|^SEARCH o USING INDEX import_orders_running/.test(d),
      ),
      details.join("; "),
    ).toBe(true);
    expect(
      details.some((d) => /^SCAN o$/.test(d) || /TEMP B-TREE/.test(d)),
      details.join("; "),
    ).toBe(false);
  });

  it("a confirm killed after the charge: reads start nothing; the cron's sweep starts it, the order ends DONE", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const lost = (await chargedOnly(me, 3)).id; // no engine task at all
    const cut = await chargedOnly(me, 6); // its task stored, the Worker dead before the start
    const unstarted = cut.id;
    await importStub(env as unknown as Env, unstarted).create(
      { id: unstarted, account: cut.accountId, created: new Date().toISOString() },
      { kind: "order" },
      false,
    );
    for (const id of [lost, unstarted]) {
      expect((await ok<RecordJson>(await di(`/orders/${id}`, me))).status).toBe("RUNNING");
      expect((await ok<{ data: DeliveryJson[] }>(await di(`/orders/${id}/deliveries`, me))).data).toEqual([]);
    }
    expect((await ok<{ data: RecordJson[] }>(await di("/orders", me))).data.map((r) => r.status)).toEqual([
      "RUNNING",
      "RUNNING",
    ]);
    const listed = () =>
      env.DB.prepare("SELECT id, status FROM tasks WHERE id IN (?, ?) ORDER BY id").bind(lost, unstarted).all();
    expect((await listed()).results).toEqual([{ id: unstarted, status: "CREATED" }]); // the reads made and started no task
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM import_deliveries WHERE parent IN (?, ?)")
        .bind(lost, unstarted)
        .first(),
    ).toEqual({ n: 0 });

    await runCron();
    await until(
      "both orders DONE",
      async () => (await statusOf(lost)) === "DONE" && (await statusOf(unstarted)) === "DONE",
    );
    for (const id of [lost, unstarted]) expect((await endedDeliveries(`/orders/${id}`, me, 1))[0]!.status).toBe("DONE");
    expect((await listed()).results.map((r) => r.status)).toEqual(["DONE", "DONE"]);
  });

  it("a task ended while its record stayed RUNNING (the end's write lost): the sweep writes the end", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const item = (await westFlandersItems())[7]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
    await ok(await di(`/orders/${o.id}/confirm`, me, "POST"));
    await until("order DONE", async () => (await statusOf(o.id)) === "DONE");
    await env.DB.prepare("UPDATE import_orders SET status = 'RUNNING' WHERE id = ?").bind(o.id).run();
    await runCron();
    expect(await statusOf(o.id)).toBe("DONE");
    await runCron(); // a second sweep finds nothing to do
    expect(await statusOf(o.id)).toBe("DONE");
  });

  it("a delivery unit run again changes nothing: one tile, the same files", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const item = (await westFlandersItems())[4]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
    const confirmed = await ok<RecordJson>(await di(`/orders/${o.id}/confirm`, me, "POST"));
    const [d] = await endedDeliveries(`/orders/${o.id}`, me, 1);
    const tilesBefore = await env.DB.prepare("SELECT id, status FROM byoc_tiles WHERE collection = ?")
      .bind(confirmed.collectionId)
      .all();
    for (let i = 0; i < 3; i++) await deliver(env as unknown as Env, { delivery: d!.id, parent: o.id });
    const tilesAfter = await env.DB.prepare("SELECT id, status FROM byoc_tiles WHERE collection = ?")
      .bind(confirmed.collectionId)
      .all();
    expect(tilesAfter.results).toEqual(tilesBefore.results);
    expect(tilesAfter.results).toHaveLength(1);
    expect((await ok<DeliveryJson>(await di(`/orders/${o.id}/deliveries/${d!.id}`, me))).status).toBe("DONE");
  });

  it("a delivery unit run twice from WAITING makes one tile", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const item = (await westFlandersItems())[5]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id])));
    const confirmed = await ok<RecordJson>(await di(`/orders/${o.id}/confirm`, me, "POST"));
    const row = await env.DB.prepare("SELECT id FROM import_deliveries WHERE parent = ?")
      .bind(o.id)
      .first<{ id: string }>();
    // the same unit twice at once, as a redelivered message racing the first delivery would
    await Promise.all([
      deliver(env as unknown as Env, { delivery: row!.id, parent: o.id }),
      deliver(env as unknown as Env, { delivery: row!.id, parent: o.id }),
    ]);
    const [d] = await endedDeliveries(`/orders/${o.id}`, me, 1);
    expect(d!.status).toBe("DONE");
    const tiles = await env.DB.prepare("SELECT count(*) AS n FROM byoc_tiles WHERE collection = ?")
      .bind(confirmed.collectionId)
      .first<{ n: number }>();
    expect(tiles!.n).toBe(1);
  });
});
