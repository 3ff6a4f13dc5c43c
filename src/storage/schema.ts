/** Drizzle schema of the D1 database; the SQL lives in migrations/ (keep both in step). */
import { sqliteTable, text, integer, real, primaryKey, index } from "drizzle-orm/sqlite-core";

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
});

export const collections = sqliteTable("collections", {
  id: text("id").primaryKey(),
  doc: text("doc").notNull(),
});

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
