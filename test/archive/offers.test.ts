/**
 * Which built-ins each archive offers (src/storage/archives.ts, read by the collection registry) and how the archive
 * reads them (src/archive/catalogue.ts): the two lists agree for every archive, requester-pays collections are
 * offered only with the operator's AWS keys, and the configuration read from the environment fails loudly.
 */
import { describe, expect, it } from "vitest";
import { ARCHIVE_OFFERS, archiveSettings, offeredCollections, type ArchiveKind } from "../../src/storage/archives";
import { archiveConfig } from "../../src/archive/config";
import { archiveCollection } from "../../src/archive/catalogue";

const KEYS = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret" };

describe("archive offers", () => {
  for (const kind of Object.keys(ARCHIVE_OFFERS) as ArchiveKind[]) {
    it(`${kind}: every offered built-in has a catalogue entry, requester-pays ones only with AWS keys`, () => {
      const withKeys = archiveConfig({ EO_EDGE_ARCHIVE: kind, ...KEYS });
      const withoutKeys = archiveConfig({ EO_EDGE_ARCHIVE: kind });
      for (const { id, requesterPays } of ARCHIVE_OFFERS[kind]) {
        expect(archiveCollection(withKeys, id)?.id).toBe(id);
        expect(archiveCollection(withoutKeys, id)?.id).toBe(requesterPays ? undefined : id);
      }
    });
  }

  it("the offered ids per configuration", () => {
    expect(offeredCollections(archiveSettings({}))).toEqual([]);
    expect(offeredCollections(archiveSettings({ EO_EDGE_ARCHIVE: "twin" }))).toEqual(["sentinel-2-l2a", "dem"]);
    expect(offeredCollections(archiveSettings({ EO_EDGE_ARCHIVE: "earth-search", ...KEYS }))).toEqual([
      "sentinel-2-l2a",
      "dem",
      "landsat-ot-l2",
      "sentinel-1-grd",
    ]);
    expect(offeredCollections(archiveSettings({ EO_EDGE_ARCHIVE: "planetary-computer" }))).toEqual([
      "sentinel-2-l2a",
      "dem",
      "landsat-ot-l2",
      "sentinel-1-grd",
    ]);
    expect(archiveCollection(archiveConfig({}), "dem")).toBeUndefined();
  });

  it("the configuration: defaults, timeout, and an operator's mistakes thrown", () => {
    const c = archiveConfig({ EO_EDGE_ARCHIVE: "planetary-computer", ARCHIVE_TIMEOUT_MS: "2500" });
    expect(c?.stacUrl).toBe("https://planetarycomputer.microsoft.com/api/stac/v1");
    expect(c?.retry.timeoutMs).toBe(2500);
    expect(archiveConfig({ EO_EDGE_ARCHIVE: "planetary-computer", ARCHIVE_TIMEOUT_MS: "2500" })).toBe(c);
    expect(() => archiveSettings({ EO_EDGE_ARCHIVE: "sentinel-hub" })).toThrow(/not an archive this service knows/);
    expect(() => archiveSettings({ EO_EDGE_ARCHIVE: "twin", ARCHIVE_URL_MAP: "[1]" })).toThrow(/JSON object/);
  });
});
