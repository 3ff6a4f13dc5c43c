/**
 * A task's state machine as data: its states, the initial one and the allowed transitions, and the names the
 * engine's stored messages use (a task that timed out, or whose every unit failed). The engine (./engine.ts) moves a
 * task only along these edges; the machines of Sentinel Hub's task APIs are in ./machines.ts.
 */

/** States and edges: `transitions[s]` lists the states `s` may move to; a state with none is terminal. */
export interface TaskMachine<S extends string> {
  /** The task's name in messages (e.g. "batch process task"). */
  readonly name: string;
  /** Plural noun of its units in messages ("tiles"). */
  readonly units: string;
  readonly initial: S;
  readonly transitions: Readonly<Record<S, readonly S[]>>;
}

/** An illegal move: `to` is not an edge from `from`. A bug of the engine, never ignored. */
export class TransitionError extends Error {
  override readonly name = "TransitionError";
  constructor(
    readonly machine: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`The ${machine} cannot move from ${from} to ${to}.`);
  }
}

/** True when no transition leaves `state`. */
export const isTerminal = <S extends string>(m: TaskMachine<S>, state: S): boolean => m.transitions[state].length === 0;

/** True when `to` is an edge from `from`. */
export const canMove = <S extends string>(m: TaskMachine<S>, from: S, to: S): boolean =>
  m.transitions[from]?.includes(to) ?? false;

/** Checks a move. @throws TransitionError when `to` is not allowed from `from`. */
export function checkTransition<S extends string>(m: TaskMachine<S>, from: S, to: S): void {
  if (!canMove(m, from, to)) throw new TransitionError(m.name, from, to);
}
