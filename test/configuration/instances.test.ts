/** Configuration API: WMS instances and layers, CRUD and scoping to the token's account. */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, call, envelope, token } from "../helpers/auth";
import { createInstance, INSTANCES, jsonInit, layerBody } from "../helpers/wms";

let alice: string;
let bob: string;
const SCRIPT =
  "//VERSION=3\nfunction setup(){return {input:['B04'],output:{bands:1}}}\nfunction evaluatePixel(s){return [s.B04]}";

beforeAll(async () => {
  [alice, bob] = await Promise.all([token(), token()]);
});

describe("WMS instances", () => {
  it("create, get, list, update, delete an instance with layers in Sentinel Hub's shapes", async () => {
    const created = await createInstance(
      alice,
      [layerBody("A", SCRIPT), layerBody("B", SCRIPT, { datasourceDefaults: { type: "S2L2A", maxCloudCoverage: 30 } })],
      "first",
    );
    expect(created.name).toBe("first");
    expect(created["@id"]).toBe(`http://localhost${INSTANCES}/${created.id}`);
    expect(created.layers).toEqual([
      { "@id": `http://localhost${INSTANCES}/${created.id}/layers/A` },
      { "@id": `http://localhost${INSTANCES}/${created.id}/layers/B` },
    ]);
    const got = await (await authed(`${INSTANCES}/${created.id}`, {}, alice)).json();
    expect(got).toEqual(created);
    const list = (await (await authed(INSTANCES, {}, alice)).json()) as { id: string }[];
    expect(list.map((i) => i.id)).toContain(created.id);

    const layers = (await (await authed(`${INSTANCES}/${created.id}/layers`, {}, alice)).json()) as Record<
      string,
      unknown
    >[];
    expect(layers.map((l) => l.id)).toEqual(["A", "B"]);
    expect(layers[1]).toMatchObject({
      id: "B",
      orderHint: 1,
      defaultStyleName: "default",
      styles: [{ name: "default", evalScript: SCRIPT }],
      instance: { "@id": `http://localhost${INSTANCES}/${created.id}` },
      dataset: { "@id": "http://localhost/configuration/v1/datasets/sentinel-2-l2a" },
      datasourceDefaults: { type: "S2L2A", maxCloudCoverage: 30 },
    });

    const put = await authed(
      `${INSTANCES}/${created.id}`,
      jsonInit("PUT", { name: "renamed", layers: [layerBody("C", SCRIPT)] }),
      alice,
    );
    expect(put.status).toBe(200);
    const updated = (await put.json()) as { name: string; layers: { "@id": string }[] };
    expect(updated.name).toBe("renamed");
    expect(updated.layers.map((l) => l["@id"].split("/").pop())).toEqual(["C"]);

    expect((await authed(`${INSTANCES}/${created.id}`, { method: "DELETE" }, alice)).status).toBe(204);
    expect((await authed(`${INSTANCES}/${created.id}`, {}, alice)).status).toBe(404);
    expect((await authed(`${INSTANCES}/${created.id}/layers`, {}, alice)).status).toBe(404);
  });

  it("layers: POST adds (409 for a duplicate id), PUT replaces, DELETE removes (404 after)", async () => {
    const inst = await createInstance(alice, []);
    const at = `${INSTANCES}/${inst.id}/layers`;
    expect((await authed(at, jsonInit("POST", layerBody("NDVI", SCRIPT)), alice)).status).toBe(201);
    const dup = await authed(at, jsonInit("POST", layerBody("NDVI", SCRIPT)), alice);
    expect(dup.status).toBe(409);
    const put = await authed(
      `${at}/NDVI`,
      jsonInit("PUT", layerBody("ignored", SCRIPT, { title: "New title" })),
      alice,
    );
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ id: "NDVI", title: "New title" });
    expect(((await (await authed(`${at}/NDVI`, {}, alice)).json()) as { title: string }).title).toBe("New title");
    expect((await authed(`${at}/NDVI`, { method: "DELETE" }, alice)).status).toBe(204);
    expect((await authed(`${at}/NDVI`, {}, alice)).status).toBe(404);
    expect((await authed(`${at}/NDVI`, { method: "DELETE" }, alice)).status).toBe(404);
    expect((await authed(`${at}/NDVI`, jsonInit("PUT", layerBody("NDVI", SCRIPT)), alice)).status).toBe(404);
  });

  it("another account sees none of it: 404 on every path, absent from its list", async () => {
    const inst = await createInstance(alice, [layerBody("A", SCRIPT)]);
    const paths = [`${INSTANCES}/${inst.id}`, `${INSTANCES}/${inst.id}/layers`, `${INSTANCES}/${inst.id}/layers/A`];
    for (const p of paths) expect((await authed(p, {}, bob)).status).toBe(404);
    expect((await authed(`${INSTANCES}/${inst.id}`, jsonInit("PUT", { name: "stolen" }), bob)).status).toBe(404);
    expect((await authed(`${INSTANCES}/${inst.id}`, { method: "DELETE" }, bob)).status).toBe(404);
    expect((await authed(`${INSTANCES}/${inst.id}/layers/A`, { method: "DELETE" }, bob)).status).toBe(404);
    expect((await authed(`${INSTANCES}/${inst.id}/layers`, jsonInit("POST", layerBody("X", SCRIPT)), bob)).status).toBe(
      404,
    );
    const bobs = (await (await authed(INSTANCES, {}, bob)).json()) as { id: string }[];
    expect(bobs.map((i) => i.id)).not.toContain(inst.id);
    expect((await authed(`${INSTANCES}/${inst.id}`, {}, alice)).status).toBe(200);
  });

  it("needs a bearer token", async () => {
    expect((await call(INSTANCES)).status).toBe(401);
  });

  it.each([
    ["no name", { layers: [] }, "name"],
    [
      "unknown collection",
      { name: "x", layers: [layerBody("A", SCRIPT, { datasourceDefaults: { type: "landsat-99" } })] },
      "layers.0.datasourceDefaults.type",
    ],
    ["no styles", { name: "x", layers: [layerBody("A", SCRIPT, { styles: [] })] }, "layers.0.styles"],
    ["layer id with a comma", { name: "x", layers: [layerBody("A,B", SCRIPT)] }, "layers.0.id"],
    [
      "defaultStyleName not among styles",
      { name: "x", layers: [layerBody("A", SCRIPT, { defaultStyleName: "nope" })] },
      "layers.0.defaultStyleName",
    ],
    [
      "maxCloudCoverage over 100",
      { name: "x", layers: [layerBody("A", SCRIPT, { datasourceDefaults: { type: "S2L2A", maxCloudCoverage: 101 } })] },
      "layers.0.datasourceDefaults.maxCloudCoverage",
    ],
    [
      "timeRange not a date",
      {
        name: "x",
        layers: [layerBody("A", SCRIPT, { datasourceDefaults: { type: "S2L2A", timeRange: { from: "soon" } } })],
      },
      "layers.0.datasourceDefaults.timeRange.from",
    ],
    [
      "two layers with the same id",
      {
        name: "x",
        layers: [layerBody("A", SCRIPT), layerBody("B", SCRIPT), layerBody("A", SCRIPT, { title: "second A" })],
      },
      "layers.2.id",
    ],
  ])("400 for %s", async (_what, body, path) => {
    const r = await authed(INSTANCES, jsonInit("POST", body), alice);
    expect(r.status).toBe(400);
    const e = await envelope(r);
    expect(Object.keys(e.errors as Record<string, string>)).toContain(path);
  });

  it("replacing an instance with two layers of the same id is a 400 that keeps the stored layers", async () => {
    const inst = await createInstance(alice, [layerBody("A", SCRIPT)]);
    const r = await authed(
      `${INSTANCES}/${inst.id}`,
      jsonInit("PUT", { name: "dup", layers: [layerBody("Z", SCRIPT), layerBody("Z", SCRIPT)] }),
      alice,
    );
    expect(r.status).toBe(400);
    const e = await envelope(r);
    expect(e.message).toMatch(/'Z'.*layers\.0/);
    const layers = (await (await authed(`${INSTANCES}/${inst.id}/layers`, {}, alice)).json()) as { id: string }[];
    expect(layers.map((l) => l.id)).toEqual(["A"]);
  });
});
