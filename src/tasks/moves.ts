/**
 * The moves of a task's state, for the task engine (./engine.ts, whose module docs tell the lifecycle): each runs
 * synchronous SQL on the task's rows (./rows.ts) and leases (./lease.ts) in one transaction, checks the move against
 * the plug-in's machine, and puts the messages it calls for in the outbox. The engine does the rest once the change
 * is stored: loads and stores in R2 before it, then charges, sends the outbox, mirrors the listing and arms the
 * alarm. A move that finds the task no longer where it needs it changes nothing (false).
 */
import { canMove } from "./machine";
import type { UserAction } from "./machines";
import { ASSEMBLE_UNIT, PLAN_UNIT, leaseId, unitMessage, type QueueName, type TaskMessage } from "./messages";
import { refuse, type Refusal } from "./outcome";
import type { Failure, Plan, TaskPlugin, UnitResult } from "./plugin";
import type { Leases } from "./lease";
import { acted, type TaskRecord, type TaskRows } from "./rows";

/** Stored units: [id, key of the unit's data in R2] (./records.ts storeUnits). */
type StoredUnits = readonly (readonly [string, string])[];

export class TaskMoves {
  /** Messages to send once the change that called for them is stored (a lost send is re-sent by the watchdog). */
  readonly outbox: TaskMessage[] = [];

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly rows: TaskRows,
    private readonly leases: Leases,
    private readonly plugin: TaskPlugin,
  ) {}

  /** Runs `f` in one transaction; when it throws, the messages it put in the outbox are dropped with its changes. */
  private atomically<T>(f: () => T): T {
    try {
      return this.storage.transactionSync(f);
    } catch (e) {
      this.outbox.length = 0;
      throw e;
    }
  }

  /**
   * User action `action` on the task of record `r`: STOP stops a running phase; ANALYSE or START on a task never
   * planned sends the plan unit; START on an analysed or stopped task processes it (while ANALYSING: after the
   * plan). The refusal when the state or the machine forbids it, else null.
   */
  act(r: TaskRecord, action: Exclude<UserAction, "NONE">): Refusal | null {
    const state = this.rows.row()!.state;
    if (action === "STOP") {
      const running = ["ANALYSING", "ANALYSIS_DONE", "PROCESSING"].includes(state);
      if (!running || !canMove(this.plugin.machine, state, "STOPPED")) return refuse(state, action);
      this.stop({ ...acted(r, action), stoppedStatusReason: "USER_ACTION" });
    } else if (state === "CREATED" || (state === "STOPPED" && r.units === null)) {
      this.atomically(() => (this.go("ANALYSING"), this.rows.save(acted(r, action)), this.lease([PLAN_UNIT], "light")));
    } else if (action === "START" && (state === "ANALYSIS_DONE" || state === "STOPPED")) {
      this.atomically(() => (this.rows.save(acted(r, action)), this.process()));
    } else if (action === "START" && state === "ANALYSING") this.rows.save(acted(r, action));
    else return refuse(state, action);
    return null;
  }

  /** The plan's result (`stored`: its units in R2): units IDLE, ANALYSING -> ANALYSIS_DONE, PROCESSING after START. */
  planned(plan: Plan, stored: StoredUnits): boolean {
    return this.atomically(() => {
      if (this.rows.row()!.state !== "ANALYSING" || !this.leases.complete(PLAN_UNIT, "DONE")) return false;
      this.rows.dropPlanned();
      this.insertUnits(stored, 0);
      const now = this.rows.record()!;
      this.rows.save({ ...now, units: plan.units.length, estimatePU: plan.estimatePU });
      this.go("ANALYSIS_DONE");
      if (now.userAction === "START") this.process();
      return true;
    });
  }

  /** Adds units found while PROCESSING (`stored`: in R2), ids it has skipped, and leases them; false when not PROCESSING. */
  added(stored: StoredUnits): boolean {
    return this.atomically(() => {
      const now = this.rows.record()!;
      if (this.rows.row()!.state !== "PROCESSING") return false;
      const fresh = stored.filter(([id]) => !this.rows.unit(id));
      this.insertUnits(fresh, now.units ?? 0);
      this.rows.save({ ...now, units: (now.units ?? 0) + fresh.length });
      this.lease(
        fresh.map(([id]) => id),
        this.plugin.queue,
      );
      return true;
    });
  }

  /**
   * Counts unit `unit` once (done, or failed with `result.error`) with its processing units (none when it failed),
   * owed to the account until charged; the last one ends the task (or leases the assembly). False when it was
   * counted before or the task is not PROCESSING.
   */
  counted(unit: string, result: UnitResult): boolean {
    const pu = result.error !== undefined || !(result.pu > 0) ? 0 : result.pu;
    return this.atomically(() => {
      if (this.rows.row()!.state !== "PROCESSING") return false;
      if (!this.rows.count(unit, result.error, pu)) return false;
      const r = this.rows.record()!;
      if (result.error !== undefined && this.plugin.failFast)
        this.finish("FAILED", { ...r, error: result.error, ...(result.failure ? { failure: result.failure } : {}) });
      else if (this.rows.pending() === 0) this.finishProcessing(r);
      return true;
    });
  }

  /** The assembly ran: the task ends DONE (once; false otherwise). */
  assembled(): boolean {
    return this.atomically(() => {
      if (this.rows.row()!.state !== "PROCESSING" || this.rows.pending() > 0) return false;
      if (!this.leases.complete(ASSEMBLE_UNIT, "DONE")) return false;
      this.finish("DONE", this.rows.record()!);
      return true;
    });
  }

  /** FAILS a task that is ANALYSING or PROCESSING with `error` (false for any other state). */
  failed(error: string, failure?: Failure): boolean {
    const r = this.rows.record();
    if (!r || !["ANALYSING", "PROCESSING"].includes(this.rows.row()!.state)) return false;
    this.atomically(() =>
      this.finish("FAILED", { ...r, error: error.slice(0, 2000), ...(failure ? { failure } : {}) }),
    );
    return true;
  }

  /** -> STOPPED with record `r`: every leased unit back to IDLE (its owner's next renewal fails). */
  stop(r: TaskRecord): void {
    this.atomically(() => {
      this.go("STOPPED");
      this.rows.save(r);
      this.rows.unlease();
    });
  }

  /** Inserts stored units IDLE, numbered from `first`. */
  private insertUnits(stored: StoredUnits, first: number): void {
    this.rows.insertUnits(this.rows.record()!.id, this.plugin.kind, this.plugin.queue, stored, first);
  }

  /** A checked move. @throws TransitionError when the machine forbids it. */
  private go(to: string): void {
    this.rows.move(this.plugin.machine, to);
  }

  /** -> PROCESSING with every IDLE planned unit leased and its message in the outbox; the end when none is left. */
  private process(): void {
    this.go("PROCESSING");
    if (this.rows.pending() === 0) this.finishProcessing(this.rows.record()!);
    else this.lease(this.rows.idle(), this.plugin.queue);
  }

  /** Leases units `units` (a unit leased again starts over) and puts their messages in the outbox. */
  private lease(units: string[], queue: QueueName): void {
    const id = this.rows.record()!.id;
    const specs = units.map((u) => ({ id: leaseId(u), message: unitMessage(this.plugin.kind, id, u, queue) }));
    this.leases.put(specs, Date.now());
    this.outbox.push(...specs.map((u) => u.message));
  }

  /** Every unit counted: the assembly is leased (its message in the outbox), or the task ends DONE, PARTIAL or FAILED. */
  private finishProcessing(r: TaskRecord): void {
    const { done, failed } = this.rows.row()!;
    const total = r.units ?? 0;
    if (total > 0 && failed === total) {
      return this.finish("FAILED", {
        ...r,
        error: `All ${total} ${this.plugin.machine.units} failed; first error: ${this.rows.firstError() ?? "unknown"}`,
      });
    }
    if (failed > 0 && canMove(this.plugin.machine, "PROCESSING", "PARTIAL")) return this.finish("PARTIAL", r);
    if (this.plugin.assemble && done + failed === total) return this.lease([ASSEMBLE_UNIT], this.plugin.queue);
    this.finish("DONE", r);
  }

  /** Moves to a terminal state with record `r`; units still leased or idle are CANCELLED (nothing is left to do). */
  private finish(to: "DONE" | "FAILED" | "PARTIAL", r: TaskRecord): void {
    this.go(to);
    this.rows.save(r);
    this.rows.cancelOpen(`The ${this.plugin.machine.name} ended ${to}.`);
  }
}
