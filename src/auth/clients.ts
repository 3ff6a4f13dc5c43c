/**
 * OAuth clients: creation (secret shown once, stored as a salted SHA-256; secrets are 192 random bits, so a fast
 * hash is enough) and credential checks that cost the same whether the client exists, is expired or the secret is
 * wrong: one D1 lookup, one SHA-256 and one constant-time comparison (src/http/compare.ts) every time. Runs in
 * workerd and, for the seeding of `npm start` (scripts/seed.ts), in Node.
 */
import { eq } from "drizzle-orm";
import type { Env } from "../env";
import { constantTimeEqual } from "../http/compare";
import { db } from "../storage/db";
import { accounts, oauthClients } from "../storage/schema";

const hex = (b: ArrayBuffer | Uint8Array): string =>
  [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");

async function hashSecret(salt: string, secret: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(salt + secret)));
}

/** Stands in for the stored hash of an unknown client, so that unknown clients cost a hash and a comparison too. */
const DUMMY_HASH = `${"0".repeat(32)}$${"0".repeat(64)}`;

export interface ClientInfo {
  clientId: string;
  accountId: string;
  name: string;
  /** Web origins a single-page-app client may be used from (`["*"]`: all); null for a confidential client. */
  spaOrigins: string[] | null;
}

/**
 * Creates an account (if `accountId` is new) and an OAuth client for it (`expires`: ISO date-time or null = never;
 * `spaOrigins`: see {@link ClientInfo}). Returns the client id and the plain secret, which is not stored and
 * cannot be read again. Checks of the plan's client limit and of the fields are the caller's (src/accounts).
 */
export async function createClient(
  env: Pick<Env, "DB">,
  opts: {
    accountId: string;
    accountName?: string;
    name: string;
    clientId?: string;
    secret?: string;
    expires?: string | null;
    spaOrigins?: string[] | null;
  },
): Promise<{ client_id: string; client_secret: string }> {
  const d = db(env);
  const now = new Date().toISOString();
  await d
    .insert(accounts)
    .values({ id: opts.accountId, name: opts.accountName ?? opts.name, created: now })
    .onConflictDoNothing();
  const clientId = opts.clientId ?? crypto.randomUUID();
  const secret = opts.secret ?? hex(crypto.getRandomValues(new Uint8Array(24)));
  const salt = hex(crypto.getRandomValues(new Uint8Array(16)));
  const secretHash = `${salt}$${await hashSecret(salt, secret)}`;
  await d
    .insert(oauthClients)
    .values({
      clientId,
      secretHash,
      accountId: opts.accountId,
      name: opts.name,
      created: now,
      expires: opts.expires ?? null,
      spaOrigins: opts.spaOrigins ? JSON.stringify(opts.spaOrigins) : null,
    })
    .onConflictDoUpdate({
      target: oauthClients.clientId,
      set: { secretHash, accountId: opts.accountId, name: opts.name },
    });
  return { client_id: clientId, client_secret: secret };
}

/**
 * Checks client credentials; null when the client is unknown, the secret wrong, or the client expired or deleted
 * (the caller cannot tell which, and each case does the same work). Callers bound the sizes of `clientId` and `secret`.
 */
export async function verifyClient(env: Pick<Env, "DB">, clientId: string, secret: string): Promise<ClientInfo | null> {
  const row = await db(env).select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).get();
  const [salt = "", digest = ""] = (row?.secretHash ?? DUMMY_HASH).split("$");
  const secretOk = constantTimeEqual(digest, await hashSecret(salt, secret));
  const expired = !!row?.expires && !(Date.parse(row.expires) >= Date.now());
  if (!row || !secretOk || expired || row.deleted !== null) return null;
  return {
    clientId: row.clientId,
    accountId: row.accountId,
    name: row.name,
    spaOrigins: row.spaOrigins ? (JSON.parse(row.spaOrigins) as string[]) : null,
  };
}
