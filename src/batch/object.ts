/**
 * The Durable Object class of one Batch Processing v2 task (/api/v2/batch/process): its state machine
 * (src/tasks/machines.ts) on the {@link TaskDurableObject} base (atomic transitions, counters, once-only message
 * ids, alarm), plus the task record (table batch_task), its tiles (table batch_tiles) and the account index row
 * in D1 (migrations/0004_batch.sql, kept in step with the state after every change).
 *
 * Exactly-once tile accounting: a tile is finished through the base's applyMessage with the id `tile:<name>`, so
 * however often its queue message is delivered, retried, or re-sent by the watchdog, it counts once (done or
 * failed, whichever comes first), and the last tile moves the task to DONE (or FAILED when every tile failed).
 * Resumption: the analysis and each tile are leased units (src/tasks/lease.ts), put when their messages are sent.
 * A tile is claimed by the delivery that runs it, so a copy delivered meanwhile is acked without work (a slow tile
 * is never run twice at once); one whose message or Worker was lost is sent again by the base's alarm when its
 * lease expires, so a task survives lost messages and a restarted server (alarms are durable; see
 * scripts/batch-restart-check.mjs).
 */
import { TaskDurableObject, type TaskSnapshot } from "../tasks/object";
import { BATCH_MACHINE, type BatchState } from "../tasks/machines";
import { taskView, type TaskRecord, type TaskView, type UserAction } from "./record";
import type { BatchTile } from "./tiles";
import type { BatchRequest } from "./schema";
import { ANALYSE_KIND, ANALYSIS_UNIT, TILE_KIND, tileUnitId } from "./messages";
import { refuse, type Outcome } from "./outcome";
import { chargeUnits, usedUp } from "../accounts/units";
import { sendMessages } from "../tasks/runner";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS batch_task (k INTEGER PRIMARY KEY CHECK (k = 1), record TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS batch_tiles (name TEXT PRIMARY KEY, idx INTEGER NOT NULL, tile TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'PENDING', attempts INTEGER NOT NULL DEFAULT 0, existing TEXT, error TEXT)",
];

/** What a tile message should do: nothing (task not PROCESSING, tile finished) or process `tile`. */
export type TileWork = { run: false; reason: string } | { run: true; id: string; tile: BatchTile; request: BatchRequest; account: string; location?: string; existing: string | null };

export class BatchTask extends TaskDurableObject<BatchState> {
  protected readonly machine = BATCH_MACHINE;

  protected override tables(): readonly string[] {
    return SCHEMA;
  }

  private record(): TaskRecord | null {
    const row = this.sql.exec<{ record: string }>("SELECT record FROM batch_task WHERE k = 1").toArray()[0];
    return row ? (JSON.parse(row.record) as TaskRecord) : null;
  }

  private save(r: TaskRecord): void {
    this.sql.exec("INSERT INTO batch_task (k, record) VALUES (1, ?) ON CONFLICT(k) DO UPDATE SET record = excluded.record", JSON.stringify(r));
  }

  private act(r: TaskRecord, action: UserAction): TaskRecord {
    return { ...r, userAction: action, userActionUpdated: new Date().toISOString() };
  }

  private viewOf(r: TaskRecord, s: TaskSnapshot<BatchState> = this.snapshot()): TaskView {
    return taskView(r, s.state, s.updated, s.counters);
  }

  /** Writes the task's status to its D1 index row (after a change). */
  private async index(): Promise<void> {
    const r = this.record();
    if (!r) return;
    const s = this.snapshot();
    await this.env.DB.prepare("UPDATE batch_tasks SET status = ?, description = ? WHERE id = ?").bind(s.state, r.request.description ?? "", r.id).run();
  }

  /** Stores a new task (CREATED) and its D1 index row; a second call returns the task as it is. */
  async create(r: TaskRecord): Promise<TaskView> {
    if (!this.record()) {
      this.save(r);
      await this.env.DB.prepare("INSERT OR IGNORE INTO batch_tasks (id, account_id, created, status, description) VALUES (?, ?, ?, 'CREATED', ?)")
        .bind(r.id, r.account, r.created, r.request.description ?? "")
        .run();
    }
    return this.viewOf(this.record()!);
  }

  /** The task, or null when this object holds none. */
  view(): TaskView | null {
    const r = this.record();
    return r ? this.viewOf(r) : null;
  }

  /** Sets the description (unchanged when undefined); refused (409) while processing or waiting to be processed. */
  async updateDescription(description: string | undefined): Promise<Outcome<BatchRequest>> {
    const r = this.record()!;
    const { state } = this.snapshot();
    if (state === "PROCESSING" || (state === "ANALYSING" && r.userAction === "START"))
      return refuse(409, `The batch task is ${state}${state === "ANALYSING" ? " and waiting to be processed" : ""}: it cannot be updated until it is stopped or finished.`);
    if (description !== undefined) this.save({ ...r, request: { ...r.request, description } });
    await this.index();
    return { ok: true, value: this.record()!.request };
  }

  /** User action ANALYSE: CREATED (or STOPPED before analysis finished) -> ANALYSING, analysis enqueued. */
  async analyse(): Promise<Outcome<TaskView>> {
    const r = this.record()!;
    const { state } = this.snapshot();
    if (!(state === "CREATED" || (state === "STOPPED" && r.tileCount === null)))
      return refuse(400, `The batch task is ${state}${r.tileCount !== null ? " and already analysed" : ""}: only a CREATED task can be analysed.`);
    this.save(this.act(r, "ANALYSE"));
    this.transition("ANALYSING");
    await this.sendAnalysis();
    return this.done();
  }

  /**
   * User action START: an analysed task (ANALYSIS_DONE, or STOPPED after analysis) -> PROCESSING with its unfinished
   * tiles enqueued; a CREATED task is analysed first and then processed (as Sentinel Hub does), an ANALYSING one
   * goes on to processing when its analysis ends. Refused (400) when PROCESSING, DONE or FAILED.
   */
  async start(): Promise<Outcome<TaskView>> {
    const r = this.record()!;
    const { state } = this.snapshot();
    if (state === "PROCESSING" || state === "DONE" || state === "FAILED") return refuse(400, `The batch task is ${state}: it cannot be started.`);
    this.save(this.act(r, "START"));
    if (state === "ANALYSING") return this.done();
    if (r.tileCount === null) {
      this.transition("ANALYSING");
      await this.sendAnalysis();
    } else await this.beginProcessing();
    return this.done();
  }

  /** User action STOP: ANALYSING, ANALYSIS_DONE or PROCESSING -> STOPPED (USER_ACTION); queued tiles are then acked without work. */
  async stop(): Promise<Outcome<TaskView>> {
    const r = this.record()!;
    const { state } = this.snapshot();
    if (!BATCH_MACHINE.transitions[state].includes("STOPPED")) return refuse(400, `The batch task is ${state}: only an analysing, analysed or processing task can be stopped.`);
    this.save({ ...this.act(r, "STOP"), stoppedStatusReason: "USER_ACTION" });
    this.transition("STOPPED");
    return this.done();
  }

  /** The analysis result: stores the tiles and the estimate; ANALYSING -> ANALYSIS_DONE, and on to PROCESSING after START. */
  async analysisDone(tiles: BatchTile[], estimatePU: number): Promise<TaskView> {
    const r = this.record()!;
    this.leases.complete(ANALYSIS_UNIT, "DONE");
    if (r.tileCount === null) {
      tiles.forEach((t, i) => this.sql.exec("INSERT OR IGNORE INTO batch_tiles (name, idx, tile) VALUES (?, ?, ?)", t.name, i, JSON.stringify(t)));
      this.save({ ...r, tileCount: tiles.length, estimatePU });
    }
    if (this.snapshot().state === "ANALYSING") {
      this.transition("ANALYSIS_DONE");
      if (this.record()!.userAction === "START") await this.beginProcessing();
    }
    return (await this.done()).value;
  }

  /** Analysis failed: ANALYSING -> FAILED with the reason in `error`. */
  async analysisFailed(error: string): Promise<void> {
    if (this.snapshot().state !== "ANALYSING") return;
    this.save({ ...this.record()!, error });
    this.transition("FAILED");
    await this.done();
  }

  /** What the message of tile `name` should do. */
  tileWork(name: string): TileWork {
    const { state } = this.snapshot();
    if (state !== "PROCESSING") return { run: false, reason: `task is ${state}` };
    const row = this.sql.exec<{ tile: string; status: string; existing: string | null }>("SELECT tile, status, existing FROM batch_tiles WHERE name = ?", name).toArray()[0];
    if (!row) return { run: false, reason: `no tile ${name}` };
    if (row.status !== "PENDING") return { run: false, reason: `tile ${name} is ${row.status}` };
    const r = this.record()!;
    return { run: true, id: r.id, tile: JSON.parse(row.tile) as BatchTile, request: r.request, account: r.account, location: r.location, existing: row.existing };
  }

  /** Records which outputs of a tile existed before its first write ("none", "some", "all"); the first record wins. */
  recordExisting(name: string, existing: string): string {
    this.sql.exec("UPDATE batch_tiles SET existing = COALESCE(existing, ?) WHERE name = ?", existing, name);
    return this.sql.exec<{ existing: string }>("SELECT existing FROM batch_tiles WHERE name = ?", name).one().existing;
  }

  /** Tile `name` was written (or skipped): counted once, with the processing units it spent. */
  async tileDone(name: string, pu: number): Promise<TaskView> {
    return this.finishTile(name, "DONE", { tilesDone: 1, pu });
  }

  /** Tile `name` failed for good: counted once, with its error. */
  async tileFailed(name: string, error: string): Promise<TaskView> {
    this.sql.exec("UPDATE batch_tiles SET error = ? WHERE name = ? AND status = 'PENDING'", error.slice(0, 1000), name);
    return this.finishTile(name, "FAILED", { tilesFailed: 1 });
  }

  /** One failed attempt of tile `name`; after `max` attempts the tile fails (returns true). */
  async tileAttemptFailed(name: string, error: string, max: number): Promise<boolean> {
    this.sql.exec("UPDATE batch_tiles SET attempts = attempts + 1 WHERE name = ? AND status = 'PENDING'", name);
    const row = this.sql.exec<{ attempts: number }>("SELECT attempts FROM batch_tiles WHERE name = ?", name).toArray()[0];
    if (!row || row.attempts < max) return false;
    await this.tileFailed(name, `${error} (after ${row.attempts} attempts)`);
    return true;
  }

  /** Per tile: name, status, attempts and error (for diagnostics and tests). */
  tiles(): { name: string; status: string; attempts: number; error: string | null }[] {
    return this.sql.exec<{ name: string; status: string; attempts: number; error: string | null }>("SELECT name, status, attempts, error FROM batch_tiles ORDER BY idx").toArray();
  }

  private async finishTile(name: string, status: "DONE" | "FAILED", counters: Record<string, number>): Promise<TaskView> {
    const r = this.record()!;
    const s = this.snapshot();
    const finished = (s.counters.tilesDone ?? 0) + (s.counters.tilesFailed ?? 0) + 1;
    const pending = this.sql.exec("SELECT 1 FROM batch_tiles WHERE name = ? AND status = 'PENDING'", name).toArray().length > 0;
    if (pending && s.state === "PROCESSING") {
      const last = finished >= r.tileCount!;
      const allFailed = last && (s.counters.tilesFailed ?? 0) + (status === "FAILED" ? 1 : 0) === r.tileCount;
      const out = this.applyMessage(`tile:${name}`, { counters, to: last ? (allFailed ? "FAILED" : "DONE") : undefined });
      if (out.ok && out.value.applied) {
        this.sql.exec("UPDATE batch_tiles SET status = ? WHERE name = ?", status, name);
        this.leases.complete(tileUnitId(name), "DONE");
        if (allFailed) this.save({ ...r, error: `All ${r.tileCount} tiles failed; first error: ${this.tiles().find((t) => t.error)?.error ?? status}` });
        if (last) await this.arm(); // (the terminal move ended every unit: disarms)
        await this.charge(counters.pu ?? 0);
      }
    }
    return (await this.done()).value;
  }

  /**
   * Charges a finished tile's processing units to the task's account (once: only for the applied tile message, so
   * redelivery never charges twice; a failed charge is not retried); a PROCESSING task whose account is then out of
   * units stops with `stoppedStatusReason: "OUT_OF_PU"` (its queued tiles are acked without work).
   */
  private async charge(pu: number): Promise<void> {
    if (!(pu > 0)) return;
    const usage = await chargeUnits(this.env, this.record()!.account, pu);
    if (!usedUp(usage) || this.snapshot().state !== "PROCESSING") return;
    this.save({ ...this.record()!, stoppedStatusReason: "OUT_OF_PU" });
    this.transition("STOPPED");
  }

  private async done(): Promise<{ ok: true; value: TaskView }> {
    await this.index();
    return { ok: true, value: this.viewOf(this.record()!) };
  }

  /** Puts the analysis as a leased unit and sends its message. */
  private async sendAnalysis(): Promise<void> {
    const message = { kind: ANALYSE_KIND, task: this.record()!.id };
    this.leases.put([{ id: ANALYSIS_UNIT, message }], Date.now());
    await this.env.TASK_QUEUE.send(message);
    await this.arm();
  }

  /** -> PROCESSING; the tiles not finished are (re)sent. */
  private async beginProcessing(): Promise<void> {
    this.transition("PROCESSING");
    if (this.record()!.tileCount === 0) this.transition("DONE");
    else await this.sendTiles();
  }

  /** Puts every PENDING tile as a leased unit (one put again starts over) and sends their messages. */
  private async sendTiles(): Promise<void> {
    const id = this.record()!.id;
    const names = this.sql.exec<{ name: string }>("SELECT name FROM batch_tiles WHERE status = 'PENDING' ORDER BY idx").toArray().map((t) => t.name);
    const units = names.map((tile) => ({ id: tileUnitId(tile), message: { kind: TILE_KIND, task: id, tile } }));
    this.leases.put(units, Date.now());
    await sendMessages(this.env, units.map((u) => u.message));
    await this.arm();
  }

  /**
   * Timeout hook: only for a task whose alarm an earlier version armed as its 30 s watchdog (batch sets no deadline
   * now): its analysis or pending tiles are put as leased units and sent again, the leases' watchdog takes over.
   */
  protected override async onTimeout(task: TaskSnapshot<BatchState>): Promise<void> {
    if (task.state === "ANALYSING") await this.sendAnalysis();
    if (task.state === "PROCESSING") await this.sendTiles();
  }
}
