/**
 * Admission by pixels in flight: the requests one isolate evaluates at once share its 128 MB, so each
 * evaluating request is admitted with the bytes its pixels will hold ({@link requestBytes}), and the requests in
 * flight together stay within REQUEST_BYTES (src/raster/memory.ts: the isolate less its code and its caches). A
 * request that does not fit waits its turn (first come, first served) for up to ADMISSION_WAIT_MS, then is refused
 * with an {@link OverloadedError} (kind `overloaded`: 503 with Retry-After, src/http/errors.ts). A request estimated
 * larger than the whole budget is admitted only when nothing else is in flight.
 *
 * Per isolate (module state). A waiting request polls (every POLL_MS) instead of awaiting a promise that another
 * request's release would resolve: workerd refuses I/O from a continuation resumed by another request.
 */
import { bytesPerSample } from "../raster/encode/types";
import { jpegEncodeBytes } from "../raster/encode";
import { storedSampleType, type EvalSetup } from "../raster/evalscript";
import { REQUEST_BYTES } from "../raster/memory";
import type { Plan } from "./plan";
import { STRIP_PIXELS, STRIP_TARGET } from "./pipeline";

/** How long a request waits for the requests in flight to make room before it is refused, in ms. */
export const ADMISSION_WAIT_MS = 5000;

/**
 * How long a queue consumer's unit (an async strip unit, a batch tile, a statistical batch feature) waits for room,
 * in ms: longer than a request (nobody waits on a socket, and waiting costs no CPU), well within the unit's lease
 * (60 s, renewed while it runs). An OverloadedError after it is retried by the queue (src/tasks/work.ts: not a
 * client error), with its backoff.
 */
export const CONSUMER_ADMISSION_WAIT_MS = 30_000;

/** Retry-After of a refused request, in seconds: about one large request's time (bench/bench-memory.mjs). */
export const ADMISSION_RETRY_AFTER_S = 2;

/**
 * A streamed body (src/process/stream.ts) holds its request's share while its client reads it; a client that takes
 * nothing for this long (ms) lets it go, so one that stops reading keeps the room from others for 10 s at most.
 * (At 2 s, the pauses of bench/bench-memory.mjs's heap snapshots let the next 2500 x 2500 request start beside
 * a body still being sent.)
 */
export const ADMISSION_STALL_MS = 10_000;

/** How often a waiting request looks whether it may start, in ms. */
const POLL_MS = 10;

/**
 * What a request's pixels hold at its peak, in bytes (JS memory of the isolate, garbage included), from the output
 * grid and the bytes per pixel of its inputs and outputs:
 * - outputs: the evaluation's values (the stored sample type, `outBytesPerPixel`) and the encoded file beside them
 *   (`outCopies` 2; statistics hold no file, {@link planBytes});
 * - inputs (Float32 bands and a dataMask byte per scene, `inBytesPerPixel`): the whole grid up to STRIP_PIXELS,
 *   else one strip (STRIP_TARGET pixels) at a time, each held twice (the mosaic and the rows sent to the sandbox).
 * Checked against the Worker isolate's JS memory (bench/bench-memory.mjs, isolates limited to 128 MB as at the
 * edge): a 2500 x 2500 FLOAT32 NDVI GeoTIFF is estimated at 59.4 MB and peaked 31.8 MiB above the idle isolate,
 * garbage included (README, "Memory and limits at the edge").
 */
export function requestBytes(pixels: number, inBytesPerPixel: number, outBytesPerPixel: number, outCopies = 2): number {
  const held = pixels <= STRIP_PIXELS ? pixels : STRIP_TARGET;
  return outCopies * pixels * outBytesPerPixel + 2 * held * inBytesPerPixel;
}

/**
 * What an evaluation's outputs are for: `encode` (an image file: Processing, WMS / WMTS, async and batch tiles; the
 * values in their stored sample type and the encoded file beside them) or `reduce` (statistics: the raw Float32
 * values, then one band at a time its samples as Float64 and a mask byte, src/raster/stats/samples.ts).
 */
export type OutputUse = "encode" | "reduce";

/**
 * {@link requestBytes} of a planned request: its output grid; per pixel, 4 bytes per file band plus a dataMask byte
 * of each source (one sample each: the several dates of an ORBIT or TILE request count once here, bounded only by
 * MAX_SAMPLE_VALUES of ./mosaic.ts), and per {@link OutputUse} each output's bands (setup()'s band counts): in
 * their stored sample type, twice (`encode`), or as Float32 values plus 9 bytes, once (`reduce`). `formats`: the
 * MIME types the outputs are encoded as; with image/jpeg, its encoder's jpegEncodeBytes more.
 */
export function planBytes(
  plan: Pick<Plan, "grid" | "sources">,
  setup: Pick<EvalSetup, "outputs">,
  use: OutputUse = "encode",
  formats: readonly string[] = [],
): number {
  const input = plan.sources.reduce((n, s) => n + 4 * s.fileBands.length + 1, 0);
  const pixels = plan.grid.width * plan.grid.height;
  if (use === "reduce") return requestBytes(pixels, input, setup.outputs.reduce((n, o) => n + 4 * o.bands, 0) + 9, 1);
  const jpeg = formats.includes("image/jpeg") ? jpegEncodeBytes(pixels) : 0;
  return (
    jpeg +
    requestBytes(
      pixels,
      input,
      setup.outputs.reduce((n, o) => n + o.bands * bytesPerSample(storedSampleType(o.sampleType)), 0),
    )
  );
}

/** A request's share of the budget, held until {@link Permit.release} (idempotent: a second call does nothing). */
export interface Permit {
  release(): void;
}

/** Bytes admitted and in flight (and their most since the last setAdmission), the tickets waiting in arrival order. */
let inFlight = 0;
let peak = 0;
let admitted = 0;
const waiting: number[] = [];
let nextTicket = 0;

/** The budget in bytes and the wait in ms (REQUEST_BYTES and ADMISSION_WAIT_MS unless a test set others). */
let budget = REQUEST_BYTES;
let wait = ADMISSION_WAIT_MS;
let consumerWait = CONSUMER_ADMISSION_WAIT_MS;

/** The admission's state (tests and diagnostics): bytes (and their peak) and requests in flight, requests waiting, the budget. */
export function admissionStats(): {
  bytes: number;
  peakBytes: number;
  requests: number;
  waiting: number;
  budget: number;
} {
  return { bytes: inFlight, peakBytes: peak, requests: admitted, waiting: waiting.length, budget };
}

/**
 * Sets this isolate's budget (bytes) and waits (ms: a request's, a consumer unit's), and starts a new peak; omitted
 * ones go back to REQUEST_BYTES, ADMISSION_WAIT_MS and CONSUMER_ADMISSION_WAIT_MS. For tests: every isolate starts
 * with the defaults.
 */
export function setAdmission(o: { budget?: number; waitMs?: number; consumerWaitMs?: number } = {}): void {
  budget = o.budget ?? REQUEST_BYTES;
  wait = o.waitMs ?? ADMISSION_WAIT_MS;
  consumerWait = o.consumerWaitMs ?? CONSUMER_ADMISSION_WAIT_MS;
  peak = inFlight;
}

const fits = (bytes: number): boolean => admitted === 0 || inFlight + bytes <= budget;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Admits a request estimated at `bytes` ({@link requestBytes}): at once when it fits beside the requests in flight
 * and none is waiting, else after the requests before it, once it fits.
 * @param waitMs how long it may wait (default ADMISSION_WAIT_MS).
 * @throws OverloadedError when it could not start within `waitMs`.
 */
export async function admit(bytes: number, waitMs = wait): Promise<Permit> {
  if (waiting.length > 0 || !fits(bytes)) {
    const ticket = nextTicket++;
    waiting.push(ticket);
    const until = Date.now() + waitMs;
    try {
      while (waiting[0] !== ticket || !fits(bytes)) {
        if (Date.now() >= until) throw overloaded(bytes);
        await sleep(POLL_MS);
      }
    } finally {
      waiting.splice(waiting.indexOf(ticket), 1);
    }
  }
  inFlight += bytes;
  peak = Math.max(peak, inFlight);
  admitted++;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      inFlight -= bytes;
      admitted--;
    },
  };
}

/**
 * Runs `work` once admitted with `bytes` ({@link admit}) and lets the bytes go when it settles: for work whose pixels
 * are garbage once it returns (a statistics run, an image encoded into one array). Queue consumers run theirs
 * through {@link withConsumerAdmission}.
 * @throws OverloadedError as admit; whatever `work` throws.
 */
export async function withAdmission<T>(bytes: number, work: () => Promise<T>, waitMs = wait): Promise<T> {
  const permit = await admit(bytes, waitMs);
  try {
    return await work();
  } finally {
    permit.release();
  }
}

/**
 * {@link withAdmission} for a queue consumer's unit (async strip units, batch tiles, statistical batch features):
 * they share their isolate's memory with its requests and other units (the heavy queue's max_concurrency), and
 * wait up to CONSUMER_ADMISSION_WAIT_MS.
 * @throws OverloadedError (the task engine snoozes the unit: src/tasks/work.ts); whatever `work` throws.
 */
export const withConsumerAdmission = <T>(bytes: number, work: () => Promise<T>): Promise<T> =>
  withAdmission(bytes, work, consumerWait);

/**
 * The refusal of a request that could not start in time: not the caller's fault (a kinded error, not an
 * EngineError: src/http/errors.ts answers kind `overloaded` with 503 and Retry-After: `retryAfterSeconds`).
 */
export class OverloadedError extends Error {
  override readonly name = "OverloadedError";
  readonly kind = "overloaded";
  readonly retryAfterSeconds = ADMISSION_RETRY_AFTER_S;
}

/** The OverloadedError of a request of `bytes` that did not fit within its wait. */
function overloaded(bytes: number): OverloadedError {
  const mb = (n: number) => (n / 1e6).toFixed(1);
  return new OverloadedError(
    `This server is busy: the requests in flight hold ${mb(inFlight)} MB of the ${mb(budget)} MB its requests may use, and this one needs about ${mb(bytes)} MB. Retry after ${ADMISSION_RETRY_AFTER_S} s.`,
  );
}
