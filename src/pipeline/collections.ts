/**
 * Data collections as the pipeline sees them: a request's `input.data[].type` looked up in the collection
 * registry (src/storage/registry.ts: the built-ins sentinel-2-l2a, sentinel-2-l1c, sentinel-1-grd and the
 * account's own collections), and its requested bands and units checked against the collection's bands.
 *
 * Band kinds:
 * - `file`: read from the item's assets (DN in the file).
 * - `derived`: computed from other bands (CLM from SCL for L2A: classes 8, 9, 10 = cloud medium/high probability
 *   and thin cirrus -> 1; SCL 0 no data -> 255; other classes -> 0. Sentinel Hub's CLM comes from s2cloudless).
 * - `angle`: per-scene constant angles from item metadata (or the solar position when the item has none).
 */
import type { Env } from "../env";
import { EngineError } from "../raster/errors";
import {
  builtinCollections,
  resolveCollectionType,
  type BandDef,
  type DataCollection,
  type Units,
} from "../storage/registry";

export type { BandDef, DataCollection, Units };

/** The user collection kinds a processing type names (`byoc-<id>`, `batch-<id>`, `zarr-<id>`), as messages say them. */
const USER_KINDS: Record<string, string> = { byoc: "BYOC", batch: "Batch", zarr: "Zarr" };

/**
 * A user collection (BYOC, batch, Zarr) the account does not have: a failure with kind `not-found`, which the HTTP
 * layer renders as 404 COMMON_NOT_FOUND (src/http/errors.ts recognises the kind by shape), as Sentinel Hub answers
 * "BYOC collection <id> not found." (sentinel-hub/sentinelhub-py#133). The same whether the id is unknown, another
 * account's or a Zarr collection not INGESTED, so that nothing tells another account's collection exists.
 * `details` (the envelope's `errors`): `{collection}`, the type as sent.
 */
export class UnknownCollectionError extends Error {
  override readonly name = "UnknownCollectionError";
  readonly kind = "not-found";
  readonly details: readonly [{ collection: string }];
  constructor(kind: string, id: string, type: string) {
    super(`${USER_KINDS[kind]} collection ${id.slice(0, 100)} not found.`);
    this.details = [{ collection: type }];
  }
}

/**
 * The collection `type` names for `account` (null: anonymous, built-ins only): a type id, an alias as Sentinel
 * Hub spells it (S2L2A), or a built-in id in another letter case.
 * @throws UnknownCollectionError (404) for a `byoc-`, `batch-` or `zarr-` type the account does not have;
 *   EngineError invalid-argument naming the type and the built-in types for any other unknown type.
 */
export async function collectionForType(
  env: Pick<Env, "DB">,
  account: string | null,
  type: string,
): Promise<DataCollection> {
  const c = await resolveCollectionType(env, account, type);
  if (c) return c;
  const user = /^(byoc|batch|zarr)-(.+)$/i.exec(type);
  if (user) throw new UnknownCollectionError(user[1]!.toLowerCase(), user[2]!, type);
  const supported = (await builtinCollections(env)).map((x) => [x.id, ...x.aliases].join(" / ")).join(", ");
  throw new EngineError("invalid-argument", `Unknown data collection type '${type}'. Supported: ${supported}.`);
}

/**
 * Checks requested bands and units (`units[i]` for `bands[i]`, undefined = default) against collection `c`;
 * `dataMask` is always available.
 * @throws EngineError invalid-argument naming the unknown band, or the band and the units it does not support.
 */
export function checkBands(c: DataCollection, bands: string[], units: (string | undefined)[]): void {
  bands.forEach((b, i) => {
    if (b === "dataMask") return;
    const def = c.bands.get(b);
    if (!def)
      throw new EngineError(
        "invalid-argument",
        `Unknown band '${b}' for collection ${c.id}. Available: ${[...c.bands.keys(), "dataMask"].join(", ")}.`,
      );
    const u = units[i];
    if (u && !def.units.includes(u as Units))
      throw new EngineError(
        "invalid-argument",
        `Band ${b} of ${c.id} does not support units '${u}'. Supported: ${def.units.join(", ")}.`,
      );
  });
}
