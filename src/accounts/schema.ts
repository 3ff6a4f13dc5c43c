/**
 * Drizzle tables of accounts, plans and OAuth clients with the columns of migration 0006 (plan, per-account
 * overrides, client deletion and single-page-app origins). src/storage/schema.ts keeps the 0001 columns; these
 * definitions name the same tables with every column and are the ones src/accounts and src/auth use.
 */
import { sqliteTable, text, integer, real } from "drizzle-orm/sqlite-core";

export const plans = sqliteTable("plans", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  maxClients: integer("max_clients").notNull(),
  policies: text("policies").notNull(),
  tokenPolicies: text("token_policies").notNull(),
  puQuota: real("pu_quota"),
});

export const accountRows = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  created: text("created").notNull(),
  plan: text("plan").notNull(),
  policies: text("policies"),
  tokenPolicies: text("token_policies"),
  puQuota: real("pu_quota"),
});

export const clientRows = sqliteTable("oauth_clients", {
  clientId: text("client_id").primaryKey(),
  secretHash: text("secret_hash").notNull(),
  accountId: text("account_id").notNull(),
  name: text("name").notNull(),
  created: text("created").notNull(),
  expires: text("expires"),
  deleted: text("deleted"),
  spaOrigins: text("spa_origins"),
});
