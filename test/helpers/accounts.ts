/** Test helpers for accounts: an account on a given plan (or overrides) with a client and a token; the limiter clock. */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { createClient } from "../../src/auth/clients";
import type { RateLimiter } from "../../src/ratelimit/object";
import { unitsUsage } from "../../src/accounts/units";
import type { Policy } from "../../src/ratelimit/policy";
import { TOKEN_PATH, call, form } from "./auth";
import { buildApi } from "../../src/routes";
import type { Method, RouteInfo } from "../../src/http/router";

export interface TestAccount {
  account: string;
  client: { client_id: string; client_secret: string };
}

/** A new account with one client; `plan` and overrides written to D1 as an operator would. */
export async function newAccount(
  opts: { plan?: string; policies?: Policy[]; tokenPolicies?: Policy[]; puQuota?: number } = {},
): Promise<TestAccount> {
  const account = crypto.randomUUID();
  const client = await createClient(env, { accountId: account, name: "first" });
  await env.DB.prepare("UPDATE accounts SET plan = ?, policies = ?, token_policies = ?, pu_quota = ? WHERE id = ?")
    .bind(
      opts.plan ?? "enterprise",
      opts.policies ? JSON.stringify(opts.policies) : null,
      opts.tokenPolicies ? JSON.stringify(opts.tokenPolicies) : null,
      opts.puQuota ?? null,
      account,
    )
    .run();
  return { account, client };
}

/** A token request with a client's credentials (the raw response). */
export const requestToken = (c: { client_id: string; client_secret: string }): Promise<Response> =>
  call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));

/** An access token for a client (throws unless the token endpoint answers 200). */
export async function tokenOf(c: { client_id: string; client_secret: string }): Promise<string> {
  const r = await requestToken(c);
  if (r.status !== 200) throw new Error(`token endpoint answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { access_token: string }).access_token;
}

/** Fixes the clock of the RateLimiter object `name` (`account:<id>` or `client:<id>`) at `ms`. */
export async function setLimiterClock(name: string, ms: number): Promise<void> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
  await runInDurableObject(stub, (o: RateLimiter) => {
    o.clock = () => ms;
  });
}

/** Polls the account's usage (every 20 ms, at most 5 s) until it is at least `pu`; returns it. */
export async function waitForUsage(account: string, pu: number): Promise<number> {
  for (let i = 0; i < 250; i++) {
    const used = (await unitsUsage(env, account)).used;
    if (used >= pu - 1e-9) return used;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`usage of ${account} never reached ${pu}`);
}

/** The route `method path` of the real route table (what middleware gets: its metadata says metered, speculative...). */
export function routeOf(method: Method, path: string): RouteInfo {
  const r = buildApi()
    .routes()
    .find((d) => d.method === method && d.path === path);
  if (!r) throw new Error(`no route ${method} ${path}`);
  return r;
}
