/**
 * The collection registry (migration 0003, src/storage/registry.ts): the built-ins' bands as Sentinel Hub documents
 * them (docs.sentinel-hub.com/api/latest/data/sentinel-2-l2a, -l1c, sentinel-1-grd; ESA Sentinel-2A wavelengths),
 * lookups by type, alias and case, typed errors, and scoping: an account's own collection is processable and
 * listed in the catalog for that account only (pixels compared with the GDAL reference of test/reference/references.py).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createClient } from "../../src/auth/clients";
import { collectionForType } from "../../src/pipeline/collections";
import { EngineError } from "../../src/raster/errors";
import { upsertItem } from "../../src/storage/items";
import {
  registerCollection,
  resolveCollectionType,
  visibleCollections,
  type NewCollection,
} from "../../src/storage/registry";
import { authed, call, form, TOKEN_PATH } from "../helpers/auth";
import { CRS, process, readTiff } from "../helpers/process";
import { compare, reference } from "../helpers/refs";
import { seedSamples } from "../helpers/seed";

const OWNER = crypto.randomUUID();
const OTHER = crypto.randomUUID();
const UUID = crypto.randomUUID();
const TYPE = `byoc-${UUID}`;
const ROOT = "/api/v1/catalog/1.0.0";

async function tokenFor(accountId: string): Promise<string> {
  const c = await createClient(env, { accountId, name: "registry test" });
  const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));
  return ((await r.json()) as { access_token: string }).access_token;
}

const owned = (owner: string | null): NewCollection => ({
  id: TYPE,
  collectionId: UUID,
  aliases: [],
  kind: "byoc",
  owner,
  title: "29RKH copy",
  location: null,
  optical: true,
  config: {},
  stac: {},
  bands: [
    { name: "B04", kind: "file", units: ["REFLECTANCE", "DN"], sampleType: "UINT16", resolution: 10, nodata: 0 },
    { name: "B08", kind: "file", units: ["REFLECTANCE", "DN"], sampleType: "UINT16", resolution: 10, nodata: 0 },
  ],
});

let ownerToken: string;
let otherToken: string;

beforeAll(async () => {
  const [rkh] = await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  await registerCollection(env, owned(OWNER));
  await upsertItem(env, { ...rkh!, collection: TYPE });
  [ownerToken, otherToken] = await Promise.all([tokenFor(OWNER), tokenFor(OTHER)]);
});

describe("built-in collections", () => {
  it("carry Sentinel Hub's bands: units, sample type, resolution, no-data, wavelength", async () => {
    const l2a = (await resolveCollectionType(env, null, "S2L2A"))!;
    expect(l2a.id).toBe("sentinel-2-l2a");
    expect([l2a.kind, l2a.owner, l2a.optical]).toEqual(["builtin", null, true]);
    expect(l2a.bands.get("B04")).toEqual({
      name: "B04",
      kind: "file",
      units: ["REFLECTANCE", "DN"],
      sampleType: "UINT16",
      resolution: 10,
      nodata: 0,
      commonName: "red",
      wavelength: 0.6646,
      fwhm: 0.031,
    });
    expect(l2a.bands.get("B01")?.resolution).toBe(60);
    expect(l2a.bands.get("B8A")?.resolution).toBe(20);
    expect(l2a.bands.get("SCL")).toMatchObject({ sampleType: "UINT8", resolution: 20, units: ["DN"] });
    expect(l2a.bands.get("CLM")).toMatchObject({ kind: "derived", from: "SCL", nodata: 255 });
    expect(l2a.bands.get("AOT")?.units).toEqual(["OPTICAL_DEPTH", "DN"]);
    expect(l2a.bands.get("sunZenithAngles")).toMatchObject({
      kind: "angle",
      units: ["DEGREES"],
      sampleType: "FLOAT32",
      nodata: null,
    });
    expect(l2a.bands.has("B10")).toBe(false);
    const l1c = (await resolveCollectionType(env, null, "SENTINEL-2-L1C"))!;
    expect(l1c.bands.get("B10")).toMatchObject({ wavelength: 1.3735, resolution: 60 });
    const s1 = (await resolveCollectionType(env, null, "S1GRD"))!;
    expect([...s1.bands.keys()]).toEqual(["VV", "VH", "HH", "HV"]);
    expect(s1.bands.get("VV")?.units).toEqual(["LINEAR_POWER", "DN"]);
    expect(s1.optical).toBe(false);
  });

  it("an unknown type is an EngineError invalid-argument listing the built-ins", async () => {
    const e = await collectionForType(env, OWNER, "landsat-99").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EngineError);
    expect((e as EngineError).kind).toBe("invalid-argument");
    expect((e as Error).message).toBe(
      "Unknown data collection type 'landsat-99'. Supported: sentinel-2-l1c / S2L1C, sentinel-2-l2a / S2L2A, sentinel-1-grd / S1GRD, dem / DEM, landsat-ot-l2 / LOTL2.",
    );
  });

  it("an owned collection needs an owner, a built-in has none", async () => {
    await expect(registerCollection(env, { ...owned(null), id: "byoc-x", collectionId: "x" })).rejects.toThrow(
      /needs owner/,
    );
    await expect(
      registerCollection(env, { ...owned(OWNER), kind: "builtin", id: "b-x", collectionId: "b-x" }),
    ).rejects.toThrow(/has no owner/);
  });
});

describe("owned collections are scoped to their account", () => {
  it("registry lookups", async () => {
    expect((await resolveCollectionType(env, OWNER, TYPE))?.collectionId).toBe(UUID);
    expect(await resolveCollectionType(env, OTHER, TYPE)).toBeUndefined();
    expect(await resolveCollectionType(env, null, TYPE)).toBeUndefined();
    expect((await visibleCollections(env, OWNER)).map((c) => c.id)).toEqual([
      "sentinel-2-l1c",
      "sentinel-2-l2a",
      "sentinel-1-grd",
      "dem",
      "landsat-ot-l2",
      TYPE,
    ]);
    expect((await visibleCollections(env, OTHER)).map((c) => c.id)).toEqual([
      "sentinel-2-l1c",
      "sentinel-2-l2a",
      "sentinel-1-grd",
      "dem",
      "landsat-ot-l2",
    ]);
  });

  it("Process: the owner gets the file's pixels (= gdal.Warp NDVI), another account a 400", async () => {
    const ref = await reference("rkh4326_ndvi");
    const g = ref.meta.grid;
    const body = {
      input: {
        bounds: { bbox: g.bbox, properties: { crs: CRS(4326) } },
        data: [{ type: TYPE, dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } } }],
      },
      output: {
        width: g.width,
        height: g.height,
        responses: [{ identifier: "default", format: { type: "image/tiff" } }],
      },
      evalscript: `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`,
    };
    const r = await process(body, ownerToken);
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    expect(compare(tif.data, ref.data, 1e-6).mismatch).toBeLessThan(0.005);
    const denied = await process(body, otherToken);
    expect(denied.status).toBe(404);
    expect(((await denied.json()) as { error: { message: string } }).error.message).toBe(
      `BYOC collection ${UUID} not found.`,
    );
  });

  it("catalog: listed, readable and searchable for the owner only", async () => {
    const ids = async (bearer: string) =>
      (
        (await (await authed(`${ROOT}/collections`, {}, bearer)).json()) as { collections: { id: string }[] }
      ).collections.map((c) => c.id);
    expect(await ids(ownerToken)).toContain(TYPE);
    expect(await ids(otherToken)).not.toContain(TYPE);
    const mine = await authed(`${ROOT}/collections/${TYPE}`, {}, ownerToken);
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as { title: string }).title).toBe("29RKH copy");
    expect((await authed(`${ROOT}/collections/${TYPE}`, {}, otherToken)).status).toBe(404);
    expect((await authed(`${ROOT}/collections/${TYPE}/items/S2A_29RKH_20200219_0_L2A`, {}, otherToken)).status).toBe(
      404,
    );
    const items = await authed(`${ROOT}/collections/${TYPE}/items`, {}, ownerToken);
    expect(((await items.json()) as { features: { id: string }[] }).features.map((f) => f.id)).toEqual([
      "S2A_29RKH_20200219_0_L2A",
    ]);
  });
});
