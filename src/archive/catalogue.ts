/**
 * Which built-in collection comes from which upstream collection of each archive, and how an upstream item's assets
 * are named in Sentinel Hub's terms (the band names evalscripts use). Sources: Earth Search v1 collections
 * (earth-search.aws.element84.com/v1/collections), the Planetary Computer's catalog
 * (planetarycomputer.microsoft.com/catalog), Sentinel Hub's data documentation (docs.sentinel-hub.com/api/latest/data/:
 * sentinel-2-l2a, dem, landsat-8-l2, sentinel-1-grd). Which built-ins an archive offers, and which only with the
 * operator's AWS keys (requester-pays buckets), is src/storage/archives.ts's list (the collection registry reads it
 * too); this catalogue has an entry for each (test/archive/offers.test.ts).
 */
import { EngineError } from "../raster/errors";
import { offeredCollections, type ArchiveKind } from "../storage/archives";
import type { ArchiveConfig } from "./config";
import { s1Check, s1Properties, s1Upstream, type S1Processing } from "./sentinel1";

/** Request options that choose the upstream collection: dataFilter.demInstance, the data source's `processing`. */
export interface ArchiveOptions {
  demInstance?: string;
  /** The data source's processing options (Sentinel-1: backCoeff, orthorectify, demInstance, speckleFilter). */
  processing?: S1Processing;
}

/** One built-in collection as an archive serves it. */
export interface ArchiveCollection {
  /** The built-in's id (registry type id, catalog collection id). */
  id: string;
  /** The upstream collection for a request's options. @throws EngineError invalid-argument for options it cannot serve. */
  upstream(options: ArchiveOptions): string;
  /** Checks options against the scenes found (called when there are some). @throws EngineError invalid-argument. */
  check?(options: ArchiveOptions): void;
  /** Every upstream collection it may search (catalog searches). */
  searched: string[];
  /** Sentinel Hub band name -> upstream asset key. */
  bands: Record<string, string>;
  /** True when items carry no acquisition time that matters (a DEM): scene searches ignore the time window. */
  timeless?: boolean;
  /** Properties the catalog's item shape adds to each upstream item (e.g. Sentinel-1's `s1:polarization`). */
  properties?(upstream: Record<string, unknown>): Record<string, unknown>;
  /** Extra STAC `query` terms every search carries (e.g. the Landsat 8-9 platforms). */
  query?: Record<string, Record<string, unknown>>;
}

/** Sentinel-2 L2A: Sentinel Hub band -> Earth Search v1 asset key (common names; PC uses the band names as keys). */
const S2_EARTH_SEARCH: Record<string, string> = {
  B01: "coastal",
  B02: "blue",
  B03: "green",
  B04: "red",
  B05: "rededge1",
  B06: "rededge2",
  B07: "rededge3",
  B08: "nir",
  B8A: "nir08",
  B09: "nir09",
  B11: "swir16",
  B12: "swir22",
  SCL: "scl",
  AOT: "aot",
  WVP: "wvp",
};
const S2_PC = Object.fromEntries(Object.keys(S2_EARTH_SEARCH).map((b) => [b, b]));

/** Landsat Collection 2 Level-2 (both archives use the same asset keys) -> Sentinel Hub's landsat-ot-l2 band names. */
const LANDSAT_L2: Record<string, string> = {
  B01: "coastal",
  B02: "blue",
  B03: "green",
  B04: "red",
  B05: "nir08",
  B06: "swir16",
  B07: "swir22",
  B10: "lwir11",
  BQA: "qa_pixel",
  QA_RADSAT: "qa_radsat",
  SR_QA_AEROSOL: "qa_aerosol",
  ST_QA: "qa",
  ST_TRAD: "trad",
  ST_URAD: "urad",
  ST_DRAD: "drad",
  ST_ATRAN: "atran",
  ST_EMIS: "emis",
  ST_EMSD: "emsd",
  ST_CDIST: "cdist",
};

const DEM_INSTANCES: Record<string, string> = {
  COPERNICUS: "cop-dem-glo-30",
  COPERNICUS_30: "cop-dem-glo-30",
  COPERNICUS_90: "cop-dem-glo-90",
};

/**
 * dataFilter.demInstance -> cop-dem-glo-30 / -90. Sentinel Hub's default, MAPZEN, is not in the open archives:
 * without demInstance the Copernicus GLO-30 DEM is read; MAPZEN asked for by name is a 400.
 */
function demUpstream(o: ArchiveOptions): string {
  const instance = o.demInstance ?? "COPERNICUS_30";
  const id = DEM_INSTANCES[instance];
  if (!id)
    throw new EngineError(
      "invalid-argument",
      `demInstance '${instance}' is not available from the archive; supported: ${Object.keys(DEM_INSTANCES).join(", ")}.`,
    );
  return id;
}

const dem: ArchiveCollection = {
  id: "dem",
  upstream: demUpstream,
  searched: ["cop-dem-glo-30", "cop-dem-glo-90"],
  bands: { DEM: "data" },
  timeless: true,
};
const LANDSAT_QUERY = { platform: { in: ["landsat-8", "landsat-9"] } };

/** Sentinel-1 GRD polarisations (both archives' asset keys); a product holds two of them (DV: VV+VH, DH: HH+HV). */
const S1_BANDS = { VV: "vv", VH: "vh", HH: "hh", HV: "hv" };

const CATALOGUE: Record<ArchiveKind, ArchiveCollection[]> = {
  "earth-search": [
    {
      id: "sentinel-2-l2a",
      upstream: () => "sentinel-2-l2a",
      searched: ["sentinel-2-l2a"],
      bands: S2_EARTH_SEARCH,
    },
    dem,
    {
      id: "landsat-ot-l2",
      upstream: () => "landsat-c2-l2",
      searched: ["landsat-c2-l2"],
      bands: LANDSAT_L2,
      query: LANDSAT_QUERY,
    },
    {
      id: "sentinel-1-grd",
      upstream: (o) => s1Upstream("earth-search", o.processing ?? {}),
      check: (o) => s1Check("earth-search", o.processing ?? {}),
      searched: ["sentinel-1-grd"],
      bands: S1_BANDS,
      properties: s1Properties,
    },
  ],
  "planetary-computer": [
    {
      id: "sentinel-2-l2a",
      upstream: () => "sentinel-2-l2a",
      searched: ["sentinel-2-l2a"],
      bands: S2_PC,
    },
    dem,
    {
      id: "landsat-ot-l2",
      upstream: () => "landsat-c2-l2",
      searched: ["landsat-c2-l2"],
      bands: LANDSAT_L2,
      query: LANDSAT_QUERY,
    },
    {
      id: "sentinel-1-grd",
      upstream: (o) => s1Upstream("planetary-computer", o.processing ?? {}),
      check: (o) => s1Check("planetary-computer", o.processing ?? {}),
      searched: ["sentinel-1-grd"],
      bands: S1_BANDS,
      properties: s1Properties,
    },
  ],
};

/**
 * The archive collection serving built-in `id` under `config`, or undefined when the archive does not offer it
 * (no archive, not among its offers, or requester-pays without the operator's AWS keys: src/storage/archives.ts).
 */
export function archiveCollection(config: ArchiveConfig | null, id: string): ArchiveCollection | undefined {
  if (!config || !offeredCollections(config).includes(id)) return undefined;
  return CATALOGUE[config.kind].find((x) => x.id === id);
}
