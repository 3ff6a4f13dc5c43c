/**
 * Processing units of the OGC endpoints: GetMap and GetTile (public URLs, the instance id is the credential) charge
 * what they report in x-processingunits-spent to the instance owner's account, not to anyone else's.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/auth";
import { newAccount, tokenOf, waitForUsage } from "../helpers/accounts";
import { seedSamples } from "../helpers/seed";
import { createInstance, layerBody } from "../helpers/wms";
import { unitsUsage } from "../../src/accounts/units";

const RED = `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "AUTO" } }; }
function evaluatePixel(s) { return [2.5 * s.B04]; }`;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
});

describe("WMS / WMTS processing units", () => {
  it("GetMap and GetTile charge the instance owner's account what they report", async () => {
    const [owner, other] = [await newAccount(), await newAccount()];
    const inst = await createInstance(await tokenOf(owner.client), [layerBody("RED", RED)]);
    // 29RKH around (-11.95, 24.35): a GetMap in EPSG:4326 (lat, lon axis order) and the zoom-10 tile holding it
    const map = await call(
      `/ogc/wms/${inst.id}?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=RED&CRS=EPSG:4326&BBOX=24.3,-12.0,24.4,-11.9&WIDTH=64&HEIGHT=64&FORMAT=image/png`,
    );
    expect(map.status, await map.clone().text()).toBe(200);
    const tile = await call(
      `/ogc/wmts/${inst.id}?REQUEST=GetTile&LAYER=RED&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=10&TILECOL=478&TILEROW=440`,
    );
    expect(tile.status, await tile.clone().text()).toBe(200);
    const spent = [map, tile].map((r) => Number(r.headers.get("x-processingunits-spent")));
    expect(spent.every((pu) => pu > 0)).toBe(true);
    // charged after the responses (chargeLater): wait for both to land, then check they landed once
    await waitForUsage(owner.account, spent[0]! + spent[1]!);
    await new Promise((r) => setTimeout(r, 100));
    expect((await unitsUsage(env, owner.account)).used).toBeCloseTo(spent[0]! + spent[1]!, 9);
    expect((await unitsUsage(env, other.account)).used).toBe(0);
  });
});
