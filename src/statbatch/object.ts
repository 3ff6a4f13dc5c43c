/**
 * The Durable Object class of one Statistical Batch task (/api/v1/statistics/batch): its state machine
 * (src/tasks/machines.ts) on the {@link TaskDurableObject} base (atomic transitions, counters, once-only message
 * ids, timeout alarm), plus the task's record (account, request, user action, error) and its features (read from
 * the GeoPackage at analysis), each pending, done or failed.
 *
 * Counting: a feature is counted once, whatever the number of messages that carry it (redeliveries, a restart
 * after STOP): {@link finishFeature} applies the change under the once-only id `feature:<fid>`. When the last
 * feature is counted the task moves to DONE (none failed), PARTIAL (some failed) or FAILED (all failed).
 * The analysis and each feature are leased units (src/tasks/lease.ts), put with the move that calls for them: one
 * whose message or Worker was lost is sent again when its lease expires, by the base class's alarm.
 * Every state change is mirrored into D1 (./listing.ts) for the account's task list.
 */
import { TaskDurableObject, type TaskSnapshot } from "../tasks/object";
import { STATISTICAL_BATCH_MACHINE, type StatisticalBatchState, type UserAction } from "../tasks/machines";
import { mirrorStatus } from "./listing";
import type { BatchStatisticalRequest } from "./schema";
import type { BatchFeature } from "./features";
import { ANALYSIS_UNIT, analysisMessage, enqueueAnalysis, featureMessage, featureUnitId, sendFeatureMessages } from "./run";
import { chargeUnits, usedUp } from "../accounts/units";

/** The watchdog's period: a running task without progress for this long is looked at (see onTimeout). */
export const STALL_MS = 30 * 60_000;
/** Rounds of re-enqueueing before a stalled task FAILS. */
export const MAX_STALLS = 3;

export type { UserAction } from "../tasks/machines";
export type StoppedReason = "USER_ACTION" | "OUT_OF_PU";
/** What the caller must enqueue after an action: the analysis, the pending features, or nothing. */
export type FollowUp = "analyse" | "features" | "none";

/** The task as the API shows it. Times are ISO 8601 UTC; `pu` in processing units. */
export interface TaskView {
  id: string;
  account: string;
  request: BatchStatisticalRequest;
  created: string;
  userAction: UserAction;
  userActionUpdated?: string;
  error?: string;
  /** Why a STOPPED task stopped (Sentinel Hub's values): the user, or the account ran out of processing units. */
  stoppedStatusReason?: StoppedReason;
  state: StatisticalBatchState;
  lastUpdated: string;
  total: number;
  done: number;
  failed: number;
  pu: number;
}

/** One feature's work: what the consumer needs to compute it. */
export interface FeatureJob {
  taskId: string;
  account: string;
  /** Location id that accepted the task; the feature is computed as that location. */
  location?: string;
  state: StatisticalBatchState;
  request: BatchStatisticalRequest;
  feature: BatchFeature;
  finished: boolean;
}

interface RecordRow extends Record<string, SqlStorageValue> {
  id: string;
  account: string;
  request: string;
  created: string;
  user_action: string;
  user_action_updated: string | null;
  error: string | null;
  stopped_reason: string | null;
  location: string | null;
  version: number;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS sb_record (k INTEGER PRIMARY KEY CHECK (k = 1), id TEXT NOT NULL, account TEXT NOT NULL, request TEXT NOT NULL,
     created TEXT NOT NULL, user_action TEXT NOT NULL, user_action_updated TEXT, error TEXT, stopped_reason TEXT, location TEXT,
     version INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS sb_features (fid INTEGER PRIMARY KEY, identifier TEXT, geometry TEXT NOT NULL, crs TEXT NOT NULL,
     status TEXT NOT NULL DEFAULT 'pending')`,
];

/** The answer of an action: the follow-up to enqueue, or the reason it was refused (a 400 for the client). */
export type ActionResult = { ok: true; followUp: FollowUp } | { ok: false; message: string };

export class StatisticalBatchTask extends TaskDurableObject<StatisticalBatchState> {
  protected readonly machine = STATISTICAL_BATCH_MACHINE;

  protected override tables(): readonly string[] {
    return SCHEMA;
  }

  /**
   * Stores a new task (state CREATED) accepted at `location` (a location id). Idempotent for the same id.
   * @throws Error when the object holds another task.
   */
  create(id: string, account: string, request: BatchStatisticalRequest, created: string, location?: string): void {
    const existing = this.row();
    if (existing && existing.id !== id) throw new Error(`statistical batch object already holds task ${existing.id}`);
    if (existing) return;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO sb_record (k, id, account, request, created, user_action, location, version) VALUES (1, ?, ?, ?, ?, 'NONE', ?, 0)",
        id, account, JSON.stringify(request), created, location ?? null,
      );
    });
  }

  /** The task as seen by `account` (by the service when omitted); null when there is none or it belongs to another account. */
  view(account?: string): TaskView | null {
    const r = this.row();
    if (!r || (account !== undefined && r.account !== account)) return null;
    const s = this.snapshot();
    return {
      id: r.id, account: r.account, request: JSON.parse(r.request) as BatchStatisticalRequest, created: r.created,
      userAction: r.user_action as UserAction, ...(r.user_action_updated ? { userActionUpdated: r.user_action_updated } : {}),
      ...(r.error ? { error: r.error } : {}), ...(r.stopped_reason ? { stoppedStatusReason: r.stopped_reason as StoppedReason } : {}),
      state: s.state, lastUpdated: s.updated || r.created, total: this.featureCount(), done: s.counters.done ?? 0, failed: s.counters.failed ?? 0, pu: s.counters.pu ?? 0,
    };
  }

  /**
   * A user action (ANALYSE, START, STOP) of `account` on the task: moves the state as Sentinel Hub's workflow does
   * (START on a task not yet analysed analyses it first and then processes) and says what to enqueue.
   */
  async act(account: string, action: Exclude<UserAction, "NONE">): Promise<ActionResult | null> {
    const r = this.row();
    if (!r || r.account !== account) return null;
    const result = this.ctx.storage.transactionSync(() => this.decide(action, r));
    if (result.ok) await this.mirror();
    return result;
  }

  /**
   * Stores the features read by the analysis (once per message id) and moves ANALYSING to ANALYSIS_DONE, then on
   * to PROCESSING when the user asked to START. Returns true when the features must now be enqueued; a task no
   * longer ANALYSING (stopped meanwhile) keeps nothing. (A task is analysed once: a STOPPED task that has its
   * features only STARTs again, so finished features keep their counts.)
   */
  async analysed(messageId: string, features: BatchFeature[]): Promise<boolean> {
    const proceed = this.ctx.storage.transactionSync(() => {
      if (this.snapshot().state !== "ANALYSING" || this.processed(messageId)) return false;
      this.applyMessage(messageId, {});
      this.leases.complete(ANALYSIS_UNIT, "DONE");
      this.sql.exec("DELETE FROM sb_features");
      for (const f of features)
        this.sql.exec("INSERT INTO sb_features (fid, identifier, geometry, crs) VALUES (?, ?, ?, ?)", f.id, f.identifier ?? null, JSON.stringify(f.geometry), f.crs);
      this.transitionTo("ANALYSIS_DONE");
      if (this.row()!.user_action !== "START") return false;
      this.transitionTo("PROCESSING");
      this.leaseFeatures();
      return true;
    });
    await this.mirror();
    return proceed;
  }

  /** Moves a task that is ANALYSING or PROCESSING to FAILED with `error` (e.g. an unreadable GeoPackage). */
  async fail(error: string): Promise<void> {
    const changed = this.ctx.storage.transactionSync(() => {
      const state = this.snapshot().state;
      if (state !== "ANALYSING" && state !== "PROCESSING") return false;
      this.sql.exec("UPDATE sb_record SET error = ? WHERE k = 1", error.slice(0, 2000));
      this.transitionTo("FAILED");
      return true;
    });
    if (changed) await this.mirror();
  }

  /** Ids of the features not yet finished, ascending, after `after` (at most `limit`). */
  pendingFeatures(after = Number.MIN_SAFE_INTEGER, limit = 1000): number[] {
    return this.sql
      .exec<{ fid: number }>("SELECT fid FROM sb_features WHERE status = 'pending' AND fid > ? ORDER BY fid LIMIT ?", after, limit)
      .toArray()
      .map((r) => r.fid);
  }

  /** What the consumer needs for feature `fid`; null when the task or the feature does not exist. */
  job(fid: number): FeatureJob | null {
    const r = this.row();
    const f = this.sql.exec<{ fid: number; identifier: string | null; geometry: string; crs: string; status: string }>("SELECT * FROM sb_features WHERE fid = ?", fid).toArray()[0];
    if (!r || !f) return null;
    const feature: BatchFeature = { id: f.fid, geometry: JSON.parse(f.geometry) as BatchFeature["geometry"], crs: f.crs, ...(f.identifier !== null ? { identifier: f.identifier } : {}) };
    return { taskId: r.id, account: r.account, ...(r.location ? { location: r.location } : {}), state: this.snapshot().state, request: JSON.parse(r.request) as BatchStatisticalRequest, feature, finished: f.status !== "pending" };
  }

  /**
   * Counts feature `fid` as done or failed with its cost `pu` (processing units), once per feature; when it was the
   * last one of a PROCESSING task, the task moves to DONE, PARTIAL or FAILED. Returns false when it was counted before.
   */
  async finishFeature(fid: number, failed: boolean, pu: number): Promise<boolean> {
    const applied = this.ctx.storage.transactionSync(() => {
      const updated = this.sql.exec("UPDATE sb_features SET status = ? WHERE fid = ? AND status = 'pending'", failed ? "failed" : "done", fid).rowsWritten;
      if (updated === 0) return false;
      this.leases.complete(featureUnitId(fid), "DONE");
      const out = this.applyMessage(`feature:${fid}`, { counters: { [failed ? "failed" : "done"]: 1, pu } });
      if (out.ok && out.value.applied) this.completeIfLast(out.value.snapshot);
      return true;
    });
    if (applied) {
      await this.charge(pu);
      await this.mirror();
    }
    return applied;
  }

  /**
   * Charges a counted feature's processing units to the task's account (once per feature: only after its count was
   * applied; a failed charge is not retried); a PROCESSING task whose account is then out of units is STOPPED with
   * `stoppedStatusReason: "OUT_OF_PU"` (its queued features are acked without work; START resumes them).
   */
  private async charge(pu: number): Promise<void> {
    if (!(pu > 0)) return;
    const usage = await chargeUnits(this.env, this.row()!.account, pu);
    if (!usedUp(usage) || this.snapshot().state !== "PROCESSING") return;
    this.ctx.storage.transactionSync(() => {
      this.transitionTo("STOPPED");
      this.sql.exec("UPDATE sb_record SET stopped_reason = 'OUT_OF_PU' WHERE k = 1");
    });
  }

  /**
   * The stall watchdog (armed while ANALYSING or PROCESSING, re-armed on every change, e.g. each finished feature):
   * after STALL_MS without progress the analysis or the pending features are enqueued again; after MAX_STALLS such
   * rounds the task FAILS. A backstop: a lost message or Worker is handled within a minute by the units' leases.
   */
  protected override async onTimeout(task: TaskSnapshot<StatisticalBatchState>): Promise<void> {
    const r = this.row();
    if (!r || (task.state !== "ANALYSING" && task.state !== "PROCESSING")) return;
    const stalls = task.counters.stalls ?? 0;
    if (stalls >= MAX_STALLS) return this.fail(`No progress for ${STALL_MS / 60_000} minutes, ${stalls + 1} times; the task is FAILED.`);
    this.applyMessage(`stall:${stalls + 1}`, { counters: { stalls: 1 } });
    if (task.state === "ANALYSING") await enqueueAnalysis(this.env, r.id);
    else await sendFeatureMessages(this.env, r.id, this.pendingFeatures(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
    await this.scheduleTimeout(STALL_MS);
  }

  private completeIfLast(s: TaskSnapshot<StatisticalBatchState>): void {
    const total = this.featureCount();
    const done = s.counters.done ?? 0, failed = s.counters.failed ?? 0;
    if (s.state !== "PROCESSING" || done + failed < total) return;
    if (failed === total) this.sql.exec("UPDATE sb_record SET error = ? WHERE k = 1", `All ${total} features failed; see the error of each in the output bucket.`);
    this.transitionTo(failed === 0 ? "DONE" : failed === total ? "FAILED" : "PARTIAL");
  }

  /** The state logic of {@link act} (inside a transaction). */
  private decide(action: Exclude<UserAction, "NONE">, r: RecordRow): ActionResult {
    const state = this.snapshot().state;
    const refuse = (): ActionResult => ({ ok: false, message: `The statistical batch task ${r.id} is ${state}: ${action} is not possible now.` });
    const analysedBefore = this.featureCount() > 0;
    let followUp: FollowUp;
    if (action === "STOP") {
      if (!["ANALYSING", "ANALYSIS_DONE", "PROCESSING"].includes(state)) return refuse();
      this.transitionTo("STOPPED");
      followUp = "none";
    } else if (state === "CREATED" || (state === "STOPPED" && !analysedBefore)) {
      this.transitionTo("ANALYSING");
      this.leases.put([{ id: ANALYSIS_UNIT, message: analysisMessage(r.id) }], Date.now());
      followUp = "analyse";
    } else if (action === "START" && (state === "ANALYSIS_DONE" || state === "STOPPED")) {
      this.transitionTo("PROCESSING");
      this.leaseFeatures();
      followUp = "features";
    } else if (action === "START" && state === "ANALYSING" && r.user_action === "ANALYSE") followUp = "none";
    else return refuse();
    this.sql.exec(
      "UPDATE sb_record SET user_action = ?, user_action_updated = ?, stopped_reason = ? WHERE k = 1",
      action, new Date().toISOString(), action === "STOP" ? "USER_ACTION" : null,
    );
    return { ok: true, followUp };
  }

  /** Puts every pending feature as a leased unit (their messages are sent by the caller: enqueueFeatures). */
  private leaseFeatures(): void {
    const id = this.row()!.id;
    const units = this.pendingFeatures(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).map((fid) => ({ id: featureUnitId(fid), message: featureMessage(id, fid) }));
    this.leases.put(units, Date.now());
  }

  private transitionTo(to: StatisticalBatchState): void {
    const r = this.transition(to);
    if (!r.ok) throw new Error(`statistical batch task: ${r.error.from} -> ${r.error.to} is not allowed`);
    this.sql.exec("UPDATE sb_record SET version = version + 1 WHERE k = 1");
  }

  private row(): RecordRow | undefined {
    return this.sql.exec<RecordRow>("SELECT * FROM sb_record WHERE k = 1").toArray()[0];
  }

  private featureCount(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM sb_features").one().n;
  }

  /** Writes the state into the D1 listing (newer versions only, so late writes never go back in time) and arms the watchdog. */
  private async mirror(): Promise<void> {
    const r = this.row();
    if (!r) return;
    const state = this.snapshot().state;
    await mirrorStatus(this.env, r.id, state, r.version);
    if (state === "ANALYSING" || state === "PROCESSING") await this.scheduleTimeout(STALL_MS);
    else await this.cancelTimeout();
  }
}
