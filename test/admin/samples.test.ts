/**
 * Sample data through the admin API (the path `npm run deploy -- --with-samples` takes to a remote deployment):
 * scene files PUT into the DATA bucket and STAC items upserted, after which the catalog finds the scene and a
 * Process request over it returns real pixels. Bad keys, oversized files, unknown collections and malformed items
 * are refused with 4xx and store nothing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callWithEnv, envelope, token } from "../helpers/auth";
import { sampleFile, sampleItems } from "../helpers/seed";
import { decodePng } from "../helpers/png";

const ADMIN_TOKEN = "test-admin-secret-0123456789abcdefghijklmnop";
const over = { ADMIN_TOKEN };
const admin = (path: string, init: RequestInit = {}): Promise<Response> => {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${ADMIN_TOKEN}`);
  return callWithEnv(over, `/api/v1/admin${path}`, { ...init, headers });
};
const postItems = (items: unknown[]): Promise<Response> =>
  admin("/items", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items }) });

describe("scene files and items through the admin API", () => {
  it("uploads the 29RKH scene: listed with its sizes, found by the catalog, processed into real pixels", async () => {
    const item = (await sampleItems()).find((i) => i.id === "S2A_29RKH_20200219_0_L2A")!;
    const bands = ["B02", "B03", "B04"];
    for (const b of bands) {
      const key = item.assets[b]!.href;
      const bytes = await sampleFile(key);
      const r = await admin(`/data/${key.split("/").map(encodeURIComponent).join("/")}`, {
        method: "PUT",
        headers: { "content-type": "image/tiff" },
        body: bytes,
      });
      expect(r.status).toBe(201);
      expect(await r.json()).toEqual({ key, size: bytes.byteLength });
      expect((await env.DATA.head(key))?.size).toBe(bytes.byteLength);
    }
    const listing = (await (
      await admin(`/data?prefix=${encodeURIComponent("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/")}`)
    ).json()) as { objects: { key: string; size: number }[]; cursor?: string };
    expect(listing.objects.map((o) => o.key).sort()).toEqual(bands.map((b) => item.assets[b]!.href).sort());
    expect(listing.cursor).toBeUndefined();

    const up = await postItems([item]);
    expect([up.status, await up.json()]).toEqual([200, { upserted: 1 }]);
    const t = await token();
    const search = await callWithEnv(over, "/api/v1/catalog/1.0.0/search", {
      method: "POST",
      headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
      body: JSON.stringify({
        collections: ["sentinel-2-l2a"],
        bbox: [-12, 24.3, -10.8, 25.3],
        datetime: "2020-02-01T00:00:00Z/2020-03-01T00:00:00Z",
      }),
    });
    expect(((await search.json()) as { features: { id: string }[] }).features.map((f) => f.id)).toContain(item.id);

    const png = await callWithEnv(over, "/api/v1/process", {
      method: "POST",
      headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
      body: JSON.stringify({
        input: {
          bounds: { bbox: [-11.6, 24.6, -11.4, 24.8] },
          data: [
            {
              type: "sentinel-2-l2a",
              dataFilter: { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } },
            },
          ],
        },
        output: { width: 64, height: 64 },
        evalscript:
          '//VERSION=3\nfunction setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}\nfunction evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}',
      }),
    });
    expect([png.status, png.headers.get("content-type")]).toEqual([200, "image/png"]);
    const img = await decodePng(new Uint8Array(await png.arrayBuffer()));
    let opaque = 0,
      red = 0;
    for (let p = 0; p < 64 * 64; p++) {
      opaque += img.data[p * 4 + 3] === 255 ? 1 : 0;
      red += img.data[p * 4]!;
    }
    expect(opaque).toBe(64 * 64); // the bbox lies inside the tile: every pixel has data
    expect(red / (64 * 64)).toBeGreaterThan(20); // desert reflectance, not an empty image
  });

  it("refuses bad keys, malformed encodings and files over 16 MiB, storing nothing", async () => {
    // (dot segments, even percent-encoded, are resolved by URL parsing before any server sees them)
    for (const path of ["/data/a//b", "/data/a%2F", "/data/a%01b", "/data/%E0%A4%A"]) {
      const r = await admin(path, { method: "PUT", body: "x" });
      expect(r.status).toBe(400);
    }
    const big = await admin("/data/too/big.tif", {
      method: "PUT",
      headers: { "content-length": String(16 * 1024 * 1024 + 1) },
      body: new Uint8Array(16),
    });
    expect(big.status).toBe(413);
    expect((await env.DATA.list({ prefix: "too/" })).objects).toEqual([]);
  });

  it("refuses items of an unknown collection or without a datetime (400, nothing stored)", async () => {
    const item = (await sampleItems())[0]!;
    const unknown = await postItems([{ ...item, id: "x-unknown", collection: "landsat-8" }]);
    expect([unknown.status, (await envelope(unknown)).errors]).toEqual([400, { collections: ["landsat-8"] }]);
    const undated = await postItems([
      { ...item, id: "x-undated", properties: { ...item.properties, datetime: "yesterday" } },
    ]);
    expect(undated.status).toBe(400);
    expect(JSON.stringify(await envelope(undated))).toContain("datetime");
    expect((await postItems([])).status).toBe(400);
    const stored = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM items WHERE id IN ('x-unknown', 'x-undated')",
    ).first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });
});
