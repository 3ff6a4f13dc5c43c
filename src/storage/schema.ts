/** Drizzle schema of the D1 database; the SQL lives in migrations/ (keep both in step). */
import { sqliteTable, text, integer, real, primaryKey, index, unique } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  created: text("created").notNull(),
  // 0006: the plan and per-account overrides of its policies and PU quota (src/accounts/plans.ts)
  plan: text("plan").notNull().default("enterprise"),
  policies: text("policies"),
  tokenPolicies: text("token_policies"),
  puQuota: real("pu_quota"),
});

/** 0006: plans as data (src/accounts/plans.ts). */
export const plans = sqliteTable("plans", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  maxClients: integer("max_clients").notNull(),
  policies: text("policies").notNull(),
  tokenPolicies: text("token_policies").notNull(),
  puQuota: real("pu_quota"),
});

export const oauthClients = sqliteTable("oauth_clients", {
  clientId: text("client_id").primaryKey(),
  secretHash: text("secret_hash").notNull(),
  accountId: text("account_id").notNull(),
  name: text("name").notNull(),
  created: text("created").notNull(),
  expires: text("expires"),
  // 0006: deletion time (inactive list) and single-page-app origins (JSON array, ["*"] = all)
  deleted: text("deleted"),
  spaOrigins: text("spa_origins"),
});

export const signingKeys = sqliteTable("signing_keys", {
  kid: text("kid").primaryKey(),
  alg: text("alg").notNull(),
  privateJwk: text("private_jwk").notNull(),
  publicJwk: text("public_jwk").notNull(),
  created: text("created").notNull(),
  // 0011: when the key stopped signing (src/auth/keys.ts); NULL while it may sign
  retired: text("retired"),
});

/** The collection registry (migration 0003; column meanings are documented there). */
export const dataCollections = sqliteTable(
  "data_collections",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull().unique(),
    aliases: text("aliases").notNull().default("[]"),
    kind: text("kind", { enum: ["builtin", "byoc", "batch", "zarr"] }).notNull(),
    owner: text("owner"),
    title: text("title").notNull(),
    location: text("location"),
    optical: integer("optical").notNull().default(0),
    config: text("config").notNull().default("{}"),
    stac: text("stac").notNull().default("{}"),
    created: text("created").notNull(),
  },
  (t) => [index("data_collections_owner").on(t.owner, t.created, t.id)],
);

/** Bands of the registry's collections, in `position` order (migration 0003). */
export const collectionBands = sqliteTable(
  "collection_bands",
  {
    collection: text("collection")
      .notNull()
      .references(() => dataCollections.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["file", "derived", "angle"] }).notNull().default("file"),
    units: text("units").notNull().default('["DN"]'),
    defaultUnits: text("default_units").notNull().default("DN"),
    sampleType: text("sample_type", { enum: ["UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "FLOAT64"] }).notNull(),
    resolution: real("resolution"),
    nodata: real("nodata"),
    sourceBand: text("source_band"),
    commonName: text("common_name"),
    wavelength: real("wavelength"),
    fwhm: real("fwhm"),
    source: text("source"),
    bandIndex: integer("band_index"),
  },
  (t) => [primaryKey({ columns: [t.collection, t.name] }), unique().on(t.collection, t.position)],
);

export const items = sqliteTable(
  "items",
  {
    collection: text("collection").notNull(),
    id: text("id").notNull(),
    datetime: integer("datetime").notNull(),
    cloudCover: real("cloud_cover"),
    minLon: real("min_lon").notNull(),
    minLat: real("min_lat").notNull(),
    maxLon: real("max_lon").notNull(),
    maxLat: real("max_lat").notNull(),
    doc: text("doc").notNull(),
  },
  (t) => [primaryKey({ columns: [t.collection, t.id] }), index("items_time").on(t.collection, t.datetime, t.id)],
);

/** 0010: owners of local and bound buckets and their bucket policies (src/buckets/owners.ts). */
export const bucketOwners = sqliteTable(
  "bucket_owners",
  {
    bucket: text("bucket").primaryKey(),
    accountId: text("account_id").notNull(),
    policy: text("policy"),
    created: text("created").notNull(),
  },
  (t) => [index("bucket_owners_account").on(t.accountId, t.bucket)],
);

/** 0010: the S3 endpoint's access keys per account; the secret itself, as SigV4 verification needs it (src/buckets/keys.ts). */
export const s3Keys = sqliteTable(
  "s3_keys",
  {
    accessKeyId: text("access_key_id").primaryKey(),
    secret: text("secret").notNull(),
    accountId: text("account_id").notNull(),
    created: text("created").notNull(),
  },
  (t) => [index("s3_keys_account").on(t.accountId, t.created)],
);

/** 0012: third-party import orders and subscriptions (src/dataimport/; columns documented in the migration). */
export const importOrders = sqliteTable(
  "import_orders",
  {
    id: text("id").primaryKey(),
    account: text("account").notNull(),
    kind: text("kind", { enum: ["order", "subscription"] }).notNull(),
    name: text("name").notNull(),
    collectionId: text("collection_id"),
    provider: text("provider").notNull(),
    quotaCollection: text("quota_collection").notNull(),
    status: text("status").notNull(),
    sqkm: real("sqkm").notNull(),
    input: text("input").notNull(),
    apiKey: text("api_key"),
    items: text("items").notNull().default("[]"),
    charged: integer("charged").notNull().default(0),
    deleted: integer("deleted").notNull().default(0),
    created: text("created").notNull(),
  },
  (t) => [
    index("import_orders_list").on(t.account, t.kind, t.deleted, t.created, t.id),
    // the recovery sweep's scan (src/dataimport/store.ts stalledRecords): RUNNING records only, oldest first
    index("import_orders_running").on(t.created, t.id).where(sql`status = 'RUNNING'`),
  ],
);

/** 0012: import quotas per account and quota collection (km2). */
export const importQuotas = sqliteTable(
  "import_quotas",
  {
    account: text("account").notNull(),
    collection: text("collection").notNull(),
    quotaSqkm: real("quota_sqkm").notNull(),
    quotaUsed: real("quota_used").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.account, t.collection] })],
);

/** 0012: deliveries of an order or subscription (one per provider item). */
export const importDeliveries = sqliteTable(
  "import_deliveries",
  {
    id: text("id").primaryKey(),
    parent: text("parent")
      .notNull()
      .references(() => importOrders.id, { onDelete: "cascade" }),
    account: text("account").notNull(),
    provider: text("provider").notNull(),
    itemId: text("item_id").notNull(),
    sqkm: real("sqkm"),
    status: text("status").notNull(),
    errorMessage: text("error_message"),
    prefix: text("prefix"),
    files: text("files").notNull().default("[]"),
    tileId: text("tile_id"),
    created: text("created").notNull(),
    // 0013: the delivery's reference at its provider while it is prepared there, the product's acquisition time
    providerRef: text("provider_ref"),
    sensingTime: text("sensing_time"),
  },
  (t) => [unique().on(t.parent, t.itemId), index("import_deliveries_list").on(t.parent, t.created, t.id)],
);

/** 0012: zip archives of deliveries. */
export const importArchives = sqliteTable(
  "import_archives",
  {
    delivery: text("delivery")
      .notNull()
      .references(() => importDeliveries.id, { onDelete: "cascade" }),
    format: text("format").notNull(),
    account: text("account").notNull(),
    requested: text("requested").notNull(),
    status: text("status").notNull(),
    size: integer("size"),
    key: text("key"),
  },
  (t) => [primaryKey({ columns: [t.delivery, t.format] })],
);
