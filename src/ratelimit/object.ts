/**
 * The Durable Object class bound as RATE_LIMITER: the token buckets of one account (its request policies and its
 * processing units of the month) or of one OAuth client (its token-request policies), addressed by name
 * (`account:<id>`, `client:<id>`, see ./limiter.ts). One RPC per request: {@link RateLimiter.take}, which also
 * counts the processing units of the account's earlier requests that the calling isolate carries (./carry.ts).
 * Limits are read from D1 (./plans.ts) and cached for CONFIG_TTL_MS, so an operator's change to a plan
 * or an account applies within a minute. Buckets live in memory; those of sampling periods over a minute are also
 * written behind to the object's storage (see RateLimiter.writeBehind); processing units in its SQLite table `units`.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { accountLimits, type AccountLimits } from "./plans";
import { durationMs, giveBack, policyKey, takeLease, type Bucket, type Policy, type Verdict } from "./policy";
import type { Charge } from "./carry";

/** How long limits read from D1 are used before being read again, in ms. */
export const CONFIG_TTL_MS = 60_000;

/** Whose buckets: an account's API calls, or one OAuth client's token requests (limits of its account). */
export type LimitSubject = { kind: "account"; account: string } | { kind: "client"; client: string; account: string };

/** A verdict plus, for a metered call of an account past its monthly PU quota, the figures (then not allowed). */
export interface LimitVerdict extends Verdict {
  outOfUnits?: { used: number; quota: number; month: string };
  /**
   * Of the charges the call carried (RateLimiter.take), the ids already written (counted once and durable); the
   * others were counted into this verdict and are written right after it (./carry.ts waits for a later call to
   * name them here).
   */
  landed?: string[];
  /**
   * Tokens taken by an account's call that asked for a lease (RateLimiter.take's `lease`): 1 for the call itself
   * plus those the calling isolate may spend on later calls (./lease.ts). Absent when no lease was asked.
   */
  granted?: number;
  /** With `granted`: true when the leased tokens may also pass metered calls (the account has no PU quota). */
  meteredLease?: boolean;
}

/** A lease asked with a decision: `want` tokens in all (1: none leased), `back` unspent ones of an expired lease. */
export interface LeaseAsk {
  want: number;
  back: number;
}

/** Processing units used in a calendar month (UTC, `YYYY-MM`) against the quota (null = none). */
export interface UnitsUsage {
  month: string;
  used: number;
  quota: number | null;
}

/** How long a charge id is remembered (retries of a charge come within seconds), in ms: one day. */
export const CHARGE_ID_TTL_MS = 86_400_000;

/**
 * How long the charges take() counted wait before they are written, in ms: the charges of the decisions within
 * that time are written in one event (one transaction), not one write per request. Below CARRY_MS (./carry.ts),
 * so that a later call confirms them before their owner sends them again; an object lost before its write forgets
 * them, and the isolates still holding them `carried` send them again (counted once by id).
 */
export const FLUSH_MS = 100;

/** Policies with a sampling period up to this (ms) keep their buckets in memory only (see RateLimiter.writeBehind). */
export const MEMORY_ONLY_MS = 60_000;

/** Tokens a long policy's bucket may take between two writes: one per thousandth of its limit, at least 1. */
export const writeEvery = (p: Policy): number => Math.max(1, Math.floor(p.limit / 1000));

/** Storage key of the buckets (one record: policy key -> bucket). */
const BUCKETS_KEY = "buckets";

const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
/** Start of the calendar month (UTC) after the one of `ms`, in ms since epoch: when a used-up quota is renewed. */
const nextMonth = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

export class RateLimiter extends DurableObject<Env> {
  /** The clock of every decision (ms since epoch). Tests replace it (runInDurableObject) to drive time. */
  clock: () => number = () => Date.now();
  private limits?: { value: AccountLimits; at: number };
  private readonly buckets = new Map<string, Bucket>();
  /** Tokens taken from each long policy's bucket since its last write (see writeBehind). */
  private readonly unwritten = new Map<string, number>();
  /** The policies whose buckets `buckets` holds (others' buckets were dropped): cleanup runs only when they change. */
  private kept?: readonly Policy[];
  /** The month's units as last read or written (this object is the only writer of its table `units`). */
  private spent?: { month: string; used: number };
  /** Charges take() counted but has not written yet (id -> units), written by {@link flush} right after its answer. */
  private readonly unwrittenCharges = new Map<string, number>();
  private unwrittenUnits = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS units (month TEXT PRIMARY KEY, used REAL NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS charges (id TEXT PRIMARY KEY, at REAL NOT NULL)");
    // applyCharges prunes expired ids on every call that charges: by this index, not a scan of a day's ids
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS charges_at ON charges (at)");
    void ctx.blockConcurrencyWhile(async () => {
      const saved = await ctx.storage.get<Record<string, Bucket>>(BUCKETS_KEY);
      for (const [k, b] of Object.entries(saved ?? {})) this.buckets.set(k, b);
    });
  }

  /**
   * Takes one token from every policy of `subject` (none when one is empty). First counts `charges` (processing
   * units of the account's earlier requests, each id once: {@link applyCharges}). For `metered` calls of an account
   * (Processing, Statistics, async, batch), then checks the month's processing units against the quota: past it,
   * the call is refused with `outOfUnits`, takes no token, and `retryAfterMs` runs to the next month (UTC).
   * `lease` (an account's isolate, ./lease.ts): first puts back the `back` tokens it did not spend, then takes up
   * to `want` tokens (policy.ts takeLease); no lease for a metered call of an account with a PU quota, whose
   * every metered call is checked against the month here.
   */
  async take(
    subject: LimitSubject,
    metered = false,
    charges: readonly Charge[] = [],
    lease?: LeaseAsk,
  ): Promise<LimitVerdict> {
    const now = this.clock();
    const landed = this.countCharges(charges);
    const limits = await this.limitsOf(subject.account, now);
    if (metered && subject.kind === "account" && limits.puQuota !== null) {
      const used = this.usedIn(monthOf(now));
      if (used >= limits.puQuota)
        return {
          landed,
          allowed: false,
          remaining: 0,
          retryAfterMs: nextMonth(now) - now,
          outOfUnits: { used, quota: limits.puQuota, month: monthOf(now) },
        };
    }
    const policies: Policy[] = subject.kind === "account" ? limits.policies : limits.tokenPolicies;
    if (policies !== this.kept) this.keepOnly(policies);
    if (lease) giveBack(policies, this.buckets, now, lease.back);
    const quotaChecked = metered && limits.puQuota !== null;
    const want = lease && subject.kind === "account" && !quotaChecked ? lease.want : 1;
    const { granted, ...verdict } = takeLease(policies, this.buckets, now, want);
    if (verdict.allowed) this.writeBehind(policies, granted);
    return lease ? { ...verdict, landed, granted, meteredLease: limits.puQuota === null } : { ...verdict, landed };
  }

  /**
   * Counts carried charges at once (the verdict sees them) and writes them FLUSH_MS later, with every charge counted
   * meanwhile, long after this call has answered: a write holds every answer the object sends until it is durable (the output gate), and the
   * decision a request waits for should not wait for the charge of the one before. Returns the ids already
   * written (durable: an answer naming them is only sent once they are); an id counted but not yet written is
   * neither counted again nor named.
   */
  private countCharges(charges: readonly Charge[]): string[] {
    const landed: string[] = [];
    const sql = this.ctx.storage.sql;
    for (const c of charges) {
      if (this.unwrittenCharges.has(c.id)) continue;
      if (sql.exec("SELECT 1 FROM charges WHERE id = ?", c.id).toArray().length > 0) landed.push(c.id);
      else {
        if (this.unwrittenCharges.size === 0) setTimeout(() => this.flush(), FLUSH_MS);
        this.unwrittenCharges.set(c.id, c.pu);
        this.unwrittenUnits += c.pu;
      }
    }
    return landed;
  }

  /** Writes the charges take() counted (see {@link countCharges}); a write that fails leaves them to be sent again. */
  private flush(): void {
    if (this.unwrittenCharges.size === 0) return;
    const charges = [...this.unwrittenCharges].map(([id, pu]) => ({ id, pu }));
    this.unwrittenCharges.clear();
    this.unwrittenUnits = 0;
    this.applyCharges(charges, this.clock());
  }

  /** Drops the buckets of policies other than `policies` (a changed plan starts new, full buckets). */
  private keepOnly(policies: readonly Policy[]): void {
    const current = new Set(policies.map(policyKey));
    for (const k of this.buckets.keys()) if (!current.has(k)) this.buckets.delete(k);
    this.kept = policies;
  }

  /**
   * Writes the buckets of long policies (sampling period over MEMORY_ONLY_MS) behind an allowed take, once
   * `writeEvery` of their tokens were taken since the last write: the answer never waits for the write
   * (allowUnconfirmed), and a restart forgets at most `writeEvery(p) - 1` takes of a long policy (none for limits
   * up to 1999) and at most one sampling period of a short one (kept in memory only; a write per request cost
   * more than the rest of the limiter, bench/bench-reqpath.mjs).
   */
  private writeBehind(policies: readonly Policy[], taken = 1): void {
    let due = false;
    for (const p of policies) {
      if (durationMs(p.samplingPeriod)! <= MEMORY_ONLY_MS) continue;
      const k = policyKey(p);
      const n = (this.unwritten.get(k) ?? 0) + taken;
      this.unwritten.set(k, n);
      due ||= n >= writeEvery(p);
    }
    if (!due) return;
    this.unwritten.clear();
    const long = [...this.buckets].filter(([k]) => durationMs(k.slice(0, k.indexOf("/")))! > MEMORY_ONLY_MS);
    void this.ctx.storage.put(BUCKETS_KEY, Object.fromEntries(long), { allowUnconfirmed: true });
  }

  /**
   * Adds `pu` processing units to this account's month (UTC, by the clock); returns the month's usage. With an
   * `id` the charge is idempotent: a charge id already counted in the last CHARGE_ID_TTL_MS adds nothing (so a
   * caller may retry a call whose answer it lost). Tasks (async, batch, statistical batch) charge so.
   */
  async charge(account: string, pu: number, id?: string): Promise<UnitsUsage> {
    const now = this.clock();
    if (id === undefined) this.addUnits(pu, now);
    else this.applyCharges([{ id, pu }], now);
    return this.usage(account);
  }

  /** Counts `charges` (each id once, {@link applyCharges}): the charges no request carried (./carry.ts). */
  async chargeAll(account: string, charges: readonly Charge[]): Promise<UnitsUsage> {
    this.applyCharges(charges, this.clock());
    return this.usage(account);
  }

  /**
   * Adds each charge's units to the month of `now`, unless its id was counted in the last CHARGE_ID_TTL_MS (a
   * retry of a call whose answer was lost adds nothing); ids older than that are forgotten.
   */
  private applyCharges(charges: readonly Charge[], now: number): void {
    if (charges.length > 0) this.flush(); // what take() counted is written first, so that no id counts twice
    if (charges.length === 0) return;
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM charges WHERE at < ?", now - CHARGE_ID_TTL_MS);
    for (const c of charges) {
      if (sql.exec("INSERT INTO charges (id, at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", c.id, now).rowsWritten > 0)
        this.addUnits(c.pu, now);
    }
  }

  /** Adds `pu` units to the month of `now` (table `units` and the kept figure). */
  private addUnits(pu: number, now: number): void {
    const month = monthOf(now);
    this.ctx.storage.sql.exec(
      "INSERT INTO units (month, used) VALUES (?, ?) ON CONFLICT (month) DO UPDATE SET used = used + excluded.used",
      month,
      pu,
    );
    if (this.spent?.month === month) this.spent.used += pu;
  }

  /** This account's processing units of the current month and its quota, after counting `charges` (./carry.ts). */
  async usage(account: string, charges: readonly Charge[] = []): Promise<UnitsUsage> {
    const now = this.clock();
    this.applyCharges(charges, now);
    const limits = await this.limitsOf(account, now);
    return { month: monthOf(now), used: this.usedIn(monthOf(now)), quota: limits.puQuota };
  }

  /** Units used in `month`: read from the table `units` once per month, then kept up to date by {@link addUnits}. */
  private usedIn(month: string): number {
    if (this.spent?.month !== month)
      this.spent = {
        month,
        used:
          this.ctx.storage.sql.exec<{ used: number }>("SELECT used FROM units WHERE month = ?", month).toArray()[0]
            ?.used ?? 0,
      };
    return this.spent.used + this.unwrittenUnits;
  }

  private async limitsOf(account: string, now: number): Promise<AccountLimits> {
    if (!this.limits || now - this.limits.at >= CONFIG_TTL_MS || now < this.limits.at)
      this.limits = { value: await accountLimits(this.env, account), at: now };
    return this.limits.value;
  }
}
