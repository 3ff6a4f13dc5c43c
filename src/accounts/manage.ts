/**
 * Accounts as operators manage them (the admin API, src/admin): create, list, read, and set an account's plan,
 * rate-limit policies and processing-unit quota. An account's own `policies`, `tokenPolicies` and `puQuota`
 * override its plan's (null: the plan's value, migration 0006); the RateLimiter objects read limits again within
 * CONFIG_TTL_MS (60 s, src/ratelimit/object.ts), so a change applies within a minute.
 */
import { asc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { z } from "zod";
import type { Env } from "../env";
import { ApiError, badRequest, notFound } from "../http/errors";
import { policiesSchema, type Policy } from "../ratelimit/policy";
import { jsonColumn } from "../storage/db";
import { keysetSql, searchSql, type SeekPage } from "../storage/keyset";
import { accounts as accountRows, plans } from "../storage/schema";
import { accountLimits, type AccountLimits } from "../ratelimit/plans";

/** An account id: a UUID by default; operators may choose another id of these characters. */
const accountId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    "1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

/** The overridable limits; null puts an account back on its plan's value. */
const overrides = {
  policies: policiesSchema.nullable().optional(),
  tokenPolicies: policiesSchema.nullable().optional(),
  puQuota: z.number().finite().nonnegative().nullable().optional(),
};

/** POST /api/v1/admin/accounts body. */
export const createAccountSchema = z.strictObject({
  id: accountId.optional(),
  name: z.string().trim().min(1).max(100),
  plan: z.string().min(1).max(100).optional(),
  ...overrides,
});

/** PATCH /api/v1/admin/accounts/{accountId} body: the fields to change (at least one). */
export const updateAccountSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    plan: z.string().min(1).max(100).optional(),
    ...overrides,
  })
  .refine((b) => Object.keys(b).length > 0, "give at least one of name, plan, policies, tokenPolicies, puQuota");

export type CreateAccountBody = z.infer<typeof createAccountSchema>;
export type UpdateAccountBody = z.infer<typeof updateAccountSchema>;

/** An account in a list. */
export interface AccountSummary {
  id: string;
  name: string;
  created: string;
  plan: string;
}

/** One account: its limits in force and which of them it overrides (null: the plan's). */
export interface AccountRecord extends AccountLimits {
  id: string;
  name: string;
  created: string;
  overrides: { policies: Policy[] | null; tokenPolicies: Policy[] | null; puQuota: number | null };
}

type Row = typeof accountRows.$inferSelect;

/** The stored JSON of an override (undefined: unchanged, null: cleared). */
const stored = (p: Policy[] | null | undefined): string | null | undefined =>
  p === undefined ? undefined : p === null ? null : JSON.stringify(p);

/** Throws 400 when plan `id` does not exist (naming the plans that do). */
async function requirePlan(env: Pick<Env, "DB">, id: string): Promise<void> {
  const all = await drizzle(env.DB).select({ id: plans.id }).from(plans).orderBy(asc(plans.id)).all();
  if (!all.some((p) => p.id === id))
    throw badRequest(`Unknown plan '${id.slice(0, 100)}': use one of ${all.map((p) => p.id).join(", ")}.`, {
      plans: all.map((p) => p.id),
    });
}

/** The record of a stored account row. */
async function record(env: Pick<Env, "DB">, row: Row): Promise<AccountRecord> {
  const limits = await accountLimits(env, row.id);
  return {
    id: row.id,
    name: row.name,
    created: row.created,
    ...limits,
    overrides: {
      policies: jsonColumn<Policy[]>(row.policies),
      tokenPolicies: jsonColumn<Policy[]>(row.tokenPolicies),
      puQuota: row.puQuota,
    },
  };
}

/** Account `id`. Throws 404 when there is none. */
export async function getAccount(env: Pick<Env, "DB">, id: string): Promise<AccountRecord> {
  const row = await drizzle(env.DB).select().from(accountRows).where(eq(accountRows.id, id)).get();
  if (!row) throw notFound(`No account '${id.slice(0, 100)}'.`);
  return record(env, row);
}

/**
 * Creates an account (id: a new UUID unless given) on `plan` (default `enterprise`) with its overrides.
 * Throws 409 when the id is taken, 400 for an unknown plan.
 */
export async function createAccount(env: Pick<Env, "DB">, body: CreateAccountBody): Promise<AccountRecord> {
  const plan = body.plan ?? "enterprise";
  await requirePlan(env, plan);
  const id = body.id ?? crypto.randomUUID();
  const inserted = await drizzle(env.DB)
    .insert(accountRows)
    .values({
      id,
      name: body.name,
      created: new Date().toISOString(),
      plan,
      policies: stored(body.policies),
      tokenPolicies: stored(body.tokenPolicies),
      puQuota: body.puQuota ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: accountRows.id });
  if (inserted.length === 0)
    throw new ApiError(409, `Account '${id}' already exists: choose another id, or change it with PATCH.`);
  return getAccount(env, id);
}

/** Changes the fields of `body` on account `id`. Throws 404 for an unknown account, 400 for an unknown plan. */
export async function updateAccount(env: Pick<Env, "DB">, id: string, body: UpdateAccountBody): Promise<AccountRecord> {
  if (body.plan !== undefined) await requirePlan(env, body.plan);
  const set = {
    name: body.name,
    plan: body.plan,
    policies: stored(body.policies),
    tokenPolicies: stored(body.tokenPolicies),
    puQuota: body.puQuota,
  };
  const done = await drizzle(env.DB)
    .update(accountRows)
    .set(set)
    .where(eq(accountRows.id, id))
    .returning({ id: accountRows.id });
  if (done.length === 0) throw notFound(`No account '${id.slice(0, 100)}'.`);
  return getAccount(env, id);
}

/**
 * A page of accounts in (created, id) order whose name or id matches `search` (src/http/paging.ts parseSearch's
 * groups): up to `page.count + 1` rows, as src/http/paging.ts pagedList expects.
 */
export async function listAccounts(
  env: Pick<Env, "DB">,
  page: SeekPage,
  search: readonly (readonly string[])[],
): Promise<AccountSummary[]> {
  const k = keysetSql(["created", "id"], page);
  const s = searchSql(search, "name || ' ' || id");
  const query = `SELECT id, name, created, plan FROM accounts WHERE ${k.where} AND ${s.text} ORDER BY ${k.orderBy} LIMIT ?`;
  return (
    await env.DB.prepare(query)
      .bind(...k.params, ...s.params, k.limit)
      .all<AccountSummary>()
  ).results;
}

/** Every plan (id, name, client limit, policies, quota), by id. */
export async function listPlans(env: Pick<Env, "DB">): Promise<
  {
    id: string;
    name: string;
    maxClients: number;
    policies: Policy[];
    tokenPolicies: Policy[];
    puQuota: number | null;
  }[]
> {
  const rows = await drizzle(env.DB).select().from(plans).orderBy(asc(plans.id)).all();
  return rows.map((p) => ({
    id: p.id,
    name: p.name,
    maxClients: p.maxClients,
    policies: JSON.parse(p.policies) as Policy[],
    tokenPolicies: JSON.parse(p.tokenPolicies) as Policy[],
    puQuota: p.puQuota,
  }));
}
