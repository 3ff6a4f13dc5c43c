/**
 * A task's state machine as data: its states, the initial one and the allowed transitions. Durable Objects
 * (./object.ts) hold one task each and move it only along these edges; the machines of Sentinel Hub's task APIs
 * are in ./machines.ts.
 */

/** States and edges: `transitions[s]` lists the states `s` may move to; a state with none is terminal. */
export interface TaskMachine<S extends string> {
  /** Name used in error messages (e.g. "batch process task"). */
  readonly name: string;
  readonly initial: S;
  readonly transitions: Readonly<Record<S, readonly S[]>>;
  /** Where the timeout alarm moves a task that is not yet terminal (none: the alarm only calls the hook). */
  readonly timeoutTo?: S;
}

/** An illegal move: `to` is not an edge from `from`, or the task was not in the `expected` state. */
export class TransitionError extends Error {
  override readonly name = "TransitionError";
  constructor(
    readonly machine: string,
    readonly from: string,
    readonly to: string,
    readonly expected?: string,
  ) {
    super(
      expected !== undefined && expected !== from
        ? `The ${machine} is ${from}, not ${expected}: it cannot move to ${to}.`
        : `The ${machine} cannot move from ${from} to ${to}.`,
    );
  }
}

/** The outcome of a transition asked through RPC (errors cross RPC without their class, so they travel as data). */
export type TransitionResult<T> = { ok: true; value: T } | { ok: false; error: { machine: string; from: string; to: string; expected?: string } };

/** True when no transition leaves `state`. */
export const isTerminal = <S extends string>(m: TaskMachine<S>, state: S): boolean => m.transitions[state].length === 0;

/**
 * Checks a move. @throws TransitionError when `to` is not allowed from `from`, or `expected` is given and differs
 * from `from` (compare-and-set: the caller saw an older state).
 */
export function checkTransition<S extends string>(m: TaskMachine<S>, from: S, to: S, expected?: S): void {
  if ((expected !== undefined && expected !== from) || !m.transitions[from].includes(to)) throw new TransitionError(m.name, from, to, expected);
}

/** The value of a TransitionResult. @throws TransitionError (rebuilt on the caller's side) when it failed. */
export function unwrap<T>(result: TransitionResult<T>): T {
  if (result.ok) return result.value;
  const e = result.error;
  throw new TransitionError(e.machine, e.from, e.to, e.expected);
}
