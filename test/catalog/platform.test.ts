/**
 * Sentinel-2 items name their satellite unit (filtering on a satellite
 * finds them). The WorldCereal and openEO sources do not say which unit took each image; it follows
 * from the orbits: Sentinel-2B flies the same ground tracks as 2A, 5 days later, each unit every 10 days
 * (test/reference/make_items.py s2_platform, referenced to 2A's datatake GS2A_20200219T112111_024344). Checked here by
 * the search a user would send.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, fixtureItems, ROOT, seedCatalog } from "./helpers";
import type { StacItem } from "../../src/storage/stac";

let items: StacItem[];
beforeAll(async () => {
  items = await seedCatalog();
});

describe("Sentinel-2 platform", () => {
  it("every Sentinel-2 item is sentinel-2a or sentinel-2b, as the catalog answers it", async () => {
    const fixtures = new Set((await fixtureItems()).map((i) => i.id)); // test fixtures as their sources wrote them
    const s2 = items.filter((i) => i.collection.startsWith("sentinel-2") && !fixtures.has(i.id));
    expect(s2.length).toBe(24);
    expect(
      s2.filter((i) => !["sentinel-2a", "sentinel-2b"].includes(i.properties.platform as string)).map((i) => i.id),
    ).toEqual([]);
    const filter = "platform = 'sentinel-2b'";
    const r = await api(`${ROOT}/search?collections=sentinel-2-l2a&limit=100&filter=${encodeURIComponent(filter)}`);
    expect(r.status).toBe(200);
    const dates = r.json.features.map((f: StacItem) => f.properties.datetime.slice(0, 10)).sort();
    // 2B's West Flanders (31UDS, R051/R094) and Mol (31UFS, R008) acquisitions among the samples
    expect(dates).toEqual([
      "2018-01-16",
      "2018-02-25",
      "2018-04-16",
      "2018-04-19",
      "2018-04-26",
      "2018-06-25",
      "2018-07-15",
      "2018-08-07",
      "2018-10-13",
      "2023-06-06",
    ]);
  });
});
