/**
 * Types of the sandbox module "evalscript.js": the compiled script, a CommonJS module (wrapper.ts) whose
 * `module.exports` is the instance factory; script.js imports it as the default export.
 */

/** The script's functions an instance exports (undefined when the script does not define one). */
export type ScriptFunctions = Record<string, ((...args: any[]) => any) | undefined>;

/** The control surface of one script instance (wrapper.ts wrapperSuffix). */
export interface Instance {
  /** Runs the script's top-level code; returns its functions. */
  init(): ScriptFunctions;
  /** Sets the ticks left for the next call (ignored once stopped). */
  set(ticks: number): void;
  /** Ticks left (negative: over budget). */
  left(): number;
  /** Why the instance stopped: "" (not stopped), "budget" or a limit's message. */
  cause(): string;
  /** Stops the instance: records `message` (default "budget") as the cause and throws. */
  stop(message?: string): never;
  /** Charges `ticks` to the budget; stops the instance when it goes below 0. */
  charge(ticks: number): void;
  /** The script's value of an EO Browser override variable (wrapper.ts OVERRIDE_NAMES), or undefined. */
  override(name: string): unknown;
}

/** A fresh instance of the script, its counter at -1 (no budget until `set`). */
declare function factory(): Instance;
export default factory;
