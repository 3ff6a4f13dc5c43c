/**
 * The one interface every third-party provider implements (search, native search, thumbnail, the items an order
 * resolves to, and the files of a delivered item), and the registry of providers by their API name. Adapters
 * speak the provider's public HTTP API with the user's key (./planet.ts, ./maxar.ts); SAMPLE (./sample.ts) serves
 * the deployment's own sample scenes, so the whole flow runs offline.
 */
import type { Env } from "../../env";
import type { PageLinks } from "../../http/paging";
import type { BandFormat } from "../../storage/byoc/model";
import type { NativeSearchBody, SearchBody } from "../schema";

/** What a provider call runs with: the bindings, the calling account, the user's provider key (if any). */
export interface ProviderContext {
  env: Env;
  account: string;
  apiKey?: string;
  /** The request URL (for `links`). */
  url: URL;
}

/** One page of search results: the provider's features, `links`, and the provider's other members. */
export interface SearchPage {
  features: Record<string, unknown>[];
  links: PageLinks;
  [member: string]: unknown;
}

/** A file of a delivered item: its name (relative path, as listed to the user) and bytes. */
export interface ProductFile {
  name: string;
  bytes: Uint8Array;
}

/** Paging asked by the client: `count` (already checked against the provider's maximum) and `viewtoken`. */
export interface PageAsk {
  count: number;
  viewtoken: string | null;
}

export interface Provider {
  /** The API name (`provider` member): PLANET, MAXAR, SAMPLE. */
  readonly name: string;
  /** Largest `count` of a search page (the default too). */
  readonly maxCount: number;
  /** Smallest area an order is charged, km2. */
  readonly minimumSqkm: number;
  /** Thumbnail collection ids this provider answers (OpenAPI TpdiCollectionId). */
  readonly thumbnailCollections: readonly string[];
  /** Checks the provider's members of an input and names its quota collection. @throws ApiError 400. */
  check(input: SearchBody, purpose: "search" | "order" | "subscription"): { quotaCollection: string };
  /** The BYOC bands a delivery of `input` is ingested as (a target collection must be empty or have exactly these). */
  bands(input: SearchBody): [string, BandFormat][];
  search(ctx: ProviderContext, input: SearchBody, page: PageAsk): Promise<SearchPage>;
  nativeSearch(ctx: ProviderContext, body: NativeSearchBody, page: PageAsk): Promise<Record<string, unknown>>;
  thumbnail(ctx: ProviderContext, collectionId: string, productId: string): Promise<Response>;
  /** The item ids an order's input orders (its itemIds, else every item its query matches). @throws ApiError 400. */
  orderItems(ctx: ProviderContext, input: SearchBody): Promise<string[]>;
  /**
   * The files of item `itemId` as ordered by `input` and its acquisition time (the BYOC tile's sensingTime), or
   * `{pending}` while the provider prepares them: `pending` is the provider's reference (e.g. its order id), given
   * back as `ref` on the next call.
   * @throws DeliveryError when the provider cannot deliver it.
   */
  deliver(
    ctx: ProviderContext,
    input: SearchBody,
    itemId: string,
    ref: string | null,
  ): Promise<{ files: ProductFile[]; sensingTime: string | null } | { pending: string }>;
}

/** A delivery that failed at the provider (DELIVERY_FAILED) or whose product cannot be ingested (NON_INGESTIBLE). */
export class DeliveryError extends Error {
  constructor(
    readonly status: "DELIVERY_FAILED" | "NON_INGESTIBLE",
    message: string,
  ) {
    super(message);
  }
}
