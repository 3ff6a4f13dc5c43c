/**
 * Batch tiles share their isolate's memory with its requests and other heavy messages: each tile's
 * evaluation and files are admitted with their bytes (src/batch/execute.ts, src/pipeline/admission.ts
 * withConsumerAdmission). A tile that finds no room within the consumer's wait is snoozed (its message acked, no
 * attempt used; its object sends it again after Retry-After), not failed.
 * Tile messages are delivered by the test (see test/helpers/batchtasks.ts); real task object, R2, 29RKH pixels.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { newAccount } from "../helpers/accounts";
import { batchTaskIn, deliver, msg, tileMessage } from "../helpers/batchtasks";
import { seedSamples } from "../helpers/seed";
import { admissionStats, setAdmission } from "../../src/pipeline/admission";
import { fillAdmission } from "../helpers/admission";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { inspect, unitOf } from "../helpers/taskengine";

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
});
afterEach(() => setAdmission());

describe("admission of batch tiles", () => {
  it("no room: the tile is snoozed and stays PENDING, no attempt used; with room it is DONE, admitted with its bytes", async () => {
    const a = await newAccount();
    const { id, stub, tiles } = await batchTaskIn(a.account, "PROCESSING", "batch-admission");
    const held = await fillAdmission(); // a request in flight fills the budget
    try {
      expect(await deliver(TASK_QUEUE_NAME, [msg("t0", tileMessage(id, tiles[0]!))])).toEqual({
        acked: ["t0"],
        retried: [],
      });
    } finally {
      held.release();
    }
    const row = () => unitOf(stub, tiles[0]!);
    expect(await row()).toMatchObject({ status: "PENDING", attempts: 0, owner: null });
    const { done, failed } = await inspect(stub);
    expect([done, failed]).toEqual([0, 0]);
    setAdmission();
    expect(await deliver(TASK_QUEUE_NAME, [msg("t0", tileMessage(id, tiles[0]!), 2)])).toEqual({
      acked: ["t0"],
      retried: [],
    });
    expect(await row()).toMatchObject({ status: "DONE" });
    expect(admissionStats()).toMatchObject({ bytes: 0, requests: 0 });
    expect(admissionStats().peakBytes).toBeGreaterThan(0);
  });
});
