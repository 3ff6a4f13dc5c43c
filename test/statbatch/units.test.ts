/**
 * Processing units of Statistical Batch tasks, through the real queue on the West Flanders scenes: each feature's
 * PU is charged to the task's account once (the account's usage equals the task's costPU), a task whose account
 * runs out stops with stoppedStatusReason OUT_OF_PU, START is then refused with the middleware's 403 OUT_OF_PU,
 * and creating a task (which spends nothing) still passes.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { envelope } from "../helpers/auth";
import { newAccount, tokenOf } from "../helpers/accounts";
import { sampleFile, seedSamples } from "../helpers/seed";
import { ndviScl } from "../statistics/requests";
import { chargeUnits, unitsUsage } from "../../src/accounts/units";
import { statbatchPlugin } from "../../src/statbatch/plugin";
import { taskStub } from "../../src/tasks/stub";
import { createBody, putObject, sb, waitForStatus } from "./helpers";

const BUCKET = "sb-units";
/** The bucket of the account with a quota (a bucket belongs to one account). */
const QUOTA_BUCKET = "sb-units-quota";
let aggregation: Record<string, unknown>;

beforeAll(async () => {
  await seedSamples((i) => i.id.startsWith("S2_L2A_31UDS_"));
  aggregation = {
    timeRange: { from: "2018-04-10T00:00:00Z", to: "2018-04-20T00:00:00Z" },
    aggregationInterval: { of: "P1D" },
    resx: 20,
    resy: 20,
    evalscript: await ndviScl(),
  };
  for (const bucket of [BUCKET, QUOTA_BUCKET])
    await putObject(bucket, "fields.gpkg", await sampleFile("fixtures/vector/westflanders_fields.gpkg"));
});

/** Creates a task of `bearer`'s account over the fields in `bucket` (201 checked) and returns its id. */
async function created(bearer: string, bucket = BUCKET): Promise<string> {
  const r = await sb("", bearer, "POST", createBody(bucket, "fields.gpkg", aggregation));
  expect(r.status, await r.clone().text()).toBe(201);
  return ((await r.json()) as { id: string }).id;
}

/** The account's usage once it equals `base` + the task's counted PU (features finishing late are counted and charged too). */
async function settledUsage(account: string, id: string, base = 0): Promise<{ used: number; pu: number }> {
  return vi.waitFor(
    async () => {
      const pu = (await taskStub(statbatchPlugin, env, id).task(account))!.pu;
      const { used } = await unitsUsage(env, account);
      expect(used).toBeCloseTo(base + pu, 9);
      return { used, pu };
    },
    { timeout: 30_000, interval: 250 },
  );
}

describe("statistical batch processing units", () => {
  it("every feature's PU is charged once: the account's usage equals the task's costPU", async () => {
    const a = await newAccount();
    const bearer = await tokenOf(a.client);
    const id = await created(bearer);
    expect((await sb(`/${id}/start`, bearer, "POST")).status).toBe(204);
    const status = await waitForStatus(id, bearer, ["DONE", "PARTIAL", "FAILED"], 120_000);
    expect(status).toMatchObject({ status: "DONE", completionPercentage: 100 });
    const { pu } = await settledUsage(a.account, id);
    expect(pu).toBeGreaterThan(0);
    expect(status.costPU).toBeCloseTo(pu, 6);
  });

  it("an account running out of units stops its task with OUT_OF_PU; START is then refused with 403 OUT_OF_PU", async () => {
    const a = await newAccount({ puQuota: 1 });
    const bearer = await tokenOf(a.client);
    const id = await created(bearer, QUOTA_BUCKET);
    await chargeUnits(env, a.account, 0.999999); // one feature's PU is far more than 1e-6
    expect((await sb(`/${id}/start`, bearer, "POST")).status).toBe(204);
    const status = await waitForStatus(id, bearer, ["STOPPED", "DONE", "PARTIAL", "FAILED"], 120_000);
    expect([status.status, status.stoppedStatusReason]).toEqual(["STOPPED", "OUT_OF_PU"]);
    const { pu } = await settledUsage(a.account, id, 0.999999);
    const view = (await taskStub(statbatchPlugin, env, id).task(a.account))!;
    expect(view.done).toBeGreaterThanOrEqual(1);
    expect(view.done + view.failed).toBeLessThan(view.units!); // stopped before the end
    expect(pu).toBeGreaterThan(0);
    const start = await sb(`/${id}/start`, bearer, "POST");
    expect([start.status, (await envelope(start)).code]).toEqual([403, "OUT_OF_PU"]);
    await created(bearer, QUOTA_BUCKET); // creating spends nothing: not refused
  });
});
