/**
 * The data sources of a request: `input.data` entries matched with the evalscript's setup() inputs
 * (Sentinel Hub "Data fusion", docs.sentinel-hub.com/api/latest/data/data-fusion/).
 *
 * - One `input.data` entry and no setup() input naming a `datasource`: a plain request, every input's bands
 *   come from that entry's collection and the script gets `samples.B04` (SIMPLE) / `samples[i]`.
 * - Otherwise data fusion: every setup() input names a `datasource` equal to the `id` of an `input.data`
 *   entry; each entry's bands are checked against its own collection; the script gets `samples.<id>` and
 *   `scenes.<id>`. Entries no input refers to are not read. This also holds for ONE entry with an `id` that
 *   inputs refer to (the script then reads `samples.<id>[0]`). A source's mosaicking is its inputs'
 *   `mosaicking` if one is set, else setup().mosaicking (e.g. ORBIT for Sentinel-1, SIMPLE for Sentinel-2).
 * Errors (EngineError invalid-argument, a 400): duplicate ids; several entries without ids; an input without
 * `datasource` next to several entries; a `datasource` that is no entry's id (the message lists the ids); unknown
 * collection types (for the calling account), bands or units.
 */
import type { Env } from "../env";
import { EngineError } from "../raster/errors";
import type { EvalInputSpec, EvalSetup, Mosaicking } from "../raster/evalscript";
import { mosaickingByDatasource } from "../raster/evalscript/host/setup";
import { checkBands, collectionForType, type DataCollection } from "./collections";
import type { BandRequest } from "./read";
import type { DataSourceRequest } from "./input";

/** One `input.data` entry the script reads. */
export interface Source {
  /** The setup() `datasource` id the script knows this source by; undefined for a plain (non-fusion) request. */
  datasource?: string;
  request: DataSourceRequest;
  collection: DataCollection;
  /** setup().mosaicking, or with data fusion the source's own (an input's `mosaicking`, else setup()'s). */
  mosaicking: Mosaicking;
  /** Bands to read with their units, `dataMask` included when requested. */
  bands: BandRequest[];
  /** The bands read from files or derived (all but `dataMask`): the bands an all-nodata sample carries. */
  fileBands: string[];
}

/** The bands `inputs` ask for, each with its units (first declaration wins), checked against collection `c`. */
function requestedBands(inputs: EvalInputSpec[], c: DataCollection): BandRequest[] {
  const seen = new Map<string, string>();
  for (const input of inputs) {
    input.bands.forEach((b, i) => {
      if (seen.has(b)) return;
      const u = input.units[i];
      seen.set(b, u && u !== "DEFAULT" ? u : (c.bands.get(b)?.units[0] ?? "DN"));
    });
  }
  const names = [...seen.keys()];
  checkBands(
    c,
    names,
    names.map((n) => seen.get(n)),
  );
  return names.map((name) => ({ name, units: seen.get(name)! }));
}

/** A caller's registry scope: the D1 binding and the account (null: anonymous, built-in collections only). */
export interface RegistryScope {
  env: Pick<Env, "DB">;
  account: string | null;
  /**
   * Checks a collection as soon as it is found, before its bands are (withSources: hosted in this location, so a
   * collection of another location is its 404 whatever the script names).
   */
  assertHere?: (collection: Source["collection"]) => void;
}

async function source(
  scope: RegistryScope,
  request: DataSourceRequest,
  inputs: EvalInputSpec[],
  mosaicking: Mosaicking,
  datasource?: string,
): Promise<Source> {
  const collection = await collectionForType(scope.env, scope.account, request.type);
  scope.assertHere?.(collection);
  const bands = requestedBands(inputs, collection);
  return {
    datasource,
    request,
    collection,
    mosaicking,
    bands,
    fileBands: bands.filter((b) => b.name !== "dataMask").map((b) => b.name),
  };
}

const quoted = (ids: string[]): string => ids.map((id) => `"${id}"`).join(", ");

const invalid = (message: string): EngineError => new EngineError("invalid-argument", message);

/** Throws invalid-argument for duplicate ids and for several entries of which some have no id. */
function checkIds(data: DataSourceRequest[]): string[] {
  const ids = data.flatMap((d) => (d.id === undefined ? [] : [d.id]));
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup !== undefined) throw invalid(`input.data ids must be unique; "${dup}" is used more than once.`);
  if (data.length > 1 && ids.length < data.length) {
    const missing = data.findIndex((d) => d.id === undefined);
    throw invalid(
      `input.data has ${data.length} data sources (data fusion), so each needs an "id" that setup() inputs name as "datasource"; input.data[${missing}] has none. E.g. data: [{"id": "l2a", "type": "sentinel-2-l2a"}, ...] with setup() input: [{datasource: "l2a", bands: ["B04"]}, ...].`,
    );
  }
  return ids;
}

/**
 * The sources of a request in `input.data` order (only those the script reads), their collections looked up in
 * the registry for `scope.account`.
 * @throws EngineError invalid-argument for the id / datasource errors listed in the module docs and for unknown
 *   collections, bands or units (the first failing entry in `input.data` order).
 */
export async function resolveSources(
  scope: RegistryScope,
  data: DataSourceRequest[],
  setup: EvalSetup,
): Promise<Source[]> {
  const ids = checkIds(data);
  const fusion = data.length > 1 || setup.inputs.some((i) => i.datasource !== undefined);
  if (!fusion) return [await source(scope, data[0]!, setup.inputs, setup.mosaicking)];
  const known = ids.length ? `the input.data ids are ${quoted(ids)}` : "no input.data entry has an id";
  setup.inputs.forEach((input, i) => {
    if (input.datasource === undefined)
      throw invalid(
        `setup() input[${i}] has no "datasource"; with data fusion every input must name the input.data id it reads (${known}).`,
      );
    if (!ids.includes(input.datasource))
      throw invalid(
        `setup() input[${i}] names datasource "${input.datasource}", which matches no input.data id; ${known}.`,
      );
  });
  const mosaicking = mosaickingByDatasource(setup);
  const out: Source[] = [];
  for (const d of data) {
    const inputs = setup.inputs.filter((i) => i.datasource === d.id);
    if (inputs.length) out.push(await source(scope, d, inputs, mosaicking[d.id!]!, d.id));
  }
  return out;
}
