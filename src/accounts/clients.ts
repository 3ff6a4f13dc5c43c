/**
 * An account's OAuth clients (spec, Authentication 5-8): active and inactive (expired or deleted) lists, creation
 * within the plan's client limit, deletion. Every query is scoped to the calling account: another account's client
 * is "not found", never shown or deleted.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";
import { badRequest, notFound } from "../http/errors";
import { createClient } from "../auth/clients";
import { accountLimits } from "../ratelimit/plans";
import { oauthClients as clientRows } from "../storage/schema";
import { forgetClient } from "../auth/verified";
import type { ClientRecord, CreateClientBody } from "./clientschema";

type Row = typeof clientRows.$inferSelect;

/** The API view of a stored client at time `now` (ms). */
function clientRecord(row: Row, now: number): ClientRecord {
  const origins = row.spaOrigins ? (JSON.parse(row.spaOrigins) as string[]) : null;
  const expired = row.expires !== null && !(Date.parse(row.expires) > now);
  return {
    clientId: row.clientId,
    name: row.name,
    created: row.created,
    expires: row.expires,
    singlePageApp: origins ? { allowedOrigins: origins.includes("*") ? "ALL" : origins } : null,
    status: row.deleted !== null ? "DELETED" : expired ? "EXPIRED" : "ACTIVE",
    deleted: row.deleted,
  };
}

/** All clients of `account`, newest first, split into active and inactive (expired or deleted). */
export async function listClients(
  env: Pick<Env, "DB">,
  account: string,
  now = Date.now(),
): Promise<{ active: ClientRecord[]; inactive: ClientRecord[] }> {
  const rows = await drizzle(env.DB)
    .select()
    .from(clientRows)
    .where(eq(clientRows.accountId, account))
    .orderBy(desc(clientRows.created))
    .all();
  const records = rows.map((r) => clientRecord(r, now));
  return {
    active: records.filter((r) => r.status === "ACTIVE"),
    inactive: records.filter((r) => r.status !== "ACTIVE"),
  };
}

/** One client of `account`. Throws 404 when it does not exist or belongs to another account. */
export async function getClient(env: Pick<Env, "DB">, account: string, clientId: string): Promise<ClientRecord> {
  const row = await drizzle(env.DB)
    .select()
    .from(clientRows)
    .where(and(eq(clientRows.clientId, clientId), eq(clientRows.accountId, account)))
    .get();
  if (!row) throw notFound(`No OAuth client '${clientId.slice(0, 100)}' in this account.`);
  return clientRecord(row, Date.now());
}

/** 400 naming the plan's client limit and what to do. */
const tooManyClients = (active: number, plan: string, max: number) =>
  badRequest(
    `This account has ${active} active OAuth clients, the most its plan '${plan}' allows (${max}): delete a client or upgrade the plan.`,
    {
      maxClients: max,
      active,
    },
  );

/**
 * Creates a client for `account` from a validated body; returns its record and the secret (shown this once, stored
 * only as a salted hash). Throws 400 when the account already has its plan's number of active clients. The count is
 * checked again after the insert (concurrent creations): a client over the limit is removed before anyone saw it.
 */
export async function createAccountClient(
  env: Pick<Env, "DB">,
  account: string,
  body: CreateClientBody,
): Promise<ClientRecord & { clientSecret: string }> {
  const [limits, before] = await Promise.all([accountLimits(env, account), listClients(env, account)]);
  if (before.active.length >= limits.maxClients)
    throw tooManyClients(before.active.length, limits.plan.name, limits.maxClients);
  const spa = body.singlePageApp?.allowedOrigins;
  const { client_id, client_secret } = await createClient(env, {
    accountId: account,
    name: body.name,
    expires: body.expires ? new Date(body.expires).toISOString() : null,
    spaOrigins: spa === undefined ? null : spa === "ALL" ? ["*"] : [...new Set(spa)],
  });
  const after = (await listClients(env, account)).active;
  if (after.length > limits.maxClients) {
    await drizzle(env.DB).delete(clientRows).where(eq(clientRows.clientId, client_id));
    throw tooManyClients(after.length - 1, limits.plan.name, limits.maxClients);
  }
  return { ...after.find((c) => c.clientId === client_id)!, clientSecret: client_secret };
}

/**
 * Deletes (deactivates) a client of `account`: it moves to the inactive list and can no longer get tokens; tokens
 * already issued stop working at once in this isolate and within CLIENT_RECHECK_MS (30 s) in others
 * (src/auth/verified.ts). Throws 404 for an unknown, foreign or already deleted client.
 */
export async function deleteClient(env: Pick<Env, "DB">, account: string, clientId: string): Promise<void> {
  const done = await drizzle(env.DB)
    .update(clientRows)
    .set({ deleted: new Date().toISOString() })
    .where(and(eq(clientRows.clientId, clientId), eq(clientRows.accountId, account), isNull(clientRows.deleted)))
    .returning({ clientId: clientRows.clientId });
  if (done.length === 0) throw notFound(`No OAuth client '${clientId.slice(0, 100)}' to delete in this account.`);
  forgetClient(clientId);
}
