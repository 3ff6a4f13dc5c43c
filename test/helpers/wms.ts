/** Test helpers for WMS instances: a layer body and instance creation through the Configuration API. */
import { authed } from "./auth";

export const INSTANCES = "/configuration/v1/wms/instances";

/** A layer body (Sentinel Hub Configuration API shape) over sentinel-2-l2a with `evalScript`. */
export const layerBody = (id: string, evalScript: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Layer ${id}`,
  styles: [{ name: "default", evalScript }],
  datasourceDefaults: {
    type: "sentinel-2-l2a",
    timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" },
    mosaickingOrder: "mostRecent",
  },
  ...extra,
});

/** JSON request init. */
export const jsonInit = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** Creates an instance with `layers` as `bearer`; returns its JSON (201 checked). */
export async function createInstance(
  bearer: string,
  layers: unknown[],
  name = "test instance",
): Promise<{ id: string; [k: string]: unknown }> {
  const r = await authed(INSTANCES, jsonInit("POST", { name, layers }), bearer);
  if (r.status !== 201) throw new Error(`create instance: ${r.status} ${await r.text()}`);
  return (await r.json()) as { id: string };
}
