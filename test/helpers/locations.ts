/** Test helper: the worker called at a full URL (another location's address) with some bindings replaced. */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import type { Env } from "../../src/env";

/** The worker's fetch of `url` (any origin) with `over` replacing bindings, e.g. LOCATION_ID and LOCATIONS. */
export async function fetchAt(over: Partial<Env>, url: string, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const r = await worker.fetch(new Request(url, init), { ...(env as unknown as Env), ...over }, ctx);
  await waitOnExecutionContext(ctx);
  return r;
}
