/**
 * Orders whose deliveries do not all succeed, and orders into a given collection (interface spec: "A given
 * collection must be empty or have the same bands"): a product whose files the provider lost ends DELIVERY_FAILED
 * with the reason, its order PARTIAL, and a PARTIAL order cannot be deleted (409); an order into an empty BYOC
 * collection of the caller's fills it (in its own bucket), one into a collection of other bands is refused (400).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { authed } from "../helpers/auth";
import { tokenOf } from "../helpers/byoc";
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

beforeAll(async () => {
  await seedWestFlanders();
});

const order = (itemIds: string[], collectionId?: string) => ({
  name: "two products",
  ...(collectionId ? { collectionId } : {}),
  input: sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", { itemIds }),
});

describe("partial orders", () => {
  it("a product the provider cannot deliver ends DELIVERY_FAILED; the order PARTIAL, not deletable", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const [good, lost] = (await westFlandersItems()).slice(0, 2);
    await env.DATA.delete(lost!.assets.B03!.href); // this test file's own storage
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([good!.id, lost!.id])));
    expect(o.sqkm).toBe(1);
    await ok(await di(`/orders/${o.id}/confirm`, me, "POST"));
    const deliveries = await endedDeliveries(`/orders/${o.id}`, me, 2);
    const failed = deliveries.find((d) => d.itemId === lost!.id)!;
    expect(failed.status).toBe("DELIVERY_FAILED");
    expect(failed.errorMessage).toContain("B03.tif");
    expect(deliveries.find((d) => d.itemId === good!.id)!.status).toBe("DONE");
    expect(deliveries.map((d) => d.sqkm)).toEqual([0.5, 0.5]);
    await until(
      "order PARTIAL",
      async () => (await ok<RecordJson>(await di(`/orders/${o.id}`, me))).status === "PARTIAL",
    );
    expect((await refusedWith(await di(`/orders/${o.id}`, me, "DELETE"), 409)).message).toContain("PARTIAL");
    await refusedWith(await di(`/orders/${o.id}/deliveries/${failed.id}/files`, me), 409);
  });
});

describe("orders into a given collection", () => {
  it("fills an empty collection of the caller's, in its bucket; refuses one with other bands", async () => {
    const account = crypto.randomUUID();
    const me = await tokenOf(account);
    const bucket = `given-${account.slice(0, 8)}`; // tpdi- names are import buckets (src/buckets/owners.ts)
    const empty = await ok<{ data: { id: string } }>(
      await authed(
        "/api/v1/byoc/collections",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "mine", s3Bucket: bucket }),
        },
        me,
      ),
      201,
    );
    const item = (await westFlandersItems())[0]!;
    const o = await ok<RecordJson>(await di("/orders", me, "POST", order([item.id], empty.data.id)));
    expect(o.collectionId).toBe(empty.data.id);
    const confirmed = await ok<RecordJson>(await di(`/orders/${o.id}/confirm`, me, "POST"));
    expect(confirmed.collectionId).toBe(empty.data.id);
    const [d] = await endedDeliveries(`/orders/${o.id}`, me, 1);
    expect(d!.status).toBe("DONE");
    const listed = await env.BUCKETS.list({ prefix: `${bucket}/${empty.data.id}/${d!.id}/` });
    expect(listed.objects.map((x) => x.key.split("/").pop()).sort()).toEqual([
      "B02.tif",
      "B03.tif",
      "B04.tif",
      "B08.tif",
    ]);

    const other = await ok<{ data: { id: string } }>(
      await authed(
        "/api/v1/byoc/collections",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            name: "other bands",
            s3Bucket: bucket,
            additionalData: { bands: { NDVI: { bitDepth: 32, sampleFormat: "FLOAT" } } },
          }),
        },
        me,
      ),
      201,
    );
    const e = await refusedWith(await di("/orders", me, "POST", order([item.id], other.data.id)), 400);
    expect(e.message).toContain("NDVI");
  });
});
