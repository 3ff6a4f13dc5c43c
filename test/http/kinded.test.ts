/**
 * The one place engine errors become the envelope (src/http/errors.ts renderError/kindedError): each kind of
 * src/raster/errors.ts renders with the status and code the API has always sent for it (Sentinel Hub:
 * EXECUTION_ERROR for a script's failures while running, COMMON_BAD_PAYLOAD for the rest), the detail as the `errors` object;
 * values that only look like engine errors are internal 500s.
 */
import { describe, expect, it } from "vitest";
import { renderError } from "../../src/http/errors";
import { ENGINE_ERROR_KINDS, EngineError, type EngineErrorKind } from "../../src/raster/errors";

/** The expected status and code per kind, written out here as the oracle (not read from the code under test). */
const EXPECTED: Record<EngineErrorKind, [number, string]> = {
  "invalid-argument": [400, "COMMON_BAD_PAYLOAD"],
  unsupported: [400, "COMMON_BAD_PAYLOAD"],
  "script-syntax": [400, "COMMON_BAD_PAYLOAD"],
  "script-error": [400, "EXECUTION_ERROR"],
  "budget-exceeded": [400, "EXECUTION_ERROR"],
  "limit-exceeded": [400, "EXECUTION_ERROR"],
  "invalid-file": [400, "COMMON_BAD_PAYLOAD"],
};

const body = async (r: Response) =>
  (await r.json()) as { error: { status: number; reason: string; message: string; code: string; errors: unknown } };

describe("renderError for engine errors", () => {
  it.each(ENGINE_ERROR_KINDS.map((k) => [k]))("%s -> its status, code, message and details", async (kind) => {
    const details = [{ stage: "evaluatePixel", line: 3, column: 7 }];
    const r = renderError(new EngineError(kind, `what to fix (${kind})`, details, { name: "x", max: 1 }));
    const [status, code] = EXPECTED[kind];
    expect(r.status).toBe(status);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await body(r)).toEqual({
      error: { status, reason: "Bad Request", message: `what to fix (${kind})`, code, errors: details[0] },
    });
  });

  it("no details -> errors is an empty object (the spec's errors: object, never null)", async () => {
    expect((await body(renderError(new EngineError("unsupported", "no")))).error.errors).toEqual({});
  });

  it("a look-alike is an internal error: a plain object with a kind, an Error with an unknown or inherited kind", async () => {
    const fakes = [
      { kind: "invalid-argument", message: "x" },
      Object.assign(new Error("x"), { kind: "bogus" }),
      Object.assign(new Error("x"), { kind: "constructor" }),
    ];
    for (const fake of fakes) {
      const r = renderError(fake);
      expect(r.status).toBe(500);
      expect((await body(r)).error.message).toBe("Internal error while processing the request.");
    }
  });
});
