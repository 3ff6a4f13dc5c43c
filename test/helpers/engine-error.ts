/** Assertions on the raster engine's typed failures (EngineError, src/raster/errors.ts). */
import { expect } from "vitest";
import { EngineError, type EngineErrorKind } from "../../src/raster/errors";

/** Runs `fn`, expects it to throw an EngineError of `kind` (default invalid-argument) and returns that error. */
export function engineErrorOf(fn: () => unknown, kind: EngineErrorKind = "invalid-argument"): EngineError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    expect((e as EngineError).kind).toBe(kind);
    return e as EngineError;
  }
  throw new Error(`expected an EngineError (${kind})`);
}
