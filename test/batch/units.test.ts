/**
 * Processing units of batch tasks: each tile's PU is charged to the task's account once (redelivered messages
 * charge nothing more), a task whose account runs out of units stops with stoppedStatusReason OUT_OF_PU (its other
 * tiles are acked without work), and START is then refused with the middleware's 403 OUT_OF_PU while creating a
 * task still passes. Tile messages are delivered by the test (see test/helpers/batchtasks.ts).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { envelope } from "../helpers/auth";
import { newAccount, tokenOf } from "../helpers/accounts";
import { batchCall, batchRequest, getTask } from "../helpers/batch";
import { batchTaskIn, deliver, msg, tileMessage as tileBody } from "../helpers/batchtasks";
import { seedSamples } from "../helpers/seed";
import { chargeUnits, unitsUsage } from "../../src/accounts/units";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { inspect } from "../helpers/taskengine";

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
});

describe("batch processing units", () => {
  it("every tile's PU is charged once to the task's account, redeliveries included", async () => {
    const a = await newAccount();
    const { id, stub, tiles } = await batchTaskIn(a.account, "PROCESSING", "batch-units");
    await deliver(TASK_QUEUE_NAME, [
      msg("u0", tileBody(id, tiles[0]!)),
      msg("u0", tileBody(id, tiles[0]!), 2),
      msg("u1", tileBody(id, tiles[1]!)),
    ]);
    await deliver(TASK_QUEUE_NAME, [
      msg("u2", tileBody(id, tiles[2]!)),
      msg("u3", tileBody(id, tiles[3]!)),
      msg("u1", tileBody(id, tiles[1]!), 2),
    ]);
    const { state, done, pu } = await inspect(stub);
    expect([state, done]).toEqual(["DONE", 4]);
    expect(pu).toBeGreaterThan(0);
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(pu, 9);
    expect((await getTask(id, await tokenOf(a.client))).costPU).toBeCloseTo(pu, 6);
  });

  it("an account running out of units stops its task with OUT_OF_PU; START is then refused with 403 OUT_OF_PU", async () => {
    const a = await newAccount({ puQuota: 1 });
    const bearer = await tokenOf(a.client);
    const { id, stub, tiles } = await batchTaskIn(a.account, "PROCESSING", "batch-out-of-pu");
    await chargeUnits(env, a.account, 0.999999); // one tile's PU is far more than 1e-6
    await deliver(
      TASK_QUEUE_NAME,
      tiles.map((t, i) => msg(`o${i}`, tileBody(id, t))),
    );
    const task = await getTask(id, bearer);
    expect([task.status, task.stoppedStatusReason]).toEqual(["STOPPED", "OUT_OF_PU"]);
    const { done, pu, units } = await inspect(stub);
    expect(done).toBe(1); // the first tile's charge stopped the task: the other three did no work
    expect(units.filter((t) => t.status === "IDLE")).toHaveLength(3); // waiting for START
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(0.999999 + pu, 9);
    const start = await batchCall(`/${id}/start`, bearer, "POST");
    expect([start.status, (await envelope(start)).code]).toEqual([403, "OUT_OF_PU"]);
    expect((await batchCall("", bearer, "POST", batchRequest("batch-out-of-pu"))).status).toBe(201); // creating spends nothing
  });
});
