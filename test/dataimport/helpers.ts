/** Helpers of the third-party import tests: the sample products (West Flanders Sentinel-2 L2A patches) and calls. */
import { env } from "cloudflare:workers";
import { createScheduledController, runDurableObjectAlarm } from "cloudflare:test";
import { expect } from "vitest";
import { authed } from "../helpers/auth";
import { importStub, POLL_UNIT } from "../../src/dataimport/plugin";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { seedSamples, sampleItems } from "../helpers/seed";
import type { StacItem } from "../../src/storage/stac";
import { inspect, unitOf } from "../helpers/taskengine";

export const DI = "/api/v1/dataimport";

/** Seeds the West Flanders items (64 x 64 px patches of tile 31UDS) and their files; answers them. */
export const seedWestFlanders = (): Promise<StacItem[]> =>
  seedSamples((i) => i.collection === "sentinel-2-l2a" && i.id.includes("_31UDS_"));

/** The West Flanders items straight from data/items (what the provider must offer), newest first. */
export async function westFlandersItems(): Promise<StacItem[]> {
  return (await sampleItems())
    .filter((i) => i.collection === "sentinel-2-l2a" && i.id.includes("_31UDS_"))
    .sort((a, b) => Date.parse(b.properties.datetime) - Date.parse(a.properties.datetime));
}

/** The patch's lon/lat bbox (inside the footprint of every West Flanders item). */
export const WF_BBOX = [3.02, 50.814, 3.028, 50.818];

/** A SAMPLE search / order input over West Flanders in [from, to]. */
export const sampleInput = (from: string, to: string, extra: Record<string, unknown> = {}) => ({
  provider: "SAMPLE",
  bounds: { bbox: WF_BBOX, properties: { crs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84" } },
  data: [
    {
      type: "catalog",
      itemType: "sentinel-2-l2a",
      productBundle: "analytic_10m",
      dataFilter: { timeRange: { from, to } },
      ...extra,
    },
  ],
});

/** A JSON call of the area as `bearer`. */
export const di = (path: string, bearer: string, method = "GET", body?: unknown): Promise<Response> =>
  authed(
    DI + path,
    {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    },
    bearer,
  );

/** The JSON of a response with status `status` (the body shown when it differs). */
export async function ok<T = Record<string, unknown>>(r: Response, status = 200): Promise<T> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** The error envelope of a response with status `status`. */
export async function refusedWith(
  r: Response,
  status: number,
): Promise<{ status: number; reason: string; message: string; code: string; errors: Record<string, unknown> }> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  const e = (
    JSON.parse(text) as {
      error: { status: number; reason: string; message: string; code: string; errors: Record<string, unknown> };
    }
  ).error;
  expect(e.status).toBe(status);
  expect(e.message.length).toBeGreaterThan(10);
  return e;
}

/** Waits until `check` answers a value (polling every 100 ms, up to `ms`). */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A record's JSON (order or subscription). */
export interface RecordJson {
  id: string;
  name: string;
  accountId: string;
  collectionId?: string;
  status: string;
  sqkm: number;
  input: Record<string, unknown>;
}

/** A delivery's JSON. */
export interface DeliveryJson {
  id: string;
  itemId: string;
  status: string;
  sqkm?: number;
  errorMessage?: string;
}

/** Waits until every delivery of `path` (e.g. `/orders/<id>`) ended, and answers them. */
export async function endedDeliveries(path: string, bearer: string, n: number): Promise<DeliveryJson[]> {
  let last: DeliveryJson[] = [];
  return until(`${n} ended deliveries of ${path}`, async () => {
    last = (await ok<{ data: DeliveryJson[] }>(await di(`${path}/deliveries`, bearer))).data;
    return last.length === n &&
      last.every((d) => ["DONE", "DELIVERY_FAILED", "IMPORT_FAILED", "NON_INGESTIBLE"].includes(d.status))
      ? last
      : undefined;
  }).catch((e: Error) => {
    throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`);
  });
}

/**
 * Runs subscription `id`'s next poll now, as production does when the poll unit's 5 minute snooze ends: its task
 * object's alarm re-sends the unit (runDurableObjectAlarm runs the alarm as if its time had come). Waits first until
 * every other unit was counted and the poll unit snoozes (so the alarm re-sends nothing else), then until the alarm
 * re-sent the poll unit.
 */
export async function pollNow(id: string): Promise<void> {
  const stub = importStub(env as unknown as Env, id);
  const poll = async () => (await unitOf(stub, POLL_UNIT))!;
  const snoozing = await until(`${id}: deliveries counted, the poll unit snoozing`, async () => {
    const [{ units }, u] = [await inspect(stub), await poll()];
    return (
      units.every((x) => x.id === POLL_UNIT || x.status !== "PENDING") &&
      u.owner === null &&
      u.leaseUntil > Date.now() + 120_000 &&
      u
    );
  });
  await until(
    `${id}: the poll unit re-sent`,
    async () => (await runDurableObjectAlarm(stub)) && (await poll()).leaseUntil !== snoozing.leaseUntil,
  );
}

/** Runs the Worker's cron (the recovery sweep, src/index.ts `scheduled`) once, as Cloudflare's cron trigger does. */
export async function runCron(): Promise<void> {
  await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env as unknown as Env);
}
