/**
 * Drizzle schema of the D1 tables read and written through drizzle (accounts, plans, OAuth clients, signing keys, the
 * collection registry); the SQL of every table lives in migrations/ (keep both in step). The other tables (items,
 * BYOC, Zarr, buckets, third-party import, tasks' listing) are reached by prepared statements in their store modules
 * (docs/development.md, "Data access").
 */
import { sqliteTable, text, integer, real, primaryKey, index, unique } from "drizzle-orm/sqlite-core";

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  created: text("created").notNull(),
  // 0006: the plan and per-account overrides of its policies and PU quota (src/ratelimit/plans.ts)
  plan: text("plan").notNull().default("enterprise"),
  policies: text("policies"),
  tokenPolicies: text("token_policies"),
  puQuota: real("pu_quota"),
});

/** 0006: plans as data (src/ratelimit/plans.ts). */
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
    kind: text("kind", { enum: ["file", "derived", "angle"] })
      .notNull()
      .default("file"),
    units: text("units").notNull().default('["DN"]'),
    defaultUnits: text("default_units").notNull().default("DN"),
    sampleType: text("sample_type", {
      enum: ["UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "FLOAT64"],
    }).notNull(),
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
