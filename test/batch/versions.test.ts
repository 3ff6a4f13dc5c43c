/**
 * Batch paths: the spec's Versioning section puts the batch paths under `v1` (`/api/v1/...`) while
 * describing v2 bodies; the spec wins, so `/api/v1/batch/process` and `/api/v1/batch/tilinggrids` serve the same
 * tasks and grids as `/api/v2/...`. Sentinel Hub's deprecated batch v1 bodies (tilingGrid, bucketName) are refused
 * with a 400 that names those members.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { BATCH, batchRequest } from "../helpers/batch";

const V1 = "/api/v1/batch/process";
let bearer: string;
beforeAll(async () => {
  bearer = await token();
});

const call = (path: string, method = "GET", body?: unknown) =>
  authed(
    path,
    {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    },
    bearer,
  );

describe("batch under /api/v1 (the spec's Versioning)", () => {
  it("creates, lists and reads the same tasks as /api/v2; the tiling grids too", async () => {
    const made = await call(V1, "POST", batchRequest("batch-v1-alias"));
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const [v1, v2] = [await call(`${V1}/${id}`), await call(`${BATCH}/${id}`)];
    expect([v1.status, v2.status]).toEqual([200, 200]);
    expect(await v1.json()).toEqual(await v2.json());
    const listed = (await (await call(`${V1}?count=100`)).json()) as { data: { id: string }[] };
    expect(listed.data.map((t) => t.id)).toContain(id);
    expect((await call(`${V1}/${id}/analyse`, "POST")).status).toBe(204);
    const grids = await call("/api/v1/batch/tilinggrids");
    expect(grids.status).toBe(200);
    const data = async (r: Response) => ((await r.json()) as { data: unknown[] }).data;
    expect(await data(grids)).toEqual(await data(await call("/api/v2/batch/tilinggrids")));
  });

  it("a deprecated batch v1 body is a 400 naming the members v2 does not have", async () => {
    const v1Body = {
      processRequest: batchRequest("x").processRequest,
      tilingGrid: { id: 1, resolution: 10 },
      bucketName: "my-bucket",
    };
    const r = await call(V1, "POST", v1Body);
    expect(r.status).toBe(400);
    const { error } = (await r.json()) as { error: { message: string } };
    expect(error.message).toMatch(/unknown member\(s\), ignored: tilingGrid, bucketName/);
  });
  it("members named like Object.prototype's (constructor, toString, __proto__) are unknown members, never a 500", async () => {
    // JSON.parse makes "__proto__" an own member, as a client's body would.
    const body = JSON.parse(
      `{"processRequest":{"constructor":1,"toString":{"a":1}},"__proto__":{"x":1},"hasOwnProperty":2}`,
    );
    const r = await call(V1, "POST", body);
    expect(r.status).toBe(400);
    const { error } = (await r.json()) as { error: { message: string } };
    expect(error.message).toMatch(
      /unknown member\(s\), ignored: .*processRequest\.constructor, processRequest\.toString/,
    );
    expect(error.message).toMatch(/hasOwnProperty/);
  });
});
