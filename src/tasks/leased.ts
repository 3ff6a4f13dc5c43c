/**
 * The Durable Object base that keeps leased units of work (./lease.ts) and runs their watchdog, beside an optional
 * timeout (a deadline), on the object's one alarm:
 * - the alarm is armed for the earlier of the deadline and the next lease expiry;
 * - when it fires, every unit whose lease expired by then is sent again (or dead-lettered once out of attempts),
 *   and the timeout hook ({@link deadlineReached}) runs when the deadline is due; then the alarm is armed again.
 * "By then" is the time the alarm was armed for (or now, when later), so running an alarm early (a test's
 * runDurableObjectAlarm) acts as if time had reached it. Subclasses: TaskDurableObject (./object.ts, a task's state
 * machine) and UnitObject (./unit-object.ts, for work without a task object of its own, e.g. BYOC ingestion).
 * Public methods are the RPC surface the queue consumer's runner uses (./runner.ts).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { LEASE_SCHEMA, Leases, type Claim, type UnitSpec, type UnitView } from "./lease";
import { sendMessages } from "./runner";

const ALARM_SCHEMA = "CREATE TABLE IF NOT EXISTS task_alarm (k INTEGER PRIMARY KEY CHECK (k = 1), deadline INTEGER, armed INTEGER)";

export abstract class LeasedObject extends DurableObject<Env> {
  /** The object's SQLite storage; subclasses keep their own tables in it. */
  protected readonly sql: SqlStorage;
  protected readonly leases: Leases;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of [ALARM_SCHEMA, ...LEASE_SCHEMA]) this.sql.exec(statement);
    this.leases = new Leases(this.sql);
  }

  /**
   * Puts units PENDING under a queued lease (a unit put again starts over, unless `onlyIdle` and its work is under
   * way: then it is left alone); the caller sends their messages. Returns the ids put.
   */
  async putUnits(units: UnitSpec[], onlyIdle = false): Promise<string[]> {
    const put = this.leases.put(units, Date.now(), onlyIdle);
    await this.arm();
    return put;
  }

  /** Claims unit `id` for `owner` (one delivery attempt). */
  claimUnit(id: string, owner: string): Claim {
    return this.leases.claim(id, owner, Date.now());
  }

  /** Renews `owner`'s lease of unit `id`; false when the lease was lost (the owner must stop) or the unit finished. */
  renewUnit(id: string, owner: string): boolean {
    return this.leases.renew(id, owner, Date.now());
  }

  /** A failed attempt the queue retries in `retryMs`: the unit waits for it (then its lease) without an owner. */
  async releaseUnit(id: string, owner: string, retryMs: number): Promise<void> {
    this.leases.release(id, owner, Date.now(), retryMs);
    await this.arm();
  }

  /** `owner`'s work asked unit `id` to run again in `ms` (./runner.ts RunLater): re-sent then, its attempts restored. */
  async snoozeUnit(id: string, owner: string, ms: number): Promise<void> {
    this.leases.snooze(id, owner, Date.now() + ms);
    await this.arm();
  }

  /** Ends unit `id` DONE or FAILED once; false when it had ended before. */
  completeUnit(id: string, status: "DONE" | "FAILED", cause?: string): boolean {
    return this.leases.complete(id, status, cause ?? null);
  }

  /** Unit `id` as stored, or null. */
  unit(id: string): UnitView | null {
    return this.leases.get(id, Date.now());
  }

  /** Arms the timeout: {@link deadlineReached} runs `ms` milliseconds from now (replacing an earlier deadline). */
  async scheduleTimeout(ms: number): Promise<void> {
    this.setDeadline(Date.now() + ms);
    await this.arm();
  }

  /** Disarms the timeout (e.g. when the task finished); the alarm stays armed for pending units. */
  async cancelTimeout(): Promise<void> {
    this.setDeadline(null);
    await this.arm();
  }

  /** Durable Object alarm handler: the lease watchdog, then the timeout when due (see the module docs). */
  override async alarm(): Promise<void> {
    const row = this.alarmRow();
    const at = Math.max(Date.now(), row?.armed ?? 0);
    const sweep = this.leases.sweep(at, Date.now());
    await sendMessages(this.env, [...sweep.resend, ...sweep.dead]);
    if (sweep.resend.length + sweep.dead.length) console.log(`leases: ${sweep.resend.length} unit(s) re-sent, ${sweep.dead.length} out of attempts`);
    // an alarm armed before this table existed (no row) was a timeout
    const deadline = row ? row.deadline : at;
    if (deadline !== null && deadline <= at) {
      this.setDeadline(null);
      await this.deadlineReached();
    }
    await this.arm();
  }

  /** Timeout hook: runs when the deadline set by {@link scheduleTimeout} is reached. */
  protected async deadlineReached(): Promise<void> {}

  /** Arms the alarm for the earlier of the deadline and the next lease expiry (deletes it when there is neither). */
  protected async arm(): Promise<void> {
    const deadline = this.alarmRow()?.deadline ?? null;
    const next = [deadline, this.leases.nextExpiry()].filter((t): t is number => t !== null);
    const at = next.length ? Math.min(...next) : null;
    this.sql.exec("INSERT INTO task_alarm (k, deadline, armed) VALUES (1, ?, ?) ON CONFLICT(k) DO UPDATE SET armed = excluded.armed", deadline, at);
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  private alarmRow(): { deadline: number | null; armed: number | null } | undefined {
    return this.sql.exec<{ deadline: number | null; armed: number | null }>("SELECT deadline, armed FROM task_alarm WHERE k = 1").toArray()[0];
  }

  private setDeadline(deadline: number | null): void {
    this.sql.exec("INSERT INTO task_alarm (k, deadline) VALUES (1, ?) ON CONFLICT(k) DO UPDATE SET deadline = excluded.deadline", deadline);
  }
}
