/**
 * The Durable Object class bound as `UNITS` (wrangler.toml): leased units of work (./lease.ts, table task_units) of
 * work that has no task object of its own, and their watchdog on the object's alarm. One object per owner of such
 * work, by name: BYOC ingestion keeps one per collection (`byoc:<collection id>`, a unit per tile), Zarr ingestion
 * one per collection (`zarr:<collection id>`). The state the API shows stays where it was (D1 rows); the object only
 * makes sure every unit ends, resumed after a lost message or a killed Worker, or dead-lettered with a cause.
 * The alarm is armed for the next lease expiry; when it fires, every unit whose lease expired by then is sent again
 * (or dead-lettered once out of attempts). "By then" is the time the alarm was armed for (or now, when later), so
 * running an alarm early (a test's runDurableObjectAlarm) acts as if time had reached it.
 * Public methods are the RPC surface of ./runner.ts's LeaseStub (its stubs: unitsStub there, which Node scripts can
 * import: this module needs cloudflare:workers).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { Leases, leaseSchema, type Claim, type UnitSpec, type UnitView } from "./lease";
import { sendMessages } from "./runner";

const ALARM_SCHEMA =
  "CREATE TABLE IF NOT EXISTS task_alarm (k INTEGER PRIMARY KEY CHECK (k = 1), deadline INTEGER, armed INTEGER)";

export class UnitObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly leases: Leases;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of [ALARM_SCHEMA, ...leaseSchema("task_units")]) this.sql.exec(statement);
    this.leases = new Leases(this.sql, "task_units");
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

  /** Durable Object alarm handler: the lease watchdog (see the module docs). */
  override async alarm(): Promise<void> {
    const armed =
      this.sql.exec<{ armed: number | null }>("SELECT armed FROM task_alarm WHERE k = 1").toArray()[0]?.armed ?? 0;
    const sweep = this.leases.sweep(Math.max(Date.now(), armed), Date.now());
    await sendMessages(this.env, [...sweep.resend, ...sweep.dead]);
    if (sweep.resend.length + sweep.dead.length)
      console.log(`leases: ${sweep.resend.length} unit(s) re-sent, ${sweep.dead.length} out of attempts`);
    await this.arm();
  }

  /** Arms the alarm for the next lease expiry (deletes it when no unit is PENDING). */
  private async arm(): Promise<void> {
    const at = this.leases.nextExpiry();
    this.sql.exec(
      "INSERT INTO task_alarm (k, armed) VALUES (1, ?) ON CONFLICT(k) DO UPDATE SET armed = excluded.armed",
      at,
    );
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }
}
