/**
 * Leased units of work: how queue-driven work survives a killed or stalled Worker. A unit (an async render, a BYOC
 * tile's ingestion, a statistical batch feature, ...) is a row of its Durable Object's SQLite storage (table
 * `task_units` of a UnitObject, ./unit-object.ts; `units` of a task's engine object, ./engine.ts, which adds its own
 * columns) holding the queue message that runs it and a lease:
 * - put: the unit is PENDING with a "queued" lease of {@link LeasePolicy.leaseMs}; whoever put it sends its message.
 * - claim: a consumer takes the unit before working on it (attempt + 1, the lease is its own for leaseMs); a claim
 *   while another owner's lease runs is refused ("busy": the message is acked without work), as is a claim of a
 *   finished unit ("finished"), so duplicate deliveries never run the same unit twice at once.
 * - renew: the consumer's heartbeat extends its lease while it works (./runner.ts, every third of the lease).
 * - snooze: the work asks to run again later (./runner.ts RunLater): queued until then, its attempts restored.
 * - complete: DONE or FAILED, once: a late or duplicate completion changes nothing (`false`).
 * - sweep (the object's alarm): every PENDING unit whose lease expired lost its owner (the Worker
 *   died, the message was lost, the work stalled) and is re-sent, its owner dropped (a stalled owner's next renew
 *   fails, so it stops); a unit never claimed waits twice as long after each re-send (a long queue backlog is not
 *   flooded with copies); after {@link LeasePolicy.maxAttempts} claims the unit is handed to its kind's dead-letter
 *   hook instead ({@link DEAD_CAUSE} in the message), which ends it FAILED with the cause.
 * Times are milliseconds since the epoch. All methods are synchronous (one Durable Object input gate turn).
 */
import type { TaskMessage } from "./messages";

/** How long leases run and how often a unit is tried. */
export interface LeasePolicy {
  /** Lease of a claimed unit without a renewal, and of a unit just sent (ms). */
  leaseMs: number;
  /** Claims a unit gets; when the last one's lease expires too, the unit is dead-lettered (FAILED with a cause). */
  maxAttempts: number;
  /** Longest wait for a sent, never claimed unit before it is sent again (ms). */
  maxQueuedMs: number;
}

/** One minute leases (heartbeat every 20 s), three attempts, a queued unit re-sent at least every 30 minutes. */
export const LEASE_POLICY: LeasePolicy = { leaseMs: 60_000, maxAttempts: 3, maxQueuedMs: 30 * 60_000 };

/** Member of a message body the watchdog re-sends for a unit out of attempts: the cause its kind's onDead records. */
export const DEAD_CAUSE = "deadCause";

/** PENDING: leased (queued or running); DONE, FAILED: ended. The engine adds IDLE (not sent: planned, or its task stopped) and CANCELLED (its task ended first). */
export type UnitStatus = "PENDING" | "DONE" | "FAILED" | "IDLE" | "CANCELLED";

/** A unit to put: its id within the object and the message that runs it. */
export interface UnitSpec {
  id: string;
  message: TaskMessage;
}

/** A unit as stored; `live` is true while it is PENDING under a lease that has not expired. */
export interface UnitView {
  id: string;
  status: UnitStatus;
  attempts: number;
  owner: string | null;
  leaseUntil: number;
  live: boolean;
  cause: string | null;
}

/** The answer to a claim: run it (attempt n, renew within leaseMs), or why not. */
export type Claim =
  | { run: true; attempt: number; leaseMs: number }
  | { run: false; reason: "unknown" | "finished" | "busy" }
  | { run: false; reason: "exhausted"; cause: string };

/** What a sweep found: messages to send again, and dead messages (with {@link DEAD_CAUSE}) for units out of attempts. */
export interface Sweep {
  resend: TaskMessage[];
  dead: TaskMessage[];
}

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  message: string;
  status: string;
  attempts: number;
  sends: number;
  owner: string | null;
  lease_until: number;
  cause: string | null;
}

/** The statements creating a units table `table` with the lease columns and `extra` ones (`, name TYPE ...`). */
export const leaseSchema = (table: string, extra = ""): string[] => [
  `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, message TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'PENDING',
     attempts INTEGER NOT NULL DEFAULT 0, sends INTEGER NOT NULL DEFAULT 1, owner TEXT, lease_until INTEGER NOT NULL, cause TEXT${extra})`,
  `CREATE INDEX IF NOT EXISTS ${table}_due ON ${table} (status, lease_until)`,
];

/** The cause recorded for a unit whose every attempt was lost or failed. */
export const exhaustedCause = (attempts: number, p: LeasePolicy): string =>
  `No attempt finished: ${attempts} attempt(s) were each lost (the service stopped, or the work stalled for more than ${p.leaseMs / 1000} s) or failed.`;

/** The units table `table` of one Durable Object (see the module docs; created by {@link leaseSchema}). */
export class Leases {
  constructor(
    private readonly sql: SqlStorage,
    private readonly table: string,
    readonly policy: LeasePolicy = LEASE_POLICY,
  ) {}

  /**
   * Puts units PENDING with a queued lease from `now`; a unit put again starts over (attempts 0, no owner), unless
   * `onlyIdle` and it is live (PENDING under a running lease: its work is under way). Returns the ids put.
   */
  put(units: readonly UnitSpec[], now: number, onlyIdle = false): string[] {
    const put: string[] = [];
    for (const u of units) {
      if (onlyIdle && this.get(u.id, now)?.live) continue;
      this.sql.exec(
        `INSERT INTO ${this.table} (id, message, lease_until) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET message = excluded.message,
           status = 'PENDING', attempts = 0, sends = 1, owner = NULL, lease_until = excluded.lease_until, cause = NULL`,
        u.id,
        JSON.stringify(u.message),
        now + this.policy.leaseMs,
      );
      put.push(u.id);
    }
    return put;
  }

  /** The unit `id`, or null. */
  get(id: string, now: number): UnitView | null {
    const r = this.sql.exec<Row>(`SELECT * FROM ${this.table} WHERE id = ?`, id).toArray()[0];
    if (!r) return null;
    const status = r.status as UnitStatus;
    return {
      id: r.id,
      status,
      attempts: r.attempts,
      owner: r.owner,
      leaseUntil: r.lease_until,
      live: status === "PENDING" && r.lease_until > now,
      cause: r.cause,
    };
  }

  /** Claims unit `id` for `owner` (an id unique to one delivery attempt); see {@link Claim}. */
  claim(id: string, owner: string, now: number): Claim {
    const u = this.get(id, now);
    if (!u) return { run: false, reason: "unknown" };
    if (u.status !== "PENDING") return { run: false, reason: "finished" };
    if (u.owner === owner) return { run: true, attempt: u.attempts, leaseMs: this.policy.leaseMs };
    if (u.owner !== null && u.live) return { run: false, reason: "busy" };
    if (u.attempts >= this.policy.maxAttempts)
      return { run: false, reason: "exhausted", cause: exhaustedCause(u.attempts, this.policy) };
    this.sql.exec(
      `UPDATE ${this.table} SET attempts = attempts + 1, sends = 0, owner = ?, lease_until = ? WHERE id = ?`,
      owner,
      now + this.policy.leaseMs,
      id,
    );
    return { run: true, attempt: u.attempts + 1, leaseMs: this.policy.leaseMs };
  }

  /** Extends `owner`'s lease; false when it is not the owner any more (lease expired and re-sent) or the unit finished. */
  renew(id: string, owner: string, now: number): boolean {
    return (
      this.sql.exec(
        `UPDATE ${this.table} SET lease_until = ? WHERE id = ? AND owner = ? AND status = 'PENDING'`,
        now + this.policy.leaseMs,
        id,
        owner,
      ).rowsWritten > 0
    );
  }

  /** A failed attempt of `owner` that the queue retries in `retryMs`: the unit is queued again (no owner) until then plus a lease. */
  release(id: string, owner: string, now: number, retryMs: number): void {
    this.sql.exec(
      `UPDATE ${this.table} SET owner = NULL, sends = 1, lease_until = ? WHERE id = ? AND owner = ? AND status = 'PENDING'`,
      now + retryMs + this.policy.leaseMs,
      id,
      owner,
    );
  }

  /**
   * `owner` asks for unit `id` to run again at `until` (./runner.ts RunLater: e.g. a provider still preparing it):
   * the unit is queued again without an owner and with its attempts restored, and the sweep re-sends it then.
   */
  snooze(id: string, owner: string, until: number): void {
    this.sql.exec(
      `UPDATE ${this.table} SET owner = NULL, attempts = 0, sends = 0, lease_until = ? WHERE id = ? AND owner = ? AND status = 'PENDING'`,
      until,
      id,
      owner,
    );
  }

  /** Ends a PENDING unit DONE or FAILED (with `cause`); false when it had ended before (nothing changes). */
  complete(id: string, status: "DONE" | "FAILED", cause: string | null = null): boolean {
    return (
      this.sql.exec(
        `UPDATE ${this.table} SET status = ?, cause = ?, owner = NULL WHERE id = ? AND status = 'PENDING'`,
        status,
        cause,
        id,
      ).rowsWritten > 0
    );
  }

  /** Ends every PENDING unit (their task ended: nothing is left to do); a late delivery is then acked without work. */
  completeAll(status: "DONE" | "FAILED", cause: string | null = null): void {
    this.sql.exec(
      `UPDATE ${this.table} SET status = ?, cause = ?, owner = NULL WHERE status = 'PENDING'`,
      status,
      cause,
    );
  }

  /**
   * The units whose lease expired at `at`: each gets a new queued lease from `now` (doubling per send of a unit
   * never claimed since, up to maxQueuedMs) and no owner; returned are their messages, to be sent by the caller.
   */
  sweep(at: number, now: number): Sweep {
    const out: Sweep = { resend: [], dead: [] };
    for (const r of this.sql
      .exec<Row>(`SELECT * FROM ${this.table} WHERE status = 'PENDING' AND lease_until <= ? ORDER BY lease_until`, at)
      .toArray()) {
      const message = JSON.parse(r.message) as TaskMessage;
      if (r.attempts >= this.policy.maxAttempts)
        out.dead.push({ ...message, [DEAD_CAUSE]: exhaustedCause(r.attempts, this.policy) });
      else out.resend.push(message);
      const wait = Math.min(this.policy.leaseMs * 2 ** r.sends, this.policy.maxQueuedMs);
      this.sql.exec(
        `UPDATE ${this.table} SET owner = NULL, sends = sends + 1, lease_until = ? WHERE id = ?`,
        now + wait,
        r.id,
      );
    }
    return out;
  }

  /** When the next lease expires (the time to arm the alarm for), or null without PENDING units. */
  nextExpiry(): number | null {
    return this.sql
      .exec<{ at: number | null }>(`SELECT MIN(lease_until) AS at FROM ${this.table} WHERE status = 'PENDING'`)
      .one().at;
  }
}
