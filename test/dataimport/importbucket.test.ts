/**
 * Import buckets: an order confirmed without collectionId delivers into `tpdi-<account hex>`, a name
 * anyone can compute (the demo account's id is public). Before, whoever used that name first owned it: B squatted
 * A's import bucket and every delivery of A's ended IMPORT_FAILED while A's quota stayed charged. Now `tpdi-` names
 * are reserved for the account they name (src/buckets/owners.ts): B is refused, a squat made before the
 * reservation is given back, A's import delivers and is charged for what it delivered; a delivery its bucket
 * refuses (a revoked grant) is given back its sqkm.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { importBucket, setBucketPolicy } from "../../src/buckets/owners";
import { authed } from "../helpers/auth";
import { jsonInit } from "../helpers/wms";
import { grantPolicy, tenant, type Tenant } from "../tenancy/helpers";
import { di, endedDeliveries, ok, sampleInput, seedWestFlanders, westFlandersItems, type RecordJson } from "./helpers";

const BYOC = "/api/v1/byoc/collections";

let a: Tenant, b: Tenant;
let item: string;
beforeAll(async () => {
  await seedWestFlanders();
  [a, b] = await Promise.all([tenant(), tenant()]);
  item = (await westFlandersItems())[0]!.id;
});

const orderOf = (collectionId?: string) => ({
  name: "one product",
  ...(collectionId ? { collectionId } : {}),
  input: sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", { itemIds: [item] }),
});

/** The account's quota used of the SAMPLE provider's collection, km2. */
async function used(t: Tenant): Promise<number> {
  return (await ok<{ quotaUsed: number }>(await di("/accountquotas/SAMPLE_SENTINEL_2", t.bearer))).quotaUsed;
}

/** Orders `item` as `t` (into `collectionId` when given), confirms it and waits for its one delivery to end. */
async function orderAndWait(
  t: Tenant,
  collectionId?: string,
): Promise<{ order: RecordJson; status: string; error?: string }> {
  const created = await ok<RecordJson>(await di("/orders", t.bearer, "POST", orderOf(collectionId)));
  const order = await ok<RecordJson>(await di(`/orders/${created.id}/confirm`, t.bearer, "POST"));
  const [d] = await endedDeliveries(`/orders/${order.id}`, t.bearer, 1);
  return { order, status: d!.status, error: d!.errorMessage };
}

describe("A's import bucket", () => {
  it("B cannot take tpdi-<A hex> first: A's import delivers into it and A is charged for the delivered order only", async () => {
    const bucket = importBucket(a.account);
    const squat = await authed(BYOC, jsonInit("POST", { name: "squat", s3Bucket: bucket }), b.bearer);
    expect(squat.status).toBe(403);
    expect(((await squat.json()) as { error: { message: string } }).error.message).toMatch(
      /reserved for the import deliveries/,
    );
    expect(await used(a)).toBe(0);
    const { order, status } = await orderAndWait(a);
    expect(status).toBe("DONE");
    expect(await used(a)).toBeCloseTo(order.sqkm, 9);
    const listed = await env.BUCKETS.list({ prefix: `${bucket}/${order.collectionId}/` });
    expect(listed.objects.length).toBe(4); // B02, B03, B04, B08
    // nobody may be granted an import bucket either, not even by its own account
    await expect(setBucketPolicy(env, a.account, bucket, grantPolicy(bucket, [b.account]))).rejects.toThrow(
      /import bucket .* cannot be granted/,
    );
  });

  it("a squat recorded before the reservation is given back to the account the name reserves", async () => {
    const c = await tenant();
    const bucket = importBucket(c.account);
    await env.DB.prepare("INSERT INTO bucket_owners (bucket, account_id, policy, created) VALUES (?, ?, ?, ?)")
      .bind(bucket, b.account, grantPolicy(bucket, [b.account]), new Date().toISOString())
      .run();
    const { status } = await orderAndWait(c);
    expect(status).toBe("DONE");
    const row = await env.DB.prepare("SELECT account_id, policy FROM bucket_owners WHERE bucket = ?")
      .bind(bucket)
      .first();
    expect(row).toEqual({ account_id: c.account, policy: null });
  });

  it("a delivery its bucket refuses (grant revoked before it ran) ends IMPORT_FAILED and is not charged", async () => {
    const d = await tenant();
    const shared = `shared-by-b-${d.account.slice(0, 8)}`;
    await setBucketPolicy(env, b.account, shared, grantPolicy(shared, [d.account])); // B owns it, grants D
    const c = await ok<{ data: { id: string } }>(
      await authed(BYOC, jsonInit("POST", { name: "in B's bucket", s3Bucket: shared }), d.bearer),
      201,
    );
    await setBucketPolicy(env, b.account, shared, null); // revoked before D's order runs
    const { status, error } = await orderAndWait(d, c.data.id);
    expect(status).toBe("IMPORT_FAILED");
    expect(error).toMatch(/bucket cannot be written/);
    expect(await used(d)).toBe(0);
  });
});
