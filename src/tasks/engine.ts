/**
 * The task engine: the one Durable Object class of a task of any kind, driven by its kind's plug-in (./plugin.ts has
 * the contract). Storage: one task row and one row per unit (./rows.ts).
 *
 * Lifecycle (Sentinel Hub's, interface spec "States and transitions"): ANALYSE moves CREATED (or a STOPPED task never
 * planned) to ANALYSING and sends the plan unit; the plan's units are stored IDLE and the task is ANALYSIS_DONE, then
 * PROCESSING when START was asked (START on CREATED analyses first, START while ANALYSING processes after it): each
 * IDLE unit is leased (PENDING) and sent; STOP stops any running phase (its units go back to IDLE: a delivery's next
 * renewal fails, so its work stops; START sends them again). Units found while PROCESSING (a subscription's new
 * products) join with addUnits.
 * A unit's message runs through two calls (./work.ts): `begin` claims its lease and answers the task, the unit and
 * its memo; `end` records how it ended. `renew` keeps the lease (and a memo) while it runs. A unit is counted once,
 * by one conditional update of its row (./rows.ts), with its processing units, which are then charged to the account
 * under an id of their own (so a charge retried after a restart counts once); after the last one the assembly unit
 * runs (when the plug-in has one), then the task ends DONE, PARTIAL (some failed, when the machine has it) or FAILED
 * (all failed, or the first failure of a `failFast` plug-in). An account out of processing units STOPs a PROCESSING
 * task (OUT_OF_PU) whose machine can stop. Refused user actions come back as data (./outcome.ts); an illegal move
 * inside the engine throws (TransitionError). Every change is mirrored into the D1 listing (./listing.ts).
 * The moves themselves (one transaction each, checked against the plug-in's machine) are ./moves.ts's; this class
 * is the Durable Object around them: its verbs over RPC, the loads and stores in R2, and after each change the
 * charges, the messages sent, the listing mirrored and the alarm armed.
 * The alarm: the lease watchdog (./lease.ts sweep), the plug-in's timeout (`timeoutMs` after creation: FAILED) and
 * charges a failed call left owed.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { chargeUnits, usedUp } from "../accounts/units";
import { Leases } from "./lease";
import { migrateOldTask } from "./legacy";
import { canMove } from "./machine";
import type { UserAction } from "./machines";
import { insertListed, mirrorListed } from "./listing";
import { TaskMoves } from "./moves";
import { refuse, type Outcome } from "./outcome";
import { loadValue, storeUnits, storeValue, valueKey, withoutSecrets, withSecrets, type Secrets } from "./records";
import type { Failure, Plan, PlannedUnit, Task, TaskPlugin, UnitResult } from "./plugin";
import { sendMessages } from "./runner";
import { ASSEMBLE_UNIT, PLAN_UNIT, leaseId } from "./messages";
import { TaskRows, type TaskRecord } from "./rows";
import type { Begin, Inspection, NewTask, UnitEnd } from "./verbs";

/** Seconds before the alarm charges processing units a failed call left owed. */
const CHARGE_RETRY_MS = 30_000;
const TERMINAL = ["DONE", "FAILED", "PARTIAL"];

export abstract class TaskEngine extends DurableObject<Env> {
  protected abstract readonly plugin: TaskPlugin;
  private readonly rows: TaskRows;
  private readonly leases: Leases;
  private movesOf?: TaskMoves;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.rows = new TaskRows(ctx.storage.sql);
    ctx.storage.transactionSync(() => migrateOldTask(ctx.storage.sql));
    this.leases = new Leases(ctx.storage.sql, "units");
  }

  /** The moves of the task's state (./moves.ts); made on first use, once the subclass has set its plug-in. */
  private get moves(): TaskMoves {
    return (this.movesOf ??= new TaskMoves(this.ctx.storage, this.rows, this.leases, this.plugin));
  }

  /**
   * Stores a new task (CREATED; its request in R2 when large, its secret keys apart) and its listing row; `start`
   * STARTs it at once (a kind without user actions). A second call answers the task as it is, after finishing what a
   * first call cut short while the task is still CREATED (its Worker died after the store): the listing row and the
   * start; for a task beyond CREATED it mirrors the listing again. @throws Error when the object holds another task.
   */
  async create(init: NewTask, request: unknown, start = false): Promise<Task> {
    const existing = this.rows.record();
    if (existing && existing.id !== init.id) throw new Error(`task object already holds task ${existing.id}`);
    if (!existing) {
      const { value, secrets } = withoutSecrets(request);
      const stored = await storeValue(this.env, valueKey(init.id, "request"), value);
      const record: TaskRecord = {
        ...init,
        userAction: "NONE",
        userActionUpdated: init.created,
        estimatePU: null,
        units: null,
        version: 0,
      };
      const deadline = this.plugin.timeoutMs ? Date.now() + this.plugin.timeoutMs : null;
      this.rows.insert(
        record,
        stored,
        Object.keys(secrets).length ? JSON.stringify(secrets) : null,
        this.plugin.machine.initial,
        deadline,
      );
      await this.arm();
    }
    if (!existing || this.rows.row()!.state === this.plugin.machine.initial) {
      await insertListed(this.env, { ...init, kind: this.plugin.kind });
      if (start) await this.act(init.account, "START");
    } else await this.mirror();
    return (await this.task(init.account))!;
  }

  /** The task as `account` sees it (no secret keys); null when there is none or it is another account's. */
  async task(account: string): Promise<Task | null> {
    const r = this.rows.record();
    return r && r.account === account ? this.taskOf(false) : null;
  }

  /** A user action of `account` (see the module docs); null when the task is not the account's. */
  async act(account: string, action: Exclude<UserAction, "NONE">): Promise<Outcome<Task> | null> {
    const r = this.rows.record();
    if (!r || r.account !== account) return null;
    const refused = this.moves.act(r, action);
    if (refused) return refused;
    await this.afterChange();
    return { ok: true, value: (await this.task(account))! };
  }

  /**
   * Sets the description (Batch v2 PUT); refused while PROCESSING or ANALYSING after START ("being processed or
   * waiting to be processed", the spec). Null when the task is not the account's.
   */
  async describe(account: string, description: string | undefined): Promise<Outcome<Task> | null> {
    const r = this.rows.record();
    if (!r || r.account !== account) return null;
    const { state } = this.rows.row()!;
    if (state === "PROCESSING" || (state === "ANALYSING" && r.userAction === "START")) return refuse(state, "UPDATE");
    if (description !== undefined) this.rows.save({ ...r, description });
    await this.mirror();
    return { ok: true, value: (await this.task(account))! };
  }

  /**
   * Begins unit `unit` (PLAN_UNIT, ASSEMBLE_UNIT or a planned unit's id) for `owner` (one delivery attempt): claims
   * its lease and answers the task and the unit (see {@link Begin}). `bury`: a dead letter's; nothing is claimed, a
   * unit the task still needs is answered exhausted (the caller gives it up).
   */
  async begin(unit: string, owner: string, bury = false): Promise<Begin> {
    const row = this.rows.unit(unit);
    const task = this.rows.row();
    if (!row || !task) return { run: false, reason: "unknown" };
    if (row.status !== "PENDING") return { run: false, reason: row.status === "IDLE" ? "idle" : "finished" };
    const needed =
      unit === PLAN_UNIT
        ? task.state === "ANALYSING"
        : task.state === "PROCESSING" && (unit !== ASSEMBLE_UNIT || this.rows.pending() === 0);
    if (!needed) return { run: false, reason: "idle" };
    const claim = bury
      ? ({ run: false, reason: "exhausted", cause: "" } as const)
      : this.leases.claim(row.id, owner, Date.now());
    if (!claim.run && claim.reason !== "exhausted") return claim;
    const begun = {
      task: await this.taskOf(true),
      unit: { id: unit, data: row.data === null ? null : await loadValue(this.env, row.data), memo: row.memo },
    };
    return claim.run ? { run: true, leaseMs: claim.leaseMs, ...begun } : { ...claim, ...begun };
  }

  /**
   * Renews `owner`'s lease of `unit` (`live` false: the lease was lost, the owner must stop) and, given `memo`, keeps
   * it for the unit unless one was kept before; answers the memo kept.
   */
  renew(unit: string, owner: string, memo?: string): { live: boolean; memo: string | null } {
    const id = leaseId(unit);
    if (memo !== undefined) this.rows.remember(unit, memo);
    return { live: this.leases.renew(id, owner, Date.now()), memo: this.rows.unit(unit)?.memo ?? null };
  }

  /**
   * Records how `unit` of `owner` ended (see {@link UnitEnd}). False only for a transient error the queue should
   * retry; true when the end is recorded or nothing is left to do.
   */
  async end(unit: string, owner: string, how: UnitEnd): Promise<boolean> {
    if ("later" in how) {
      this.leases.snooze(leaseId(unit), owner, Date.now() + how.later);
      await this.arm();
    } else if ("retry" in how) return this.attemptFailed(unit, owner, how.retry, how.retryMs);
    else if ("plan" in how) await this.planned(how.plan);
    else if ("assembled" in how) await this.assembled();
    else if ("fail" in how) await this.fail(how.fail, how.failure);
    else if ("dead" in how && (unit === PLAN_UNIT || unit === ASSEMBLE_UNIT)) await this.fail(how.dead);
    else await this.count(unit, "dead" in how ? { pu: 0, error: how.dead } : how.result);
    return true;
  }

  /**
   * Adds units to a PROCESSING task after its plan (work found while it runs: a subscription's new products); ids it
   * has already are skipped; the rest are leased and sent. False when the task is not PROCESSING.
   */
  async addUnits(units: PlannedUnit[]): Promise<boolean> {
    const r = this.rows.record();
    if (!r || this.rows.row()!.state !== "PROCESSING") return false;
    const rows = await storeUnits(
      this.env,
      r.id,
      units.filter((u) => !this.rows.unit(u.id)),
    );
    const added = this.moves.added(rows);
    if (added) await this.afterChange();
    return added;
  }

  /** The task and its units as stored (diagnostics and tests, through runInDurableObject; not on the stub). */
  inspect(): Inspection | null {
    return this.rows.inspect();
  }

  /** The alarm: the lease watchdog, then the timeout when due, then charges left owed (see the module docs). */
  override async alarm(): Promise<void> {
    const t = this.rows.row();
    if (!t) return;
    const at = Math.max(Date.now(), t.armed ?? 0);
    const sweep = this.leases.sweep(at, Date.now());
    await sendMessages(this.env, [...sweep.resend, ...sweep.dead]);
    if (sweep.resend.length + sweep.dead.length)
      console.log(
        `task ${this.rows.record()!.id}: ${sweep.resend.length} unit(s) re-sent, ${sweep.dead.length} out of attempts`,
      );
    if (t.deadline !== null && t.deadline <= at) {
      this.rows.set("deadline", null);
      await this.fail(
        `The ${this.plugin.machine.name} did not finish within ${(this.plugin.timeoutMs ?? 0) / 3_600_000} hours.`,
      );
    }
    if (this.rows.owed().length) await this.afterChange();
    else await this.arm();
  }

  /** One failed attempt of `unit` (a transient error): counted failed after the lease's last attempt, else released for the queue's retry. */
  private async attemptFailed(unit: string, owner: string, error: string, retryMs: number): Promise<boolean> {
    const lease = this.leases.get(leaseId(unit), Date.now());
    if (unit !== PLAN_UNIT && unit !== ASSEMBLE_UNIT && lease && lease.attempts >= this.leases.policy.maxAttempts) {
      await this.count(unit, { pu: 0, error: `${error} (after ${lease.attempts} attempts)` });
      return true;
    }
    this.leases.release(leaseId(unit), owner, Date.now(), retryMs);
    await this.arm();
    return false;
  }

  /** The plan's result: its units stored IDLE, ANALYSING -> ANALYSIS_DONE, and on to PROCESSING after START. */
  private async planned(plan: Plan): Promise<void> {
    const r = this.rows.record();
    if (!r || this.rows.row()!.state !== "ANALYSING") return;
    const rows = await storeUnits(this.env, r.id, plan.units);
    if (this.moves.planned(plan, rows)) await this.afterChange();
  }

  /** Counts unit `unit` once, done or failed (./moves.ts `counted`); nothing happens when it was counted before. */
  private async count(unit: string, result: UnitResult): Promise<void> {
    if (this.moves.counted(unit, result)) await this.afterChange();
  }

  /** The assembly ran: the task ends DONE (once). */
  private async assembled(): Promise<void> {
    if (this.moves.assembled()) await this.afterChange();
  }

  /** FAILS a task that is ANALYSING or PROCESSING with `error` (a plan refused, a lost assembly, a timeout). */
  private async fail(error: string, failure?: Failure): Promise<void> {
    if (this.moves.failed(error, failure)) await this.afterChange();
  }

  /** The task as stored, its request with the secret keys put back when `secrets`. */
  private async taskOf(secrets: boolean): Promise<Task> {
    const t = this.rows.row()!;
    const { version: _v, ...fields } = JSON.parse(t.record) as TaskRecord;
    let request = await loadValue(this.env, t.request);
    if (secrets && t.secrets) request = withSecrets(request, JSON.parse(t.secrets) as Secrets);
    return {
      ...fields,
      request,
      state: t.state,
      lastUpdated: t.updated,
      done: t.done,
      failed: t.failed,
      pu: Math.round(t.pu * 1e6) / 1e6,
    };
  }

  /**
   * After a change: owed processing units charged, the outbox sent, the listing mirrored, the alarm armed; the
   * plug-in's `ended` hook runs once for a terminal task, then its secret keys are dropped.
   */
  private async afterChange(): Promise<void> {
    await this.charge();
    await sendMessages(this.env, this.moves.outbox.splice(0));
    await this.mirror();
    await this.arm();
    if (TERMINAL.includes(this.rows.row()!.state) && this.rows.markEnded()) {
      await this.arm();
      await this.plugin.ended?.(this.env, await this.taskOf(true));
      this.rows.set("secrets", null); // nothing runs any more: the secret keys are not kept
    }
  }

  /**
   * Charges the processing units of counted units to the account, each under its own charge id (a retry after a
   * failure or a restart counts once); a PROCESSING task whose account is then out of units is STOPPED with
   * OUT_OF_PU when its machine can stop. A failed charge stays owed for the alarm.
   */
  private async charge(): Promise<void> {
    const r = this.rows.record()!;
    let out = false;
    for (const u of this.rows.owed()) {
      try {
        out = usedUp(await chargeUnits(this.env, r.account, u.pu, `task:${r.id}:${u.id}`)) || out;
        this.rows.paid(u.id);
      } catch (e) {
        console.error(`task ${r.id}: charging unit ${u.id} failed (the alarm retries):`, String(e).slice(0, 300));
      }
    }
    if (out && this.rows.row()!.state === "PROCESSING" && canMove(this.plugin.machine, "PROCESSING", "STOPPED"))
      this.moves.stop({ ...this.rows.record()!, stoppedStatusReason: "OUT_OF_PU" });
  }

  /** Arms the alarm for the earliest of the deadline, the next lease expiry and an owed charge's retry (none: deleted). */
  private async arm(): Promise<void> {
    const t = this.rows.row();
    if (!t) return;
    const owed = this.rows.owed().length ? Date.now() + CHARGE_RETRY_MS : null;
    const next = [t.deadline, this.leases.nextExpiry(), owed].filter((at): at is number => at !== null);
    const at = next.length ? Math.min(...next) : null;
    this.rows.set("armed", at);
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /** Mirrors state and description into the listing under a new version (the listing ignores older ones). */
  private async mirror(): Promise<void> {
    const r = this.rows.record();
    if (!r) return;
    this.rows.save(r);
    await mirrorListed(this.env, r.id, this.rows.row()!.state, r.description ?? "", r.version + 1);
  }
}
