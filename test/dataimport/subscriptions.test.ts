/**
 * Subscriptions on the SAMPLE provider (interface spec 4.11, 4.12 and the Subscription state table): create,
 * confirm (RUNNING, every matching product delivered and ingested), each new matching product delivered by the next
 * poll of its provider (the poll unit, driven here through its task object's alarm; reads never poll), cancel only
 * while RUNNING, confirm only while CREATED, delete refused while RUNNING and hiding a cancelled one (deleted=true
 * lists it), sqkm = the geodesic area of the bounds (no minimum).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenOf } from "../helpers/byoc";
import { upsertItem } from "../../src/storage/items";
import { importStub, POLL_UNIT } from "../../src/dataimport/plugin";
import type { Env } from "../../src/env";
import {
  di,
  endedDeliveries,
  ok,
  pollNow,
  refusedWith,
  sampleInput,
  seedWestFlanders,
  until,
  westFlandersItems,
  type DeliveryJson,
  type RecordJson,
} from "./helpers";
import { inspect } from "../helpers/taskengine";

beforeAll(async () => {
  await seedWestFlanders();
});

/**
 * Products of January to March 2018: timeRange without an end (a subscription whose end has passed completes once
 * its deliveries ended), the end as a nativeFilter on the acquisition time.
 */
const winter = () => {
  const input = sampleInput("2018-01-01T00:00:00Z", "2018-01-01T00:00:00Z");
  input.data[0]!.dataFilter = {
    timeRange: { from: "2018-01-01T00:00:00Z" },
    nativeFilter: { type: "DateRangeFilter", field_name: "acquired", config: { lte: "2018-03-31T23:59:59Z" } },
  } as never;
  return { name: "winter watch", input };
};

describe("subscription lifecycle", () => {
  it("delivers every matching product, then each new one; cancel, confirm and delete follow the state table", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const s = await ok<RecordJson>(await di("/subscriptions", me, "POST", winter()));
    expect(s.status).toBe("CREATED");
    expect(s.sqkm).toBeGreaterThan(0.2);
    expect(s.sqkm).toBeLessThan(0.3); // the bounds' area: a subscription has no minimum
    expect((await refusedWith(await di(`/subscriptions/${s.id}/cancel`, me, "POST"), 409)).message).toContain(
      "only a RUNNING subscription",
    );

    const running = await ok<RecordJson>(await di(`/subscriptions/${s.id}/confirm`, me, "POST"));
    expect(running.status).toBe("RUNNING");
    expect(running.collectionId).toMatch(/^[0-9a-f-]{36}$/);
    await refusedWith(await di(`/subscriptions/${s.id}/confirm`, me, "POST"), 409);
    await refusedWith(await di(`/subscriptions/${s.id}`, me, "DELETE"), 409);

    const winterItems = (await westFlandersItems()).filter(
      (i) => i.properties.datetime >= "2018-01" && i.properties.datetime < "2018-04",
    );
    expect(winterItems.length).toBe(3);
    const first = await endedDeliveries(`/subscriptions/${s.id}`, me, 3);
    expect(first.map((d) => d.itemId).sort()).toEqual(winterItems.map((i) => i.id).sort());
    for (const d of first) {
      expect(d.status).toBe("DONE");
      expect(d.sqkm).toBeUndefined(); // order deliveries only
    }

    // a new product appears at the provider: reads do not show it (they never poll); the next poll delivers it, once
    const template = winterItems[0]!;
    const fresh = {
      ...template,
      id: `${template.id}_REPROCESSED`,
      properties: { ...template.properties, datetime: "2018-03-30T10:50:00Z" },
    };
    await upsertItem(env, fresh);
    await ok(await di(`/subscriptions/${s.id}`, me));
    expect((await ok<{ data: DeliveryJson[] }>(await di(`/subscriptions/${s.id}/deliveries`, me))).data).toHaveLength(
      3,
    );
    await pollNow(s.id);
    const all = await endedDeliveries(`/subscriptions/${s.id}`, me, 4);
    expect(all.filter((d) => d.itemId === fresh.id)).toMatchObject([{ status: "DONE" }]);
    const tiles = await ok<{ data: { id: string; status: string }[] }>(
      await di(`/subscriptions/${s.id}/deliveries/${all.find((d) => d.itemId === fresh.id)!.id}/tiles`, me),
    );
    expect(tiles.data.map((t) => t.status)).toEqual(["INGESTED"]);
    const done = await ok<{ data: DeliveryJson[] }>(await di(`/subscriptions/${s.id}/deliveries?status=DONE`, me));
    expect(done.data).toHaveLength(4);

    const cancelled = await ok<RecordJson>(await di(`/subscriptions/${s.id}/cancel`, me, "POST"));
    expect(cancelled.status).toBe("CANCELLED");
    await refusedWith(await di(`/subscriptions/${s.id}/cancel`, me, "POST"), 409);
    await refusedWith(await di(`/subscriptions/${s.id}/confirm`, me, "POST"), 409);
    expect((await di(`/subscriptions/${s.id}`, me, "DELETE")).status).toBe(204);
    expect((await ok<{ data: RecordJson[] }>(await di("/subscriptions", me))).data).toEqual([]);
    expect(
      (await ok<{ data: RecordJson[] }>(await di("/subscriptions?deleted=true", me))).data.map((x) => x.id),
    ).toEqual([s.id]);

    // the quota was charged the subscription's sqkm, once
    expect((await ok<{ quotaUsed: number }>(await di("/accountquotas/SAMPLE_SENTINEL_2", me))).quotaUsed).toBeCloseTo(
      s.sqkm,
      9,
    );
  });

  it("one whose timeRange.to has passed: its engine task delivers what matches, its poll unit ends, it is COMPLETED", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const s = await ok<RecordJson>(
      await di("/subscriptions", me, "POST", {
        name: "past",
        input: sampleInput("2017-08-01T00:00:00Z", "2017-09-30T23:59:59Z"),
      }),
    );
    await ok(await di(`/subscriptions/${s.id}/confirm`, me, "POST"));
    const matching = (await westFlandersItems()).filter(
      (i) => i.properties.datetime >= "2017-08" && i.properties.datetime < "2017-10",
    );
    expect(matching.length).toBeGreaterThan(0);
    const ended = await endedDeliveries(`/subscriptions/${s.id}`, me, matching.length);
    expect(ended.map((d) => d.itemId).sort()).toEqual(matching.map((i) => i.id).sort());
    expect(ended.every((d) => d.status === "DONE")).toBe(true);
    await until(
      "COMPLETED",
      async () => (await ok<RecordJson>(await di(`/subscriptions/${s.id}`, me))).status === "COMPLETED",
    );
    // the engine's view: a poll unit and one unit per delivery, each counted DONE; the task ended DONE
    const { units, state } = await inspect(importStub(env as unknown as Env, s.id));
    expect(units.map((u) => u.id).sort()).toEqual([...ended.map((d) => d.id), POLL_UNIT].sort());
    expect(units.every((u) => u.status === "DONE")).toBe(true);
    expect(state).toBe("DONE");
  });

  it("a CREATED subscription is deleted for good; a subscription needs timeRange.from", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const s = await ok<RecordJson>(await di("/subscriptions", me, "POST", winter()));
    expect((await di(`/subscriptions/${s.id}`, me, "DELETE")).status).toBe(204);
    await refusedWith(await di(`/subscriptions/${s.id}`, me), 404);
    const noStart = winter();
    (noStart.input.data[0]!.dataFilter as { timeRange: { from?: string; to?: string } }).timeRange = {
      to: "2018-03-31T00:00:00Z",
    };
    await refusedWith(await di("/subscriptions", me, "POST", noStart), 400);
    await refusedWith(await di("/subscriptions?status=DONE", me), 400); // DONE is an order state
  });
});
