/**
 * Test helpers for the raster engine's typed errors: assert that a value is an EngineError (src/raster/errors.ts)
 * and return it together with the envelope fields it renders as (src/http/errors.ts `kindedError`), so engine
 * tests assert the kind and the client-visible status, code, message and errors.
 */
import { expect } from "vitest";
import { kindedError } from "../../src/http/errors";
import { EngineError, type EngineErrorKind } from "../../src/raster/errors";

/** An EngineError and what the client sees of it. */
export interface RenderedEngineError {
  error: EngineError;
  kind: EngineErrorKind;
  status: number;
  code: string;
  message: string;
  errors: unknown;
}

/** Asserts `e` is an EngineError with a kind the HTTP layer renders; returns it with its envelope fields. */
export function rendered(e: unknown): RenderedEngineError {
  expect(e).toBeInstanceOf(EngineError);
  const api = kindedError(e);
  expect(api, `kind ${(e as EngineError).kind} is rendered`).toBeDefined();
  return {
    error: e as EngineError,
    kind: (e as EngineError).kind,
    status: api!.status,
    code: api!.code,
    message: api!.message,
    errors: api!.errors,
  };
}

/** The EngineError `f` throws (synchronously), rendered; fails when `f` returns or throws anything else. */
export function thrown(f: () => unknown): RenderedEngineError {
  try {
    f();
  } catch (e) {
    return rendered(e);
  }
  return expect.unreachable("expected an EngineError");
}

/** The EngineError `p` rejects with, rendered; fails when `p` resolves or rejects with anything else. */
export async function rejection(p: Promise<unknown>): Promise<RenderedEngineError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err ?? null,
  );
  return rendered(e);
}
