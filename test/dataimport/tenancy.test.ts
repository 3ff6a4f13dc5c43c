/**
 * Tenancy of the third-party import (in the style of test/tenancy): account B never sees, changes or uses A's
 * orders, subscriptions, deliveries, files, archives, tiles, quotas or target collections; every refused call is a
 * 404 in the error envelope that names nothing of A's but the id B sent, and A's records are unchanged after.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { tenant, type Tenant } from "../tenancy/helpers";
import {
  di,
  endedDeliveries,
  ok,
  refusedWith,
  sampleInput,
  seedWestFlanders,
  until,
  westFlandersItems,
  type RecordJson,
} from "./helpers";

let a: Tenant, b: Tenant;
let order: RecordJson, sub: RecordJson, delivery: string, tile: string;

beforeAll(async () => {
  await seedWestFlanders();
  [a, b] = await Promise.all([tenant(), tenant()]);
  const item = (await westFlandersItems())[0]!.id;
  const input = sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", { itemIds: [item] });
  order = await ok<RecordJson>(await di("/orders", a.bearer, "POST", { name: "A secret order", input }));
  order = await ok<RecordJson>(await di(`/orders/${order.id}/confirm`, a.bearer, "POST"));
  sub = await ok<RecordJson>(
    await di("/subscriptions", a.bearer, "POST", {
      name: "A secret subscription",
      input: sampleInput("2018-11-01T00:00:00Z", "2030-01-01T00:00:00Z"),
    }),
  );
  delivery = (await endedDeliveries(`/orders/${order.id}`, a.bearer, 1))[0]!.id;
  await ok(await di(`/orders/${order.id}/deliveries/${delivery}/archive/create`, a.bearer, "POST"));
  await until(
    "A's archive",
    async () =>
      (await ok<{ status: string }>(await di(`/orders/${order.id}/deliveries/${delivery}/archive/status`, a.bearer)))
        .status === "DONE",
  );
  tile = (await ok<{ data: { id: string }[] }>(await di(`/orders/${order.id}/deliveries/${delivery}/tiles`, a.bearer)))
    .data[0]!.id;
}, 60_000);

/** B's call is a 404 that leaks none of A's names (`sent`: an id of A's that B's call named, which it may echo). */
async function hidden(r: Response, sent?: string): Promise<void> {
  const e = await refusedWith(r, 404);
  for (const secret of ["A secret", a.account, order.collectionId!].filter((x) => x !== sent))
    expect(e.message).not.toContain(secret);
}

describe("B and A's third-party import records", () => {
  it("B's lists and quotas hold nothing of A's", async () => {
    expect((await ok<{ data: unknown[] }>(await di("/orders", b.bearer))).data).toEqual([]);
    expect((await ok<{ data: unknown[] }>(await di("/orders?deleted=true", b.bearer))).data).toEqual([]);
    expect(
      (await ok<{ data: unknown[] }>(await di(`/orders?collectionId=${order.collectionId}`, b.bearer))).data,
    ).toEqual([]);
    expect((await ok<{ data: unknown[] }>(await di("/subscriptions", b.bearer))).data).toEqual([]);
    const quota = await ok<{ quotaUsed: number }>(await di("/accountquotas/SAMPLE_SENTINEL_2", b.bearer));
    expect(quota.quotaUsed).toBe(0);
    expect((await ok<{ quotaUsed: number }>(await di("/accountquotas/SAMPLE_SENTINEL_2", a.bearer))).quotaUsed).toBe(1);
  });

  it("B cannot read, confirm, cancel or delete A's orders and subscriptions", async () => {
    await hidden(await di(`/orders/${order.id}`, b.bearer));
    await hidden(await di(`/orders/${order.id}/confirm`, b.bearer, "POST"));
    await hidden(await di(`/orders/${order.id}`, b.bearer, "DELETE"));
    await hidden(await di(`/subscriptions/${sub.id}`, b.bearer));
    await hidden(await di(`/subscriptions/${sub.id}/confirm`, b.bearer, "POST"));
    await hidden(await di(`/subscriptions/${sub.id}/cancel`, b.bearer, "POST"));
    await hidden(await di(`/subscriptions/${sub.id}`, b.bearer, "DELETE"));
    await hidden(await di(`/orders/${sub.id}`, b.bearer)); // nor as the other kind
    expect((await ok<RecordJson>(await di(`/orders/${order.id}`, a.bearer))).status).toBe("DONE");
    expect((await ok<RecordJson>(await di(`/subscriptions/${sub.id}`, a.bearer))).status).toBe("CREATED");
  });

  it("B cannot reach A's deliveries, files, archives or tiles", async () => {
    const base = `/orders/${order.id}/deliveries`;
    for (const path of [
      base,
      `${base}/${delivery}`,
      `${base}/${delivery}/files`,
      `${base}/${delivery}/files/B04.tif`,
      `${base}/${delivery}/archive`,
      `${base}/${delivery}/archive/status`,
      `${base}/${delivery}/tiles`,
      `${base}/${delivery}/tiles/${tile}`,
    ])
      await hidden(await di(path, b.bearer));
    await hidden(await di(`${base}/${delivery}/archive/create`, b.bearer, "POST"));
  });

  it("B cannot order into A's collection", async () => {
    const input = sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", {
      itemIds: [(await westFlandersItems())[0]!.id],
    });
    await hidden(
      await di("/orders", b.bearer, "POST", { name: "intruder", collectionId: order.collectionId, input }),
      order.collectionId,
    );
    await hidden(
      await di("/subscriptions", b.bearer, "POST", {
        name: "intruder",
        collectionId: order.collectionId,
        input: sampleInput("2018-01-01T00:00:00Z", "2030-01-01T00:00:00Z"),
      }),
      order.collectionId,
    );
  });
});
