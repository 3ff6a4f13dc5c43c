import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { locateBand } from "../src/storage/items";
import { seedSamples } from "./helpers/seed";

describe("sample seeding", () => {
  it("puts the 29RKH item in D1 and its COGs in R2", async () => {
    const items = await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
    expect(items).toHaveLength(1);
    const row = await env.DB.prepare("SELECT id, cloud_cover, datetime FROM items").first<{
      id: string;
      cloud_cover: number;
      datetime: number;
    }>();
    expect(row?.id).toBe("S2A_29RKH_20200219_0_L2A");
    expect(row?.cloud_cover).toBeCloseTo(4.051854, 5);
    expect(new Date(row!.datetime).toISOString()).toBe("2020-02-19T11:34:25.405Z");
    const obj = await env.DATA.head("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif");
    expect(obj?.size).toBe(2381555);
  });

  it("locates bands in single- and multi-band assets", async () => {
    const [belgium] = await seedSamples((i) => i.id === "openEO_2023-06-04_mol_31U");
    expect(locateBand(belgium!, "B03")).toEqual({ key: "sentinel-2-l2a/belgium/openEO_2023-06-04Z.tif", index: 1 });
    expect(locateBand(belgium!, "B08")).toBeNull();
  });
});
