/**
 * Leases: tokens an isolate took from an account's RateLimiter ahead of its requests, and spends on them locally,
 * so that a busy account's requests do not each wait for a Durable Object call.
 *
 * The limits stay exact: a leased token was taken from every bucket of the account (RateLimiter.take,
 * policy.ts takeLease), so the account's requests across all isolates never pass more than its policies allow; what
 * a lease may cost is only the other way round, a request refused in one isolate while another holds unspent
 * tokens. That is bounded three ways: an isolate asks for as many tokens as it served the account in the last
 * whole window of LEASE_MS (at most MAX_LEASE; none in an account's first window: only a busy account leases), the object grants at most a quarter of what is left (none near the limit, where
 * every request is decided by the object, one at a time), and a lease not spent within LEASE_MS is given back
 * with the next call. A metered call spends a lease only when the account has no PU quota (with a quota, every
 * metered call is checked against the month by the object). The headers of a request served from a lease say the
 * tokens left at the lease's decision plus those the lease still holds (X-RateLimit-Remaining), no wait.
 *
 * A lease is renewed ahead ({@link Leases.ahead}): once a request spent it down to half of the next lease's size,
 * the next lease is asked for after that request's response (in its `ctx.waitUntil`), so that a busy account's
 * requests keep passing without one of them waiting for the object. A lease asked ahead is a call like any other
 * (its tokens taken from every bucket, at most a quarter of what is left, none near the limit), all of its tokens
 * for later requests; its tokens join the live lease, which then runs LEASE_MS from its decision; one is asked at
 * a time per account. A request its lease does not cover still asks the object itself.
 *
 * A {@link Leases} is one isolate's book (tests make two to play two isolates); the Worker uses {@link leases}.
 */
import { approxBytes, Lru } from "../raster/lru";
import { REQUEST_CACHE_BYTES } from "../raster/memory";
import type { Env } from "../env";
import type { LeaseAsk, LimitVerdict } from "./object";
import { takeToken } from "./limiter";
import { LEASE_SHARE } from "./policy";

/** How long leased tokens may be spent (ms), and the window whose requests size the next lease. */
export const LEASE_MS = 1000;
/** Most tokens one call asks for (the call's own included). */
export const MAX_LEASE = 16;
const MAX_ACCOUNTS = 4096;

interface Book {
  /** Leased tokens not yet spent, and until when they may be (ms since epoch). */
  tokens: number;
  until: number;
  /** Tokens left in the account's emptiest bucket at the lease's decision (without the leased ones). */
  remaining: number;
  /** True when the tokens may pass metered calls. */
  metered: boolean;
  /** Requests of this window (from `since`) and of the window before it (the size of the next lease). */
  hits: number;
  lastHits: number;
  since: number;
  /** Until when a lease asked ahead is in flight (ms since epoch; 0: none): one at a time. */
  asking: number;
}

/** True while the lease of `b` may be spent (a clock set back ends it). */
const live = (b: Book, now: number): boolean => now < b.until && b.until - now <= LEASE_MS;

/** One isolate's leases, per account. */
export class Leases {
  /** `clock`: ms since epoch (tests drive it). */
  constructor(private readonly clock: () => number = Date.now) {}

  private readonly books = new Lru<Book>(MAX_ACCOUNTS, REQUEST_CACHE_BYTES / 10, approxBytes, true);

  /**
   * Counts a request of `account` and, when a lease of this isolate covers it, spends one of its tokens: the
   * verdict to answer with (allowed, no wait). Undefined: the request asks the RateLimiter ({@link ask}).
   */
  spend(account: string, metered: boolean): LimitVerdict | undefined {
    const now = this.clock();
    const b = this.book(account, now);
    b.hits += 1;
    if (b.tokens < 1 || !live(b, now) || (metered && !b.metered)) return undefined;
    b.tokens -= 1;
    return { allowed: true, remaining: b.remaining + b.tokens, retryAfterMs: 0 };
  }

  /**
   * The lease to ask with a request's decision: as many tokens as this isolate served the account in the last
   * window (1 to MAX_LEASE), and the unspent tokens of an expired lease to give back (taken from the book:
   * a failed call loses them, which only errs on the side of refusing).
   */
  ask(account: string): LeaseAsk {
    const now = this.clock();
    const b = this.book(account, now);
    const expired = !live(b, now);
    const back = expired ? b.tokens : 0;
    if (expired) b.tokens = 0;
    return { want: Math.min(MAX_LEASE, Math.max(1, b.lastHits)), back };
  }

  /**
   * Notes a decision asked with a lease: its tokens beyond the call's own are added to the account's lease.
   * Returns the verdict to answer with: its `remaining` counts the tokens the lease holds, as {@link spend}'s do.
   */
  note(account: string, v: LimitVerdict): LimitVerdict {
    const now = this.clock();
    const extra = v.allowed ? (v.granted ?? 1) - 1 : 0;
    if (extra <= 0) return v;
    const b = this.book(account, now);
    const held = live(b, now);
    b.tokens = (held ? b.tokens : 0) + extra;
    b.until = now + LEASE_MS;
    b.remaining = v.remaining;
    b.metered = v.meteredLease === true && (!held || b.metered);
    return { ...v, remaining: v.remaining + b.tokens };
  }

  /**
   * Renews the lease of `account` ahead of its end: when the live lease holds at most half of the next lease's
   * size (see {@link ask}; an isolate that served fewer than 2 requests of the account in the last window asks
   * none), its decision left enough tokens for the object to grant all of it (LEASE_SHARE: near the limit
   * requests stay the object's own decisions) and none is already in flight, one call takes the next lease, every
   * token of it for later requests (noted into the book when it answers, refusals and failures change nothing).
   * Returns that call (for the caller's `ctx.waitUntil`; it never rejects) and its verdict, or undefined when none
   * is due.
   */
  ahead(env: Pick<Env, "RATE_LIMITER">, account: string): Promise<LimitVerdict | undefined> | undefined {
    const now = this.clock();
    const b = this.book(account, now);
    const want = Math.min(MAX_LEASE, b.lastHits);
    if (want < 2 || !live(b, now) || b.tokens > want / 2 || b.remaining < want / LEASE_SHARE) return undefined;
    if (now < b.asking && b.asking - now <= LEASE_MS) return undefined;
    b.asking = now + LEASE_MS; // a call that never answers blocks the next one for LEASE_MS at most
    return takeToken(env, { kind: "account", account }, false, { want, back: 0 }).then(
      (v) => ((b.asking = 0), this.noteAhead(account, v), v),
      () => ((b.asking = 0), undefined),
    );
  }

  /**
   * Notes a lease asked ahead: every token granted joins the tokens still held (live when the call was made, or
   * given back meanwhile by {@link ask}), which may then be spent until LEASE_MS after this decision.
   */
  private noteAhead(account: string, v: LimitVerdict): void {
    const granted = v.allowed ? (v.granted ?? 0) : 0;
    if (granted <= 0) return;
    const now = this.clock();
    const b = this.book(account, now);
    b.metered = v.meteredLease === true && (b.tokens === 0 || b.metered);
    b.tokens += granted;
    b.until = now + LEASE_MS;
    b.remaining = v.remaining;
  }

  /**
   * A request's decision: the lease's at once when it covers the request (a verdict), else the account's
   * RateLimiter's (one call asking for a lease, noted when it answers).
   */
  decide(env: Pick<Env, "RATE_LIMITER">, account: string, metered: boolean): LimitVerdict | Promise<LimitVerdict> {
    return (
      this.spend(account, metered) ??
      takeToken(env, { kind: "account", account }, metered, this.ask(account)).then((v) => this.note(account, v))
    );
  }

  /** The account's book, its request windows moved on to `now`. */
  private book(account: string, now: number): Book {
    let b = this.books.get(account);
    if (!b)
      this.books.set(
        account,
        (b = { tokens: 0, until: 0, remaining: 0, metered: false, hits: 0, lastHits: 0, since: now, asking: 0 }),
      );
    if (now - b.since >= LEASE_MS || now < b.since) {
      const next = now - b.since < 2 * LEASE_MS && now >= b.since;
      [b.lastHits, b.hits, b.since] = [next ? b.hits : 0, 0, now];
    }
    return b;
  }
}

/** This isolate's leases. */
export const leases = new Leases();
