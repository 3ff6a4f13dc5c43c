/**
 * The task engine: the Durable Object class of one task of any kind, driven by its kind's plug-in (./plugin.ts has
 * the contract). Built on {@link TaskDurableObject} (machine edges, counters, once-only message ids, alarm) and its
 * leased units (./lease.ts, ./leased.ts). Storage (this object's SQLite): table engine_task (the record, one row:
 * the request stored by ./records.ts, in R2 when large, without secret keys), engine_secrets (the secret keys, deleted
 * once the task is terminal) and engine_units (the plan's units: data, status, error, memo), besides the base's.
 *
 * Lifecycle (Sentinel Hub's, interface spec "States and transitions"): ANALYSE moves CREATED (or a STOPPED task never
 * planned) to ANALYSING and sends the plan unit; the plan's units are stored and the task is ANALYSIS_DONE, then
 * PROCESSING when START was asked (START on CREATED analyses first, START while ANALYSING processes after it); each
 * PENDING unit is leased and sent; STOP stops any running phase (its queued units are acked without work, START
 * sends the unfinished ones again). A plug-in without user actions (async) is STARTed at creation. Units found while
 * PROCESSING (a subscription's new products) join with addUnits.
 * Exactly once: a unit is counted by applyMessage(`unit:<id>`) — done or failed, whichever comes first — and its
 * processing units charged with that count only; after the last one the assembly unit runs (when the plug-in has
 * one), then the task ends DONE, PARTIAL (some failed, when the machine has it) or FAILED (all failed, or the first
 * failure of a `failFast` plug-in). An account out of processing units STOPs a PROCESSING task (OUT_OF_PU).
 * Refused actions come back as data (Outcome, ./outcome.ts: 409 COMMON_CONFLICT); an illegal move inside the engine
 * throws (TransitionError), never ignored. Every change is mirrored into the D1 listing (./listing.ts).
 */
import type { Env } from "../env";
import { chargeUnits, usedUp } from "../accounts/units";
import { unwrap } from "./machine";
import { TaskDurableObject, type TaskSnapshot } from "./object";
import type { UserAction } from "./machines";
import { insertListed, mirrorListed } from "./listing";
import { refuse, type Outcome } from "./outcome";
import { loadValue, storeValue, valueKey, withoutSecrets, withSecrets, type Secrets } from "./records";
import type { PlannedUnit, Task, TaskPlugin, UnitResult } from "./plugin";
import { sendMessages } from "./runner";
import { ASSEMBLE_UNIT, PLAN_UNIT, leaseId, unitMessage } from "./messages";
import type { QueueName, TaskMessage } from "./queue";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS engine_task (k INTEGER PRIMARY KEY CHECK (k = 1), record TEXT NOT NULL, request TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS engine_secrets (k INTEGER PRIMARY KEY CHECK (k = 1), secrets TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS engine_units (id TEXT PRIMARY KEY, idx INTEGER NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'PENDING',
     error TEXT, memo TEXT)`,
];

/** The stored record: the task's own fields besides request, state and counters. */
type TaskRecord = Omit<Task, "request" | "state" | "lastUpdated" | "done" | "failed" | "pu"> & { version: number };

/** A new task: id, account, creation time and location (the engine sets the rest). */
export type NewTask = Pick<Task, "id" | "account" | "created" | "location" | "description">;

/** What a unit's message should do: nothing, or run with the task (its secrets in) and the unit. */
export type Work = { task: Task; unit: PlannedUnit & { memo: string | null } } | null;

export type UnitRow = { id: string; status: string; error: string | null };

const TERMINAL = new Set(["DONE", "FAILED", "PARTIAL"]);

export abstract class TaskEngine extends TaskDurableObject<string> {
  protected abstract readonly plugin: TaskPlugin;
  /** Messages to send once the change that called for them is stored (a lost send is re-sent by the watchdog). */
  private outbox: TaskMessage[] = [];

  protected get machine() {
    return this.plugin.machine;
  }

  protected override tables(): readonly string[] {
    return SCHEMA;
  }

  /**
   * Stores a new task (CREATED; its request in R2 when large, its secret keys apart) and its listing row; a plug-in
   * without user actions starts it at once unless `start` is false (tests that drive it by hand). A second call
   * answers the task as it is, after finishing what a first call cut short while the task is still CREATED (its
   * Worker died after the store): the listing row and the start; for a task beyond CREATED it mirrors the listing
   * again (a mirror lost with its Worker). @throws Error when the object holds another task.
   */
  async create(init: NewTask, request: unknown, start = !this.plugin.userActions): Promise<Task> {
    const existing = this.record();
    if (existing && existing.id !== init.id) throw new Error(`task object already holds task ${existing.id}`);
    if (!existing) {
      const { value, secrets } = withoutSecrets(request);
      const stored = await storeValue(this.env, valueKey(init.id, "request"), value);
      const record: TaskRecord = { ...init, userAction: "NONE", userActionUpdated: init.created, estimatePU: null, units: null, version: 0 };
      this.atomically(() => {
        this.sql.exec("INSERT INTO engine_task (k, record, request) VALUES (1, ?, ?)", JSON.stringify(record), stored);
        if (Object.keys(secrets).length) this.sql.exec("INSERT INTO engine_secrets (k, secrets) VALUES (1, ?)", JSON.stringify(secrets));
      });
      if (this.plugin.timeoutMs) await this.scheduleTimeout(this.plugin.timeoutMs);
    }
    if (!existing || this.snapshot().state === this.machine.initial) {
      await insertListed(this.env, { ...init, kind: this.plugin.kind });
      if (start) await this.act(init.account, "START");
    } else await this.mirror();
    return (await this.task(init.account))!;
  }

  /** The task as `account` sees it (no secret keys); null when there is none or it is another account's. */
  async task(account: string): Promise<Task | null> {
    const r = this.record();
    return r && r.account === account ? this.taskOf(r, false) : null;
  }

  /** A user action of `account` (see the module docs); null when the task is not the account's. */
  async act(account: string, action: Exclude<UserAction, "NONE">): Promise<Outcome<Task> | null> {
    const r = this.record();
    if (!r || r.account !== account) return null;
    const state = this.snapshot().state;
    const planned = r.units !== null;
    const refused = refuse(`The ${this.plugin.noun} ${r.id} is ${state}: ${action} is not possible now.`);
    if (action === "STOP") {
      if (!["ANALYSING", "ANALYSIS_DONE", "PROCESSING"].includes(state)) return refused;
      this.atomically(() => (this.go("STOPPED"), this.save({ ...this.acted(r, action), stoppedStatusReason: "USER_ACTION" })));
    } else if (state === "CREATED" || (state === "STOPPED" && !planned)) {
      this.atomically(() => (this.go("ANALYSING"), this.save(this.acted(r, action)), this.leaseUnits([PLAN_UNIT], "light")));
    } else if (action === "START" && (state === "ANALYSIS_DONE" || state === "STOPPED")) {
      this.atomically(() => (this.save(this.acted(r, action)), this.process()));
    } else if (action === "START" && state === "ANALYSING") this.save(this.acted(r, action));
    else return refused;
    await this.afterChange();
    return { ok: true, value: (await this.task(account))! };
  }

  /**
   * Sets the description (Batch v2 PUT); refused (409) while PROCESSING or ANALYSING after START ("being processed or
   * waiting to be processed", the spec). Null when the task is not the account's.
   */
  async describe(account: string, description: string | undefined): Promise<Outcome<Task> | null> {
    const r = this.record();
    if (!r || r.account !== account) return null;
    const { state } = this.snapshot();
    if (state === "PROCESSING" || (state === "ANALYSING" && r.userAction === "START"))
      return refuse(`The ${this.plugin.noun} is ${state}${state === "ANALYSING" ? " and waiting to be processed" : ""}: it cannot be updated until it is stopped or finished.`);
    if (description !== undefined) this.save({ ...r, description });
    await this.mirror();
    return { ok: true, value: (await this.task(account))! };
  }

  /** What the message of unit `id` (PLAN_UNIT, ASSEMBLE_UNIT or a planned unit) should do now (see {@link Work}). */
  async work(id: string): Promise<Work> {
    const r = this.record();
    const { state } = this.snapshot();
    if (!r) return null;
    if (id === PLAN_UNIT) return state === "ANALYSING" ? { task: await this.taskOf(r, true), unit: { id, data: null, memo: null } } : null;
    if (state !== "PROCESSING") return null;
    if (id === ASSEMBLE_UNIT) return this.pending() === 0 ? { task: await this.taskOf(r, true), unit: { id, data: null, memo: null } } : null;
    const row = this.unitRow(id);
    if (!row || row.status !== "PENDING") return null;
    return { task: await this.taskOf(r, true), unit: { id, data: await loadValue(this.env, row.data), memo: row.memo } };
  }

  /** The plan's result: its units stored, ANALYSING -> ANALYSIS_DONE, and on to PROCESSING after START. False when no longer ANALYSING. */
  async planned(units: PlannedUnit[], estimatePU: number | null): Promise<boolean> {
    const r = this.record();
    if (!r || this.snapshot().state !== "ANALYSING") return false;
    const rows = await this.storedUnits(r.id, units);
    this.atomically(() => {
      this.leases.complete(leaseId(PLAN_UNIT), "DONE");
      this.sql.exec("DELETE FROM engine_units");
      this.insertUnits(rows, 0);
      this.save({ ...r, units: units.length, estimatePU });
      this.go("ANALYSIS_DONE");
      if (r.userAction === "START") this.process();
    });
    await this.afterChange();
    return true;
  }

  /**
   * Adds units to a PROCESSING task after its plan (work found while it runs: a subscription's new products); ids it
   * has already are skipped; the rest are leased and sent. False when the task is not PROCESSING.
   */
  async addUnits(units: PlannedUnit[]): Promise<boolean> {
    const r = this.record();
    if (!r || this.snapshot().state !== "PROCESSING") return false;
    const rows = await this.storedUnits(r.id, units.filter((u) => !this.unitRow(u.id)));
    const added = this.atomically(() => {
      const now = this.record()!;
      if (this.snapshot().state !== "PROCESSING") return false;
      const fresh = rows.filter(([id]) => !this.unitRow(id));
      this.insertUnits(fresh, now.units ?? 0);
      this.save({ ...now, units: (now.units ?? 0) + fresh.length });
      if (fresh.length) this.leaseUnits(fresh.map(([id]) => id), this.plugin.queue);
      return true;
    });
    if (added) await this.afterChange();
    return added;
  }

  /** Keeps `value` for unit `id` unless one was kept before; returns the one kept. */
  memo(id: string, value: string): string {
    this.sql.exec("UPDATE engine_units SET memo = COALESCE(memo, ?) WHERE id = ?", value, id);
    return this.unitRow(id)?.memo ?? value;
  }

  /**
   * Counts unit `id` once (done, or failed with `result.error`) with its processing units, charged to the account;
   * the last one ends the task (or sends the assembly). False when it was counted before or the task is not PROCESSING.
   */
  async finishUnit(id: string, result: UnitResult): Promise<boolean> {
    const r = this.record()!;
    const failed = result.error !== undefined;
    const counted = this.atomically(() => {
      const row = this.unitRow(id);
      if (!row || row.status !== "PENDING" || this.snapshot().state !== "PROCESSING") return false;
      if (!unwrap(this.applyMessage(`unit:${id}`, { counters: { [failed ? "failed" : "done"]: 1, pu: failed ? 0 : result.pu } })).applied) return false;
      this.sql.exec("UPDATE engine_units SET status = ?, error = ? WHERE id = ?", failed ? "FAILED" : "DONE", result.error?.slice(0, 2000) ?? null, id);
      this.leases.complete(leaseId(id), failed ? "FAILED" : "DONE", result.error ?? null);
      if (failed && this.plugin.failFast) this.end("FAILED", { ...r, error: result.error, failure: result.failure });
      else if (this.pending() === 0) this.finishProcessing(r);
      return true;
    });
    if (!counted) return false;
    if (!failed) await this.charge(result.pu);
    await this.afterChange();
    return true;
  }

  /**
   * One failed attempt of unit `id` (a transient error): after the lease's last attempt the unit is counted failed
   * (`error` "(after N attempts)") and true is returned; before it false (the queue retries it).
   */
  async attemptFailed(id: string, error: string): Promise<boolean> {
    const attempts = this.leases.get(leaseId(id), Date.now())?.attempts ?? 0;
    if (attempts < this.leases.policy.maxAttempts) return false;
    await this.finishUnit(id, { pu: 0, error: `${error} (after ${attempts} attempts)` });
    return true;
  }

  /** The assembly ran: the task ends DONE (once). */
  async assembled(): Promise<void> {
    const r = this.record()!;
    if (this.snapshot().state !== "PROCESSING" || this.pending() > 0) return;
    this.atomically(() => {
      this.leases.complete(leaseId(ASSEMBLE_UNIT), "DONE");
      this.end("DONE", r);
    });
    await this.afterChange();
  }

  /** FAILS a task that is ANALYSING or PROCESSING with `error` (a plan refused, a lost assembly, a timeout). */
  async fail(error: string, failure?: { status: number; code: string }): Promise<void> {
    const r = this.record();
    if (!r || !["ANALYSING", "PROCESSING"].includes(this.snapshot().state)) return;
    this.atomically(() => this.end("FAILED", { ...r, error: error.slice(0, 2000), ...(failure ? { failure } : {}) }));
    await this.afterChange();
  }

  /** The planned units: id, status and error (diagnostics and tests). */
  unitList(): UnitRow[] {
    return this.sql.exec<UnitRow>("SELECT id, status, error FROM engine_units ORDER BY idx").toArray();
  }

  /** Timeout (plug-in's timeoutMs after creation): a task not yet terminal FAILS. */
  protected override async onTimeout(task: TaskSnapshot<string>): Promise<void> {
    if (!TERMINAL.has(task.state)) await this.fail(`The ${this.plugin.noun} did not finish within ${(this.plugin.timeoutMs ?? 0) / 3_600_000} hours.`);
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

  private record(): TaskRecord | null {
    const row = this.sql.exec<{ record: string }>("SELECT record FROM engine_task WHERE k = 1").toArray()[0];
    return row ? (JSON.parse(row.record) as TaskRecord) : null;
  }

  private save(r: TaskRecord): void {
    this.sql.exec("UPDATE engine_task SET record = ? WHERE k = 1", JSON.stringify({ ...r, version: r.version + 1 }));
  }

  private acted(r: TaskRecord, action: UserAction): TaskRecord {
    const { stoppedStatusReason: _reason, ...rest } = r;
    return { ...rest, userAction: action, userActionUpdated: new Date().toISOString() };
  }

  private async taskOf(r: TaskRecord, secrets: boolean): Promise<Task> {
    const s = this.snapshot();
    const stored = this.sql.exec<{ request: string }>("SELECT request FROM engine_task WHERE k = 1").one().request;
    let request = await loadValue(this.env, stored);
    const kept = this.sql.exec<{ secrets: string }>("SELECT secrets FROM engine_secrets WHERE k = 1").toArray()[0];
    if (secrets && kept) request = withSecrets(request, JSON.parse(kept.secrets) as Secrets);
    const { version: _v, ...fields } = this.record() ?? r;
    const c = s.counters;
    return { ...fields, request, state: s.state, lastUpdated: s.updated || r.created, done: c.done ?? 0, failed: c.failed ?? 0, pu: Math.round((c.pu ?? 0) * 1e6) / 1e6 };
  }

  /** Units' data stored (in R2 when large): [id, stored data] pairs for {@link insertUnits}. */
  private storedUnits(task: string, units: PlannedUnit[]): Promise<(readonly [string, string])[]> {
    return Promise.all(units.map(async (u) => [u.id, await storeValue(this.env, valueKey(task, `unit-${u.id}`), u.data)] as const));
  }

  /** Inserts stored units PENDING, numbered from `first` (inside a transaction). */
  private insertUnits(rows: readonly (readonly [string, string])[], first: number): void {
    rows.forEach(([id, data], i) => this.sql.exec("INSERT INTO engine_units (id, idx, data) VALUES (?, ?, ?)", id, first + i, data));
  }

  private unitRow(id: string) {
    return this.sql.exec<{ data: string; status: string; memo: string | null }>("SELECT data, status, memo FROM engine_units WHERE id = ?", id).toArray()[0];
  }

  private pending(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM engine_units WHERE status = 'PENDING'").one().n;
  }

  /** A checked move (inside a transaction). @throws TransitionError when the machine forbids it. */
  private go(to: string): void {
    unwrap(this.transition(to));
  }

  /** -> PROCESSING with every PENDING unit leased and its message in the outbox; the end when none is left. */
  private process(): void {
    const r = this.record()!;
    this.go("PROCESSING");
    const ids = this.sql.exec<{ id: string }>("SELECT id FROM engine_units WHERE status = 'PENDING' ORDER BY idx").toArray().map((u) => u.id);
    if (ids.length === 0) this.finishProcessing(r);
    else this.leaseUnits(ids, this.plugin.queue);
  }

  /** Leases units `ids` (a unit leased again starts over) and puts their messages in the outbox. */
  private leaseUnits(ids: string[], queue: QueueName): void {
    const id = this.record()!.id;
    const units = ids.map((u) => ({ id: leaseId(u), message: unitMessage(this.plugin.kind, id, u, queue) }));
    this.leases.put(units, Date.now());
    this.outbox.push(...units.map((u) => u.message));
  }

  /** Every unit counted: the assembly is leased (its message in the outbox), or the task ends DONE, PARTIAL or FAILED. */
  private finishProcessing(r: TaskRecord): void {
    const { done = 0, failed = 0 } = this.snapshot().counters;
    const total = r.units ?? 0;
    if (total > 0 && failed === total) {
      const first = this.sql.exec<{ error: string | null }>("SELECT error FROM engine_units WHERE error IS NOT NULL ORDER BY idx LIMIT 1").toArray()[0]?.error;
      return this.end("FAILED", { ...r, error: `All ${total} ${this.plugin.unitNoun} failed; first error: ${first ?? "unknown"}` });
    }
    if (failed > 0 && this.machine.transitions.PROCESSING!.includes("PARTIAL")) return this.end("PARTIAL", r);
    if (this.plugin.assemble && done + failed === total) return this.leaseUnits([ASSEMBLE_UNIT], this.plugin.queue);
    this.end("DONE", r);
  }

  /** Moves to a terminal state with record `r` (afterChange then runs the `ended` hook and drops the secret keys). */
  private end(to: "DONE" | "FAILED" | "PARTIAL", r: TaskRecord): void {
    this.go(to);
    this.save(r);
  }

  /**
   * After a change: the outbox sent, the listing mirrored, the watchdog armed; the plug-in's `ended` hook runs once for
   * a terminal task (once-only id `ended`).
   */
  private async afterChange(): Promise<void> {
    const messages = this.outbox.splice(0);
    await sendMessages(this.env, messages);
    await this.mirror();
    await this.arm();
    const state = this.snapshot().state;
    if (TERMINAL.has(state) && !this.processed("ended")) {
      this.applyMessage("ended", {});
      if (this.plugin.timeoutMs) await this.cancelTimeout();
      await this.plugin.ended?.(this.env, await this.taskOf(this.record()!, true));
      this.sql.exec("DELETE FROM engine_secrets"); // nothing runs any more: the secret keys are not kept
    }
  }

  /**
   * Charges a counted unit's processing units to the account (once: only after its count was applied); a PROCESSING
   * task of a plug-in with user actions whose account is then out of units is STOPPED with OUT_OF_PU.
   */
  private async charge(pu: number): Promise<void> {
    if (!(pu > 0)) return;
    const r = this.record()!;
    const usage = await chargeUnits(this.env, r.account, pu);
    if (!usedUp(usage) || !this.plugin.userActions || this.snapshot().state !== "PROCESSING") return;
    this.atomically(() => (this.go("STOPPED"), this.save({ ...this.record()!, stoppedStatusReason: "OUT_OF_PU" })));
  }

  /** Mirrors state and description into the listing under a new version (the listing ignores older ones). */
  private async mirror(): Promise<void> {
    const r = this.record();
    if (!r) return;
    this.save(r);
    await mirrorListed(this.env, r.id, this.snapshot().state, r.description ?? "", r.version + 1);
  }
}
