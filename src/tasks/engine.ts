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
 * The alarm: the lease watchdog (./lease.ts sweep), the plug-in's timeout (`timeoutMs` after creation: FAILED) and
 * charges a failed call left owed.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { chargeUnits, usedUp } from "../accounts/units";
import { Leases } from "./lease";
import { canMove, checkTransition } from "./machine";
import type { UserAction } from "./machines";
import { insertListed, mirrorListed } from "./listing";
import { refuse, type Outcome } from "./outcome";
import { loadValue, storeValue, valueKey, withoutSecrets, withSecrets, type Secrets } from "./records";
import type { Failure, Plan, PlannedUnit, Task, TaskPlugin, UnitResult } from "./plugin";
import { sendMessages } from "./runner";
import { ASSEMBLE_UNIT, PLAN_UNIT, leaseId, unitMessage } from "./messages";
import type { QueueName, TaskMessage } from "./queue";
import { SCHEMA, unitState, type TaskRecord, type TaskRow, type UnitRow, type UnitState } from "./rows";

/** A new task: id, account, creation time and location (the engine sets the rest). */
export type NewTask = Pick<Task, "id" | "account" | "created" | "location" | "description">;

/** A unit as `begin` hands it out: its planned id (or PLAN_UNIT, ASSEMBLE_UNIT), data and memo. */
export interface BegunUnit {
  id: string;
  data: unknown;
  memo: string | null;
}

/**
 * What `begin` answers: run it (the task with its secret keys, the unit, renew within leaseMs), or why not: unknown,
 * finished, busy (another delivery's lease runs), idle (its task does not need it now), or exhausted (out of
 * attempts: the caller gives it up with `cause`, the task and unit given for the plug-in's `dead` hook).
 */
export type Begin =
  | { run: true; task: Task; unit: BegunUnit; leaseMs: number }
  | { run: false; reason: "unknown" | "finished" | "busy" | "idle" }
  | { run: false; reason: "exhausted"; cause: string; task: Task; unit: BegunUnit };

/**
 * How a unit ended, as `end` records it: a planned unit's result (counted done, or failed with `error`), the plan,
 * the assembly, a client error failing the task, a transient error (`retry`: counted failed after the last attempt,
 * else retried by the queue in retryMs), RunLater (`later` ms, no attempt used), or given up (`dead` with the cause).
 */
export type UnitEnd =
  | { result: UnitResult }
  | { plan: Plan }
  | { assembled: true }
  | { fail: string; failure?: Failure }
  | { retry: string; retryMs: number }
  | { later: number }
  | { dead: string };

/** The task and its units as stored (diagnostics and tests; not on the stub). */
export interface Inspection {
  state: string;
  done: number;
  failed: number;
  pu: number;
  deadline: number | null;
  /** The planned units, in order. */
  units: UnitState[];
  /** The plan and assembly units (when leased once). */
  phases: UnitState[];
}

/** Seconds before the alarm charges processing units a failed call left owed. */
const CHARGE_RETRY_MS = 30_000;
const TERMINAL = ["DONE", "FAILED", "PARTIAL"];

export abstract class TaskEngine extends DurableObject<Env> {
  protected abstract readonly plugin: TaskPlugin;
  private readonly sql: SqlStorage;
  private readonly leases: Leases;
  /** Messages to send once the change that called for them is stored (a lost send is re-sent by the watchdog). */
  private outbox: TaskMessage[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of SCHEMA) this.sql.exec(statement);
    this.leases = new Leases(this.sql, "units");
  }

  /**
   * Stores a new task (CREATED; its request in R2 when large, its secret keys apart) and its listing row; `start`
   * STARTs it at once (a kind without user actions). A second call answers the task as it is, after finishing what a
   * first call cut short while the task is still CREATED (its Worker died after the store): the listing row and the
   * start; for a task beyond CREATED it mirrors the listing again. @throws Error when the object holds another task.
   */
  async create(init: NewTask, request: unknown, start = false): Promise<Task> {
    const existing = this.record();
    if (existing && existing.id !== init.id) throw new Error(`task object already holds task ${existing.id}`);
    if (!existing) {
      const { value, secrets } = withoutSecrets(request);
      const stored = await storeValue(this.env, valueKey(init.id, "request"), value);
      const record: TaskRecord = { ...init, userAction: "NONE", userActionUpdated: init.created, estimatePU: null, units: null, version: 0 };
      const deadline = this.plugin.timeoutMs ? Date.now() + this.plugin.timeoutMs : null;
      this.sql.exec(
        "INSERT INTO task (k, record, request, secrets, state, updated, deadline) VALUES (1, ?, ?, ?, ?, ?, ?)",
        JSON.stringify(record), stored, Object.keys(secrets).length ? JSON.stringify(secrets) : null, this.plugin.machine.initial, init.created, deadline,
      );
      await this.arm();
    }
    if (!existing || this.row()!.state === this.plugin.machine.initial) {
      await insertListed(this.env, { ...init, kind: this.plugin.kind });
      if (start) await this.act(init.account, "START");
    } else await this.mirror();
    return (await this.task(init.account))!;
  }

  /** The task as `account` sees it (no secret keys); null when there is none or it is another account's. */
  async task(account: string): Promise<Task | null> {
    const r = this.record();
    return r && r.account === account ? this.taskOf(false) : null;
  }

  /** A user action of `account` (see the module docs); null when the task is not the account's. */
  async act(account: string, action: Exclude<UserAction, "NONE">): Promise<Outcome<Task> | null> {
    const r = this.record();
    if (!r || r.account !== account) return null;
    const state = this.row()!.state;
    if (action === "STOP") {
      if (!["ANALYSING", "ANALYSIS_DONE", "PROCESSING"].includes(state) || !canMove(this.plugin.machine, state, "STOPPED")) return refuse(state, action);
      this.atomically(() => this.stop({ ...acted(r, action), stoppedStatusReason: "USER_ACTION" }));
    } else if (state === "CREATED" || (state === "STOPPED" && r.units === null)) {
      this.atomically(() => (this.go("ANALYSING"), this.save(acted(r, action)), this.lease([PLAN_UNIT], "light")));
    } else if (action === "START" && (state === "ANALYSIS_DONE" || state === "STOPPED")) {
      this.atomically(() => (this.save(acted(r, action)), this.process()));
    } else if (action === "START" && state === "ANALYSING") this.save(acted(r, action));
    else return refuse(state, action);
    await this.afterChange();
    return { ok: true, value: (await this.task(account))! };
  }

  /**
   * Sets the description (Batch v2 PUT); refused while PROCESSING or ANALYSING after START ("being processed or
   * waiting to be processed", the spec). Null when the task is not the account's.
   */
  async describe(account: string, description: string | undefined): Promise<Outcome<Task> | null> {
    const r = this.record();
    if (!r || r.account !== account) return null;
    const { state } = this.row()!;
    if (state === "PROCESSING" || (state === "ANALYSING" && r.userAction === "START")) return refuse(state, "UPDATE");
    if (description !== undefined) this.save({ ...r, description });
    await this.mirror();
    return { ok: true, value: (await this.task(account))! };
  }

  /**
   * Begins unit `unit` (PLAN_UNIT, ASSEMBLE_UNIT or a planned unit's id) for `owner` (one delivery attempt): claims
   * its lease and answers the task and the unit (see {@link Begin}). `bury`: a dead letter's; nothing is claimed, a
   * unit the task still needs is answered exhausted (the caller gives it up).
   */
  async begin(unit: string, owner: string, bury = false): Promise<Begin> {
    const row = this.unitRow(unit);
    const task = this.row();
    if (!row || !task) return { run: false, reason: "unknown" };
    if (row.status !== "PENDING") return { run: false, reason: row.status === "IDLE" ? "idle" : "finished" };
    const needed = unit === PLAN_UNIT ? task.state === "ANALYSING" : task.state === "PROCESSING" && (unit !== ASSEMBLE_UNIT || this.pending() === 0);
    if (!needed) return { run: false, reason: "idle" };
    const claim = bury ? ({ run: false, reason: "exhausted", cause: "" } as const) : this.leases.claim(row.id, owner, Date.now());
    if (!claim.run && claim.reason !== "exhausted") return claim;
    const begun = { task: await this.taskOf(true), unit: { id: unit, data: row.data === null ? null : await loadValue(this.env, row.data), memo: row.memo } };
    return claim.run ? { run: true, leaseMs: claim.leaseMs, ...begun } : { ...claim, ...begun };
  }

  /**
   * Renews `owner`'s lease of `unit` (`live` false: the lease was lost, the owner must stop) and, given `memo`, keeps
   * it for the unit unless one was kept before; answers the memo kept.
   */
  renew(unit: string, owner: string, memo?: string): { live: boolean; memo: string | null } {
    const id = leaseId(unit);
    if (memo !== undefined) this.sql.exec("UPDATE units SET memo = COALESCE(memo, ?) WHERE id = ?", memo, id);
    return { live: this.leases.renew(id, owner, Date.now()), memo: this.unitRow(unit)?.memo ?? null };
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
    const r = this.record();
    if (!r || this.row()!.state !== "PROCESSING") return false;
    const rows = await this.storedUnits(r.id, units.filter((u) => !this.unitRow(u.id)));
    const added = this.atomically(() => {
      const now = this.record()!;
      if (this.row()!.state !== "PROCESSING") return false;
      const fresh = rows.filter(([id]) => !this.unitRow(id));
      this.insertUnits(fresh, now.units ?? 0);
      this.save({ ...now, units: (now.units ?? 0) + fresh.length });
      this.lease(fresh.map(([id]) => id), this.plugin.queue);
      return true;
    });
    if (added) await this.afterChange();
    return added;
  }

  /** The task and its units as stored (diagnostics and tests, through runInDurableObject; not on the stub). */
  inspect(): Inspection | null {
    const t = this.row();
    if (!t) return null;
    const rows = this.sql.exec<UnitRow>("SELECT * FROM units ORDER BY idx").toArray();
    const [units, phases] = [rows.filter((u) => u.idx !== null), rows.filter((u) => u.idx === null)].map((list) => list.map(unitState));
    return { state: t.state, done: t.done, failed: t.failed, pu: t.pu, deadline: t.deadline, units: units!, phases: phases! };
  }

  /** The alarm: the lease watchdog, then the timeout when due, then charges left owed (see the module docs). */
  override async alarm(): Promise<void> {
    const t = this.row();
    if (!t) return;
    const at = Math.max(Date.now(), t.armed ?? 0);
    const sweep = this.leases.sweep(at, Date.now());
    await sendMessages(this.env, [...sweep.resend, ...sweep.dead]);
    if (sweep.resend.length + sweep.dead.length) console.log(`task ${this.record()!.id}: ${sweep.resend.length} unit(s) re-sent, ${sweep.dead.length} out of attempts`);
    if (t.deadline !== null && t.deadline <= at) {
      this.sql.exec("UPDATE task SET deadline = NULL WHERE k = 1");
      await this.fail(`The ${this.plugin.machine.name} did not finish within ${(this.plugin.timeoutMs ?? 0) / 3_600_000} hours.`);
    }
    await this.afterChange();
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
    const r = this.record();
    if (!r || this.row()!.state !== "ANALYSING") return;
    const rows = await this.storedUnits(r.id, plan.units);
    const changed = this.atomically(() => {
      if (this.row()!.state !== "ANALYSING" || !this.leases.complete(PLAN_UNIT, "DONE")) return false;
      this.sql.exec("DELETE FROM units WHERE idx IS NOT NULL");
      this.insertUnits(rows, 0);
      const now = this.record()!;
      this.save({ ...now, units: plan.units.length, estimatePU: plan.estimatePU });
      this.go("ANALYSIS_DONE");
      if (now.userAction === "START") this.process();
      return true;
    });
    if (changed) await this.afterChange();
  }

  /**
   * Counts unit `unit` once (done, or failed with `result.error`) with its processing units, owed to the account until
   * charged; the last one ends the task (or sends the assembly). Nothing happens when it was counted before or the
   * task is not PROCESSING.
   */
  private async count(unit: string, result: UnitResult): Promise<void> {
    const failed = result.error !== undefined;
    const pu = failed || !(result.pu > 0) ? 0 : result.pu;
    const counted = this.atomically(() => {
      if (this.row()!.state !== "PROCESSING") return false;
      const won = this.sql.exec(
        "UPDATE units SET status = ?, cause = ?, pu = ?, owed = ?, owner = NULL WHERE id = ? AND status = 'PENDING' AND idx IS NOT NULL",
        failed ? "FAILED" : "DONE", result.error?.slice(0, 2000) ?? null, pu, pu > 0 ? 1 : 0, leaseId(unit),
      ).rowsWritten;
      if (!won) return false;
      this.sql.exec(`UPDATE task SET ${failed ? "failed = failed + 1" : "done = done + 1"}, pu = pu + ?, updated = ? WHERE k = 1`, pu, new Date().toISOString());
      const r = this.record()!;
      if (failed && this.plugin.failFast) this.finish("FAILED", { ...r, error: result.error, ...(result.failure ? { failure: result.failure } : {}) });
      else if (this.pending() === 0) this.finishProcessing(r);
      return true;
    });
    if (counted) await this.afterChange();
  }

  /** The assembly ran: the task ends DONE (once). */
  private async assembled(): Promise<void> {
    const ended = this.atomically(() => {
      if (this.row()!.state !== "PROCESSING" || this.pending() > 0 || !this.leases.complete(ASSEMBLE_UNIT, "DONE")) return false;
      this.finish("DONE", this.record()!);
      return true;
    });
    if (ended) await this.afterChange();
  }

  /** FAILS a task that is ANALYSING or PROCESSING with `error` (a plan refused, a lost assembly, a timeout). */
  private async fail(error: string, failure?: Failure): Promise<void> {
    const r = this.record();
    if (!r || !["ANALYSING", "PROCESSING"].includes(this.row()!.state)) return;
    this.atomically(() => this.finish("FAILED", { ...r, error: error.slice(0, 2000), ...(failure ? { failure } : {}) }));
    await this.afterChange();
  }

  /** Runs `f` in one transaction; when it throws, the messages it put in the outbox are dropped with its changes. */
  private atomically<T>(f: () => T): T {
    try {
      return this.ctx.storage.transactionSync(f);
    } catch (e) {
      this.outbox = [];
      throw e;
    }
  }

  private row(): TaskRow | undefined {
    return this.sql.exec<TaskRow>("SELECT * FROM task WHERE k = 1").toArray()[0];
  }

  private record(): TaskRecord | null {
    const row = this.row();
    return row ? (JSON.parse(row.record) as TaskRecord) : null;
  }

  private save(r: TaskRecord): void {
    this.sql.exec("UPDATE task SET record = ? WHERE k = 1", JSON.stringify({ ...r, version: r.version + 1 }));
  }

  /** The task as stored, its request with the secret keys put back when `secrets`. */
  private async taskOf(secrets: boolean): Promise<Task> {
    const t = this.row()!;
    const { version: _v, ...fields } = JSON.parse(t.record) as TaskRecord;
    let request = await loadValue(this.env, t.request);
    if (secrets && t.secrets) request = withSecrets(request, JSON.parse(t.secrets) as Secrets);
    return { ...fields, request, state: t.state, lastUpdated: t.updated, done: t.done, failed: t.failed, pu: Math.round(t.pu * 1e6) / 1e6 };
  }

  /** Units' data stored (in R2 when large): [id, stored data] pairs for {@link insertUnits}. */
  private storedUnits(task: string, units: PlannedUnit[]): Promise<(readonly [string, string])[]> {
    return Promise.all(units.map(async (u) => [u.id, await storeValue(this.env, valueKey(task, `unit-${u.id}`), u.data)] as const));
  }

  /** Inserts stored units IDLE (with the messages that will run them), numbered from `first` (inside a transaction). */
  private insertUnits(rows: readonly (readonly [string, string])[], first: number): void {
    const { kind, queue } = this.plugin;
    const task = this.record()!.id;
    rows.forEach(([id, data], i) =>
      this.sql.exec("INSERT INTO units (id, message, status, lease_until, idx, data) VALUES (?, ?, 'IDLE', 0, ?, ?)", leaseId(id), JSON.stringify(unitMessage(kind, task, id, queue)), first + i, data),
    );
  }

  private unitRow(unit: string): UnitRow | undefined {
    return this.sql.exec<UnitRow>("SELECT * FROM units WHERE id = ?", leaseId(unit)).toArray()[0];
  }

  /** Planned units not yet counted. */
  private pending(): number {
    const t = this.row()!;
    return (this.record()!.units ?? 0) - t.done - t.failed;
  }

  /** A checked move (inside a transaction). @throws TransitionError when the machine forbids it. */
  private go(to: string): void {
    checkTransition(this.plugin.machine, this.row()!.state, to);
    this.sql.exec("UPDATE task SET state = ?, updated = ? WHERE k = 1", to, new Date().toISOString());
  }

  /** -> STOPPED with record `r`: every leased unit back to IDLE (its owner's next renewal fails). */
  private stop(r: TaskRecord): void {
    this.go("STOPPED");
    this.save(r);
    this.sql.exec("UPDATE units SET status = 'IDLE', owner = NULL WHERE status = 'PENDING'");
  }

  /** -> PROCESSING with every IDLE planned unit leased and its message in the outbox; the end when none is left. */
  private process(): void {
    this.go("PROCESSING");
    const ids = this.sql.exec<{ id: string }>("SELECT id FROM units WHERE status = 'IDLE' AND idx IS NOT NULL ORDER BY idx").toArray();
    if (this.pending() === 0) this.finishProcessing(this.record()!);
    else this.lease(ids.map((u) => u.id.slice(2)), this.plugin.queue);
  }

  /** Leases units `units` (a unit leased again starts over) and puts their messages in the outbox. */
  private lease(units: string[], queue: QueueName): void {
    const id = this.record()!.id;
    const specs = units.map((u) => ({ id: leaseId(u), message: unitMessage(this.plugin.kind, id, u, queue) }));
    this.leases.put(specs, Date.now());
    this.outbox.push(...specs.map((u) => u.message));
  }

  /** Every unit counted: the assembly is leased (its message in the outbox), or the task ends DONE, PARTIAL or FAILED. */
  private finishProcessing(r: TaskRecord): void {
    const { done, failed } = this.row()!;
    const total = r.units ?? 0;
    if (total > 0 && failed === total) {
      const first = this.sql.exec<{ cause: string | null }>("SELECT cause FROM units WHERE cause IS NOT NULL AND idx IS NOT NULL ORDER BY idx LIMIT 1").toArray()[0]?.cause;
      return this.finish("FAILED", { ...r, error: `All ${total} ${this.plugin.machine.units} failed; first error: ${first ?? "unknown"}` });
    }
    if (failed > 0 && canMove(this.plugin.machine, "PROCESSING", "PARTIAL")) return this.finish("PARTIAL", r);
    if (this.plugin.assemble && done + failed === total) return this.lease([ASSEMBLE_UNIT], this.plugin.queue);
    this.finish("DONE", r);
  }

  /** Moves to a terminal state with record `r`; units still leased or idle are CANCELLED (nothing is left to do). */
  private finish(to: "DONE" | "FAILED" | "PARTIAL", r: TaskRecord): void {
    this.go(to);
    this.save(r);
    this.sql.exec(`UPDATE units SET status = 'CANCELLED', owner = NULL, cause = ? WHERE status IN ('PENDING', 'IDLE')`, `The ${this.plugin.machine.name} ended ${to}.`);
  }

  /**
   * After a change: owed processing units charged, the outbox sent, the listing mirrored, the alarm armed; the
   * plug-in's `ended` hook runs once for a terminal task, then its secret keys are dropped.
   */
  private async afterChange(): Promise<void> {
    await this.charge();
    await sendMessages(this.env, this.outbox.splice(0));
    await this.mirror();
    await this.arm();
    if (TERMINAL.includes(this.row()!.state) && this.sql.exec("UPDATE task SET ended = 1, deadline = NULL WHERE k = 1 AND ended = 0").rowsWritten) {
      await this.arm();
      await this.plugin.ended?.(this.env, await this.taskOf(true));
      this.sql.exec("UPDATE task SET secrets = NULL WHERE k = 1"); // nothing runs any more: the secret keys are not kept
    }
  }

  /**
   * Charges the processing units of counted units to the account, each under its own charge id (a retry after a
   * failure or a restart counts once); a PROCESSING task whose account is then out of units is STOPPED with
   * OUT_OF_PU when its machine can stop. A failed charge stays owed for the alarm.
   */
  private async charge(): Promise<void> {
    const r = this.record()!;
    let out = false;
    for (const u of this.sql.exec<{ id: string; pu: number }>("SELECT id, pu FROM units WHERE owed = 1").toArray()) {
      try {
        out = usedUp(await chargeUnits(this.env, r.account, u.pu, `task:${r.id}:${u.id}`)) || out;
        this.sql.exec("UPDATE units SET owed = 0 WHERE id = ?", u.id);
      } catch (e) {
        console.error(`task ${r.id}: charging unit ${u.id} failed (the alarm retries):`, String(e).slice(0, 300));
      }
    }
    if (out && this.row()!.state === "PROCESSING" && canMove(this.plugin.machine, "PROCESSING", "STOPPED"))
      this.atomically(() => this.stop({ ...this.record()!, stoppedStatusReason: "OUT_OF_PU" }));
  }

  /** Arms the alarm for the earliest of the deadline, the next lease expiry and an owed charge's retry (none: deleted). */
  private async arm(): Promise<void> {
    const t = this.row();
    if (!t) return;
    const owed = this.sql.exec("SELECT 1 FROM units WHERE owed = 1 LIMIT 1").toArray().length ? Date.now() + CHARGE_RETRY_MS : null;
    const next = [t.deadline, this.leases.nextExpiry(), owed].filter((at): at is number => at !== null);
    const at = next.length ? Math.min(...next) : null;
    this.sql.exec("UPDATE task SET armed = ? WHERE k = 1", at);
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /** Mirrors state and description into the listing under a new version (the listing ignores older ones). */
  private async mirror(): Promise<void> {
    const r = this.record();
    if (!r) return;
    this.save(r);
    await mirrorListed(this.env, r.id, this.row()!.state, r.description ?? "", r.version + 1);
  }
}

/** `r` after user action `action` (a STOPPED task's reason dropped). */
function acted(r: TaskRecord, action: UserAction): TaskRecord {
  const { stoppedStatusReason: _reason, ...rest } = r;
  return { ...rest, userAction: action, userActionUpdated: new Date().toISOString() };
}
