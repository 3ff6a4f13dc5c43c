/**
 * Third-party import records (interface spec "Third-party data import resources" and their state tables; OpenAPI
 * Order, Subscription, OrderDelivery, DeliveryArchive, DeliveryTile, Quota) and their JSON views.
 */

export const ORDER_STATUSES = ["CREATED", "CANCELLED", "RUNNING", "DONE", "PARTIAL", "FAILED"] as const;
export const SUBSCRIPTION_STATUSES = ["CREATED", "RUNNING", "CANCELLED", "COMPLETED", "FAILED"] as const;
export const DELIVERY_STATUSES = [
  "WAITING",
  "DELIVERED",
  "DELIVERY_FAILED",
  "PREPARING",
  "INGESTING",
  "DONE",
  "IMPORT_FAILED",
  "NON_INGESTIBLE",
] as const;
export const ARCHIVE_STATUSES = ["WAITING", "PREPARING", "DONE", "FAILED"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type ArchiveStatus = (typeof ARCHIVE_STATUSES)[number];

/** An order or a subscription (table import_orders). */
export type RecordKind = "order" | "subscription";

export interface ImportRecord {
  id: string;
  account: string;
  kind: RecordKind;
  name: string;
  collectionId: string | null;
  provider: string;
  quotaCollection: string;
  status: string;
  sqkm: number;
  /** The request's input without the provider API key. */
  input: Record<string, unknown>;
  /** Provider API key: write-only, never in a view. */
  apiKey: string | null;
  /** Provider item ids: resolved at order creation; delivered so far for a subscription. */
  items: string[];
  charged: boolean;
  deleted: boolean;
  created: string;
}

/**
 * Statuses that end a record: deleting one hides it (`deleted=true` lists it). The spec's state tables: orders
 * CANCELLED, DONE, FAILED; subscriptions CANCELLED, COMPLETED, FAILED.
 */
export const FINISHED: Record<RecordKind, readonly string[]> = {
  order: ["CANCELLED", "DONE", "FAILED"],
  subscription: ["CANCELLED", "COMPLETED", "FAILED"],
};

/** Statuses whose delete is rejected (409): orders PARTIAL and RUNNING, subscriptions RUNNING. */
export const UNDELETABLE: Record<RecordKind, readonly string[]> = {
  order: ["PARTIAL", "RUNNING"],
  subscription: ["RUNNING"],
};

/** OpenAPI Order / Subscription JSON (the API key is never shown). */
export function recordJson(r: ImportRecord): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    accountId: r.account,
    ...(r.collectionId ? { collectionId: r.collectionId } : {}),
    status: r.status,
    sqkm: r.sqkm,
    input: r.input,
    created: r.created,
  };
}

/** A delivery (table import_deliveries). */
export interface Delivery {
  id: string;
  parent: string;
  account: string;
  provider: string;
  itemId: string;
  sqkm: number | null;
  status: DeliveryStatus;
  errorMessage: string | null;
  prefix: string | null;
  files: string[];
  tileId: string | null;
  /** The delivery's reference at its provider while the provider prepares it (never shown). */
  providerRef: string | null;
  /** The product's acquisition time, from the provider (the tile's sensingTime). */
  sensingTime: string | null;
  created: string;
}

/** OpenAPI OrderDelivery / SubscriptionDelivery JSON (`sqkm` on order deliveries only). */
export function deliveryJson(d: Delivery, kind: RecordKind): Record<string, unknown> {
  return {
    id: d.id,
    provider: d.provider,
    itemId: d.itemId,
    ...(kind === "order" && d.sqkm !== null ? { sqkm: d.sqkm } : {}),
    status: d.status,
    ...(d.errorMessage ? { errorMessage: d.errorMessage } : {}),
  };
}
