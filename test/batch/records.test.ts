/**
 * A batch request near the 4 MiB body limit (3.9 MiB: a 1 MiB evalscript holding a lookup table, at the evalscript
 * limit, and a polygon of 50,000 vertices, at the vertex limit, its coordinates written with 36 characters each) is
 * stored and read back equal through GET, while no row of its Durable Object holds more than 1 MB (the request lives
 * in R2, src/tasks/records.ts; Cloudflare's limit is 2 MB per row and local workerd accepts more, so the rows are
 * measured here). And the S3 keys of a delivery descriptor are write-only: never in a GET or list answer, and gone
 * from the task's object once the task has ended.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { newAccount, tokenOf } from "../helpers/accounts";
import { BATCH, ONE_TILE, SCRIPT, batchCall, batchRequest, bucketFiles, getTask, runBatchTask } from "../helpers/batch";
import { createS3Key } from "../../src/buckets/keys";
import { batchPlugin } from "../../src/batch/plugin";
import { taskStub } from "../../src/tasks/stub";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const MiB = 1024 * 1024;

/** A closed ring of 50,000 vertices around (250000, 2750000) m in EPSG:32629, radius 20-21 km. */
function ring(): number[][] {
  const n = 49_999;
  const points = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const r = 20_000 + 1000 * Math.sin(7 * a);
    return [250_000 + r * Math.cos(a), 2_750_000 + r * Math.sin(a)];
  });
  return [...points, points[0]!];
}

/** `v` as JSON text of 36 characters (trailing zeros after its shortest form: the same number when parsed). */
const padded = (v: number): string => (String(v).includes(".") ? String(v) : `${v}.`).padEnd(36, "0");

let bearer: string;
beforeAll(async () => {
  bearer = await token();
});

describe("a 3.9 MiB batch request", () => {
  it("is created (201) and read back equal through GET; its object's rows stay under 1 MB", async () => {
    const lut = `\n// lookup table\n// ${Array.from({ length: 60_000 }, (_, i) => (i * 7919) % 65_536).join(",")}`;
    const evalscript = (SCRIPT + lut).slice(0, MiB - 8);
    const body = batchRequest("batch-large", {}, {}, { geometry: "GEOMETRY", properties: { crs: CRS(32629) } });
    body.processRequest.evalscript = evalscript;
    const coordinates = ring();
    const text = JSON.stringify(body).replace(
      '"GEOMETRY"',
      `{"type":"Polygon","coordinates":[[${coordinates.map(([x, y]) => `[${padded(x!)},${padded(y!)}]`).join(",")}]]}`,
    );
    expect(text.length).toBeGreaterThan(3.9 * MiB);
    expect(text.length).toBeLessThan(4 * MiB);
    const created = await authed(
      BATCH,
      { method: "POST", headers: { "content-type": "application/json" }, body: text },
      bearer,
    );
    expect(created.status, (await created.clone().text()).slice(0, 300)).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const task = await getTask(id, bearer);
    const sent = JSON.parse(text);
    const got = task.request as typeof sent;
    expect(got.processRequest).toEqual(sent.processRequest); // the 3.9 MiB, unchanged
    expect(got).toMatchObject(sent); // output with its defaults filled in (overwrite, cogOutput, ...)
    expect((task.request as { processRequest: { evalscript: string } }).processRequest.evalscript).toHaveLength(
      evalscript.length,
    );
    const rows = await runInDurableObject(taskStub(batchPlugin, E, id), (_o, state) => {
      const tables = state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name NOT LIKE '\\_cf%' ESCAPE '\\'",
        )
        .toArray();
      return tables.flatMap(({ name }) =>
        state.storage.sql
          .exec(`SELECT * FROM "${name}"`)
          .toArray()
          .map((row) => new TextEncoder().encode(JSON.stringify(row)).length),
      );
    });
    expect(rows.length).toBeGreaterThan(0);
    expect(Math.max(...rows)).toBeLessThan(MiB);
  });
});

describe("the S3 keys of a delivery descriptor", () => {
  it("are never answered by GET or list, and leave the task's object when it ends (DONE, outputs written)", async () => {
    const me = await newAccount();
    const [mine, keys] = await Promise.all([tokenOf(me.client), createS3Key(E, me.account).then((k) => k!)]);
    const body = batchRequest(
      "batch-secrets",
      {
        delivery: {
          s3: { url: "s3://batch-secrets/out", accessKey: keys.accessKeyId, secretAccessKey: keys.secretAccessKey },
        },
      },
      {},
      ONE_TILE,
    );
    const secretsOf = (id: string) =>
      runInDurableObject(
        taskStub(batchPlugin, E, id),
        (_o, state) => state.storage.sql.exec("SELECT 1 FROM task WHERE secrets IS NOT NULL").toArray().length,
      );
    const created = await batchCall("", mine, "POST", body);
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(await secretsOf(id)).toBe(1); // kept while the task needs it
    const { task } = await runBatchTask(body, mine);
    expect(task.status).toBe("DONE");
    expect([...(await bucketFiles("batch-secrets", `out/${task.id}/`)).keys()]).toEqual([
      `out/${task.id}/29RKH_0_4/default.tiff`,
    ]);
    for (const path of [`/${task.id}`, `/${id}`, ""]) {
      const text = await (await batchCall(path, mine)).text();
      expect(text).not.toContain(keys.secretAccessKey);
    }
    expect(await secretsOf(task.id as string)).toBe(0);
  });
});
