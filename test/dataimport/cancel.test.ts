/**
 * Deliveries of a cancelled subscription. The spec's
 * delivery states have no CANCELLED: a delivery that will never be made ends DELIVERY_FAILED with an errorMessage
 * naming the cancellation, at the cancel, when its unit runs next, and by the cron's sweep for one left WAITING
 * (a Worker killed between the cancel's writes, or a subscription cancelled before this rule).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenOf } from "../helpers/byoc";
import { addDeliveries } from "../../src/dataimport/deliveries";
import { deliver } from "../../src/dataimport/deliver";
import { recordById } from "../../src/dataimport/store";
import type { Env } from "../../src/env";
import { di, ok, runCron, sampleInput, seedWestFlanders, type DeliveryJson, type RecordJson } from "./helpers";

beforeAll(async () => {
  await seedWestFlanders();
});

const E = env as unknown as Env;

/** A confirmed (RUNNING) subscription of a new account: its token and id. */
async function running(): Promise<{ me: string; id: string }> {
  const me = await tokenOf(crypto.randomUUID());
  const s = await ok<RecordJson>(
    await di("/subscriptions", me, "POST", {
      name: "to cancel",
      input: sampleInput("2018-01-01T00:00:00Z", "2018-03-31T23:59:59Z"),
    }),
  );
  expect((await ok<RecordJson>(await di(`/subscriptions/${s.id}/confirm`, me, "POST"))).status).toBe("RUNNING");
  return { me, id: s.id };
}

/** Adds a WAITING delivery of a product the provider has not delivered yet (what a poll finds); its id. */
async function waitingDelivery(id: string, item: string): Promise<string> {
  await addDeliveries(E, (await recordById(E, id))!, [item], null);
  return (await env.DB.prepare("SELECT id FROM import_deliveries WHERE parent = ? AND item_id = ?")
    .bind(id, item)
    .first<string>("id"))!;
}

const delivery = async (me: string, id: string, d: string) =>
  ok<DeliveryJson>(await di(`/subscriptions/${id}/deliveries/${d}`, me));

describe("cancelling a subscription", () => {
  it("ends its WAITING deliveries DELIVERY_FAILED, naming the cancellation", async () => {
    const { me, id } = await running();
    const d = await waitingDelivery(id, "PENDING_PRODUCT_1");
    expect((await delivery(me, id, d)).status).toBe("WAITING");
    expect((await ok<RecordJson>(await di(`/subscriptions/${id}/cancel`, me, "POST"))).status).toBe("CANCELLED");
    expect(await delivery(me, id, d)).toMatchObject({
      status: "DELIVERY_FAILED",
      errorMessage: expect.stringMatching(/subscription .* cancelled/),
    });
    const waiting = await ok<{ data: DeliveryJson[] }>(await di(`/subscriptions/${id}/deliveries?status=WAITING`, me));
    expect(waiting.data).toEqual([]);
  });

  it("a delivery found WAITING after the cancel (a poll in flight, a restart) ends when its unit runs, or by the cron sweep", async () => {
    const { me, id } = await running();
    expect((await ok<RecordJson>(await di(`/subscriptions/${id}/cancel`, me, "POST"))).status).toBe("CANCELLED");
    const late = await waitingDelivery(id, "LATE_PRODUCT");
    await deliver(E, { delivery: late, parent: id });
    expect((await delivery(me, id, late)).status).toBe("DELIVERY_FAILED");
    const left = await waitingDelivery(id, "LEFT_PRODUCT");
    expect((await delivery(me, id, left)).status).toBe("WAITING");
    await runCron();
    expect(await delivery(me, id, left)).toMatchObject({
      status: "DELIVERY_FAILED",
      errorMessage: expect.stringMatching(/cancelled/),
    });
  });
});
