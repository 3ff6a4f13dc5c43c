/**
 * Batch v2 task lifecycle in workerd: redelivered and retried tile messages count once and write once, a stopped
 * task's messages are acked without work, failing tiles are bounded and marked FAILED (dead-letter hook too),
 * user actions and updates refused in the wrong state, bad requests, and another account's tasks.
 * States are set up through the task object itself so that no queue message runs behind the test's back.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { leaseId } from "../../src/tasks/messages";
import { inspect, quietly, setRow, unitOf } from "../helpers/taskengine";
import { DEAD_LETTER_QUEUE_NAME, TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { authed, envelope, token } from "../helpers/auth";
import { BATCH, ONE_TILE, batchCall, batchRequest, bucketFiles, getTask, waitForStatus } from "../helpers/batch";
import { seedSamples } from "../helpers/seed";
import { batchTaskIn, deliver, msg, tileMessage } from "../helpers/batchtasks";

const E = env as unknown as Env;
let bearer: string;
let account: string;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
  const created = await batchCall("", bearer, "POST", batchRequest("batch-probe"));
  account = ((await created.json()) as { domainAccountId: string }).domainAccountId;
});

/** A task of the caller's account put in `state` through its object (see batchTaskIn). */
const taskIn = (
  state: Parameters<typeof batchTaskIn>[1],
  bucket: string,
  bounds?: object,
  output: Record<string, unknown> = {},
) => batchTaskIn(account, state, bucket, bounds, output);

describe("once-only tiles", () => {
  it("a redelivered or duplicated tile message counts once and writes each output once", async () => {
    const { id, stub, tiles } = await taskIn("PROCESSING", "batch-redeliver");
    expect(tiles).toHaveLength(4);
    const body = (tile: string) => tileMessage(id, tile);
    const out = await deliver(TASK_QUEUE_NAME, [
      msg("m0", body(tiles[0]!)),
      msg("m0", body(tiles[0]!), 2), // redelivery of m0
      msg("m0b", body(tiles[0]!)), // the same tile sent again (e.g. by the watchdog)
      msg("m1", body(tiles[1]!)),
    ]);
    expect(out).toEqual({ acked: ["m0", "m0", "m0b", "m1"], retried: [] });
    let task = await getTask(id, bearer);
    expect(task).toMatchObject({ status: "PROCESSING", completionPercentage: 50 });
    expect((await inspect(stub)).done).toBe(2);
    await deliver(TASK_QUEUE_NAME, [
      msg("m2", body(tiles[2]!)),
      msg("m3", body(tiles[3]!)),
      msg("m3", body(tiles[3]!), 2),
    ]);
    task = await getTask(id, bearer);
    expect(task).toMatchObject({ status: "DONE", completionPercentage: 100 });
    expect((await inspect(stub)).done).toBe(4);
    const files = await bucketFiles("batch-redeliver", "out/");
    expect([...files.keys()].sort()).toEqual(tiles.map((t) => `out/${id}/${t}/default.tiff`).sort());
  });

  it("two deliveries racing on one tile: one begins it, the other finds it busy; three ends count it once", async () => {
    const { stub, tiles } = await taskIn("PROCESSING", "batch-race");
    const [a, b] = await Promise.all([stub.begin(tiles[0]!, "a#1"), stub.begin(tiles[0]!, "b#1")]);
    expect([a.run, b.run].sort()).toEqual([false, true]);
    expect(a.run ? b : a).toEqual({ run: false, reason: "busy" });
    const ends = [
      stub.end(tiles[0]!, "a#1", { result: { pu: 0.25 } }),
      stub.end(tiles[0]!, "b#1", { result: { pu: 0.25 } }),
      stub.end(tiles[0]!, "a#1", { result: { pu: 0, error: "late failure" } }),
    ];
    expect(await Promise.all(ends)).toEqual([true, true, true]);
    expect(await inspect(stub)).toMatchObject({ done: 1, failed: 0, pu: 0.25 });
    expect(await unitOf(stub, tiles[0]!)).toMatchObject({ status: "DONE", error: null, pu: 0.25 });
  });

  it("a tile whose message was lost (its unit leased, never sent: a restarted server) is sent again by the alarm", async () => {
    const { id, stub, tiles } = await taskIn("ANALYSIS_DONE", "batch-watchdog", ONE_TILE);
    await quietly(stub, (o) => o.act(account, "START"));
    expect(await runDurableObjectAlarm(stub)).toBe(true); // as at the lease's expiry
    expect(await waitForStatus(id, bearer, ["DONE", "FAILED"])).toMatchObject({
      status: "DONE",
      completionPercentage: 100,
    });
    expect([...(await bucketFiles("batch-watchdog", `out/${id}/`)).keys()]).toEqual([
      `out/${id}/29RKH_0_4/default.tiff`,
    ]);
    expect(await unitOf(stub, tiles[0]!)).toMatchObject({ status: "DONE", attempts: 1 });
  });

  it("a slow tile is not run twice: a copy delivered while its lease runs is acked without work; a killed one runs again", async () => {
    const { id, stub, tiles } = await taskIn("ANALYSIS_DONE", "batch-slow", ONE_TILE);
    await quietly(stub, (o) => o.act(account, "START"));
    expect(await stub.begin(tiles[0]!, "slow#1")).toMatchObject({ run: true }); // a delivery still rendering it
    expect(await deliver(TASK_QUEUE_NAME, [msg("copy", tileMessage(id, tiles[0]!))])).toEqual({
      acked: ["copy"],
      retried: [],
    });
    expect((await bucketFiles("batch-slow", "")).size).toBe(0);
    expect(await inspect(stub)).toMatchObject({ done: 0, failed: 0, pu: 0 });
    // that delivery was killed: once its lease expired, the alarm sends the tile again
    await setRow(stub, "UPDATE units SET lease_until = 0 WHERE id = ?", leaseId(tiles[0]!));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await waitForStatus(id, bearer, ["DONE", "FAILED"])).toMatchObject({
      status: "DONE",
      completionPercentage: 100,
    });
    expect(await unitOf(stub, tiles[0]!)).toMatchObject({ status: "DONE", attempts: 2 });
    expect([...(await bucketFiles("batch-slow", `out/${id}/`)).keys()]).toEqual([`out/${id}/29RKH_0_4/default.tiff`]);
  });

  it("messages of a stopped task are acked without work", async () => {
    const { id, stub, tiles } = await taskIn("STOPPED", "batch-stopped");
    const out = await deliver(
      TASK_QUEUE_NAME,
      tiles.map((t, i) => msg(`s${i}`, tileMessage(id, t))),
    );
    expect(out.acked).toHaveLength(4);
    expect((await bucketFiles("batch-stopped", "")).size).toBe(0);
    expect(await inspect(stub)).toMatchObject({ done: 0, failed: 0, pu: 0 });
    expect(await getTask(id, bearer)).toMatchObject({
      status: "STOPPED",
      stoppedStatusReason: "USER_ACTION",
      userAction: "STOP",
    });
  });

  it("a tile failing MAX attempts, or dead-lettered, is FAILED once; all tiles failed -> task FAILED with error", async () => {
    const { id, stub, tiles } = await taskIn("PROCESSING", "batch-fail");
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await stub.begin(tiles[0]!, `boom#${attempt}`)).toMatchObject({ run: true });
      // a transient error: retried by the queue (false) until the last attempt counts it failed
      expect(await stub.end(tiles[0]!, `boom#${attempt}`, { retry: "boom", retryMs: 0 })).toBe(attempt === 3);
    }
    const dead = tiles.slice(1).map((t, i) => msg(`d${i}`, tileMessage(id, t)));
    expect((await deliver(DEAD_LETTER_QUEUE_NAME, [...dead, dead[0]!])).acked).toHaveLength(4);
    expect(await inspect(stub)).toMatchObject({ done: 0, failed: 4, pu: 0 });
    const task = await getTask(id, bearer);
    expect(task).toMatchObject({ status: "FAILED", completionPercentage: 100, costPU: 0 });
    expect(task.error).toMatch(/All 4 tiles failed; first error: boom \(after 3 attempts\)/);
    expect((await inspect(stub)).units.map((t) => t.status)).toEqual(["FAILED", "FAILED", "FAILED", "FAILED"]);
  });

  it("existing outputs: the tile fails without overwrite, is skipped with skipExisting, rewritten with overwrite", async () => {
    const cases = [
      [{}, "FAILED", "user's file"],
      [{ skipExisting: true }, "DONE", "user's file"],
      [{ overwrite: true }, "DONE", "II*"],
    ] as const;
    for (const [output, status, content] of cases) {
      const { id, stub, tiles } = await taskIn("PROCESSING", "batch-exists", ONE_TILE, output);
      expect(tiles).toEqual(["29RKH_0_4"]);
      const key = `batch-exists/out/${id}/${tiles[0]}/default.tiff`;
      await E.BUCKETS.put(key, "user's file");
      await deliver(TASK_QUEUE_NAME, [msg(`e-${id}`, tileMessage(id, tiles[0]!))]);
      const task = await getTask(id, bearer);
      expect(task.status).toBe(status);
      expect((await (await E.BUCKETS.get(key))!.text()).slice(0, content.length)).toBe(content);
      if (status === "FAILED") expect(task.error).toMatch(/already exist.*overwrite/);
      else expect(task.costPU).toBe("skipExisting" in output ? 0 : (await inspect(stub)).pu);
    }
  });
});

describe("user actions and updates", () => {
  it("PUT changes the description, but not while PROCESSING (409) nor ANALYSING after START", async () => {
    const created = await taskIn("CREATED", "batch-update");
    const ok = await batchCall(`/${created.id}`, bearer, "PUT", { description: "renamed" });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { description: string }).description).toBe("renamed");
    expect((await getTask(created.id, bearer)).request).toMatchObject({ description: "renamed" });
    const busy = await taskIn("PROCESSING", "batch-update");
    const r = await batchCall(`/${busy.id}`, bearer, "PUT", { description: "x" });
    expect(r.status).toBe(409);
    expect((await envelope(r)).message).toMatch(/PROCESSING.*cannot be updated/);
    const waiting = await taskIn("CREATED", "batch-update");
    await quietly(waiting.stub, (o) => o.act(account, "ANALYSE"));
    expect((await waiting.stub.act(account, "START"))?.ok).toBe(true); // START while ANALYSING: processing follows the analysis
    const w = await batchCall(`/${waiting.id}`, bearer, "PUT", { description: "x" });
    expect(w.status).toBe(409);
    expect((await envelope(w)).message).toMatch(/ANALYSING and waiting to be processed/);
  });

  it("refuses actions the state forbids with 409 naming the state; start on CREATED analyses then processes", async () => {
    const created = await taskIn("CREATED", "batch-actions", ONE_TILE);
    const stop = await batchCall(`/${created.id}/stop`, bearer, "POST");
    expect(stop.status).toBe(409);
    expect((await envelope(stop)).message).toMatch(/is CREATED/);
    expect((await batchCall(`/${created.id}/start`, bearer, "POST")).status).toBe(204);
    const done = await waitForStatus(created.id, bearer, ["DONE", "FAILED"]);
    expect(done).toMatchObject({ status: "DONE", userAction: "START" });
    for (const a of ["start", "analyse", "stop"]) {
      const r = await batchCall(`/${created.id}/${a}`, bearer, "POST");
      expect(r.status).toBe(409);
      expect(await envelope(r)).toMatchObject({ code: "COMMON_CONFLICT", message: expect.stringMatching(/is DONE/) });
    }
  });

  it("another account can neither see, list, update nor start the task (404)", async () => {
    const { id } = await taskIn("CREATED", "batch-other");
    const other = await token();
    for (const [path, method, body] of [
      [`/${id}`, "GET"],
      [`/${id}`, "PUT", { description: "mine" }],
      [`/${id}/start`, "POST"],
      [`/${id}/analyse`, "POST"],
      [`/${id}/stop`, "POST"],
    ] as const) {
      const r = await batchCall(path, other, method, body);
      expect(r.status).toBe(404);
    }
    const list = (await (await batchCall("", other)).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
    expect((await getTask(id, bearer)).status).toBe("CREATED");
  });
});

describe("bad requests", () => {
  const bad: [string, unknown, RegExp][] = [
    ["unknown grid", batchRequest("bad-requests", {}, { id: 99 }), /Tiling grid 99 does not exist/],
    [
      "resolution not offered",
      batchRequest("bad-requests", {}, { resolution: 15 }),
      /Resolution 15 is not offered by tiling grid 0/,
    ],
    ["missing delivery", { ...batchRequest("bad-requests"), output: { type: "raster" } }, /output\.delivery/],
    [
      "template without <tileName>",
      batchRequest("bad-requests", { delivery: { s3: { url: "s3://bad-requests/x/<outputId>.tif" } } }),
      /<tileName>/,
    ],
    [
      "PNG output",
      {
        ...batchRequest("bad-requests"),
        processRequest: {
          ...batchRequest("bad-requests").processRequest,
          output: { responses: [{ identifier: "default", format: { type: "image/png" } }] },
        },
      },
      /image\/tiff/,
    ],
    [
      "Zarr output without delivery",
      { ...batchRequest("bad-requests"), output: { type: "zarr", group: { zarr_format: 2 } } },
      /output\.delivery/,
    ],
    [
      "bad evalscript",
      {
        ...batchRequest("bad-requests"),
        processRequest: { ...batchRequest("bad-requests").processRequest, evalscript: "function setup( {" },
      },
      /./,
    ],
    [
      "unsupported COG resampling",
      batchRequest("bad-requests", { cogOutput: true, cogParameters: { resamplingAlgorithm: "lanczos" } }),
      /nearest, average, mode/,
    ],
  ];
  it.each(bad)("%s -> 400 with a message", async (_, body, message) => {
    const r = await batchCall("", bearer, "POST", body);
    expect(r.status).toBe(400);
    expect((await envelope(r)).message).toMatch(message);
  });

  it("instanceType in any case is stored in the spec's upper case (sentinelhub-py sends 'normal'); others 400", async () => {
    for (const [sent, stored] of [
      ["normal", "NORMAL"],
      ["Large", "LARGE"],
      ["NORMAL", "NORMAL"],
    ]) {
      const r = await batchCall("", bearer, "POST", { ...batchRequest("batch-instance"), instanceType: sent });
      expect(r.status).toBe(201);
      expect(((await r.json()) as { request: { instanceType: string } }).request.instanceType).toBe(stored);
    }
    const r = await batchCall("", bearer, "POST", { ...batchRequest("batch-instance"), instanceType: "huge" });
    expect(r.status).toBe(400);
    expect((await envelope(r)).message).toMatch(/instanceType must be NORMAL or LARGE/);
  });

  it("cogOutput with an INT8 output fails the analysis with the reason", async () => {
    const body = batchRequest("batch-int8", { cogOutput: true });
    body.processRequest.evalscript = body.processRequest.evalscript.replace(
      'sampleType: "FLOAT32"',
      'sampleType: "INT8"',
    );
    const { id } = (await (await batchCall("", bearer, "POST", body)).json()) as { id: string };
    expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
    expect(await waitForStatus(id, bearer, ["FAILED", "ANALYSIS_DONE"])).toMatchObject({
      status: "FAILED",
      error: expect.stringMatching(/INT8/),
    });
  });

  it("multipart/form-data: the evalscript part becomes processRequest.evalscript", async () => {
    const { evalscript, ...processRequest } = batchRequest("batch-form").processRequest;
    const form = new FormData();
    form.set("request", JSON.stringify({ ...batchRequest("batch-form"), processRequest }));
    form.set("evalscript", evalscript);
    const r = await authed(BATCH, { method: "POST", body: form }, bearer);
    expect(r.status).toBe(201);
    expect(
      ((await r.json()) as { request: { processRequest: { evalscript: string } } }).request.processRequest.evalscript,
    ).toBe(evalscript);
  });

  it("unknown task ids -> 404", async () => {
    expect((await batchCall(`/${crypto.randomUUID()}`, bearer)).status).toBe(404);
    expect((await batchCall("/not-a-uuid/start", bearer, "POST")).status).toBe(404);
  });
});
