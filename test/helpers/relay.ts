/**
 * Real HTTP client programs (GDAL, OWSLib, rasterio) against the Worker under test, through the CLIENT_RELAY service of
 * vitest.config.ts (test/services/client-relay.mjs): the program talks HTTP to the relay's address, each of its
 * requests is answered here by the Worker (served as if PUBLIC_BASE_URL were the relay's address, so the URLs the
 * Worker writes into its documents lead back to it). When the program exits 3 (a module it needs is missing) or
 * cannot start, the calling test is SKIPPED with the reason (never passed silently).
 */
import { env } from "cloudflare:workers";
import type { TestContext } from "vitest";
import { base64 } from "./pydecode";
import { fetchAt } from "./locations";

/** What a program run printed and how it ended, with the requests it sent (method and path with query). */
export interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
  requests: string[];
}

const relay = async (op: string, body: unknown): Promise<any> =>
  (await env.CLIENT_RELAY.fetch(`http://relay/${op}`, { method: "POST", body: JSON.stringify(body) })).json();

/**
 * Headers not passed back to the program: the relay sends the body whole, in its own framing. Content-Length stays
 * (the body is the Worker's bytes; a HEAD answer's is the object's size, which GDAL's /vsis3/ reads).
 */
const DROPPED = new Set(["transfer-encoding", "connection"]);

/** Answers one request of the program with the Worker's response. */
async function answer(
  id: string,
  base: string,
  req: { rid: string; method: string; path: string; headers: Record<string, string>; body: string },
): Promise<void> {
  const body = req.body ? Uint8Array.from(atob(req.body), (c) => c.charCodeAt(0)) : undefined;
  const init: RequestInit = {
    method: req.method,
    headers: { ...req.headers, host: new URL(base).host },
    ...(body?.length ? { body } : {}),
  };
  const r = await fetchAt({ PUBLIC_BASE_URL: base }, `${base}${req.path}`, init);
  const headers = Object.fromEntries([...r.headers].filter(([k]) => !DROPPED.has(k)));
  await relay("respond", {
    id,
    rid: req.rid,
    status: r.status,
    headers,
    body: base64(new Uint8Array(await r.arrayBuffer())),
  });
}

/**
 * Runs `command` (its environment has EO_EDGE_BASE, the address to send requests to) with `stdin`, answering its
 * requests with the Worker's responses until it exits; skips the test (ctx.skip) when it exits 3 or cannot start.
 * `host`: the relay's listening address (default 127.0.0.1; 127.0.0.2 is an S3_HOSTS address: S3 at its root).
 */
export async function runClient(ctx: TestContext, command: string[], stdin = "", host?: string): Promise<ClientRun> {
  const { id, base } = (await relay("run", { command, stdin, host })) as { id: string; base: string };
  const requests: string[] = [];
  for (;;) {
    const e = await relay("next", { id });
    if (e.request) {
      requests.push(`${e.request.method} ${e.request.path}`);
      await answer(id, base, e.request);
    } else if (e.done) {
      const run = { ...(e.done as { code: number; stdout: string; stderr: string }), requests };
      if (run.code === 3 || run.code === 127) ctx.skip(`${command.join(" ")}: ${run.stderr.trim().slice(0, 500)}`);
      return run;
    }
  }
}
