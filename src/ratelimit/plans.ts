/**
 * An account's plan and the limits in force for it: the plan's values unless the account overrides them
 * (accounts.policies / token_policies / pu_quota, migration 0006). Read by the RateLimiter Durable Object, which
 * caches them (./object.ts), and by the accounts API (client limit, src/accounts). Here rather than in
 * src/accounts because the limiter reads it: accounts imports ratelimit, never the other way.
 */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";
import { parsePolicies, type Policy } from "./policy";
import { accounts as accountRows, plans } from "../storage/schema";

/** What an account may use. */
export interface AccountLimits {
  plan: { id: string; name: string };
  maxClients: number;
  /** Request policies of every authenticated API call. */
  policies: Policy[];
  /** Token-request policies, per OAuth client. */
  tokenPolicies: Policy[];
  /** Processing units per calendar month (UTC); null = no quota. */
  puQuota: number | null;
}

/** Limits of the plan `enterprise` (migration 0006), for an account that has no row yet. */
const FALLBACK_PLAN = "enterprise";

/**
 * The limits of `accountId`. An unknown account gets the fallback plan's. Throws an Error when the stored policies
 * are not valid JSON policy lists (an operator's typo must not disable limits silently).
 */
export async function accountLimits(env: Pick<Env, "DB">, accountId: string): Promise<AccountLimits> {
  const d = drizzle(env.DB);
  const account = await d.select().from(accountRows).where(eq(accountRows.id, accountId)).get();
  const plan = await d
    .select()
    .from(plans)
    .where(eq(plans.id, account?.plan ?? FALLBACK_PLAN))
    .get();
  if (!plan) throw new Error(`Account ${accountId}: unknown plan '${account?.plan}'.`);
  return {
    plan: { id: plan.id, name: plan.name },
    maxClients: plan.maxClients,
    policies: parsePolicies(account?.policies ?? plan.policies, `account ${accountId} policies`),
    tokenPolicies: parsePolicies(account?.tokenPolicies ?? plan.tokenPolicies, `account ${accountId} token policies`),
    puQuota: account?.puQuota ?? plan.puQuota,
  };
}
