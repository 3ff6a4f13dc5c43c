// `npm start` on $PORT or a spare port for the client checks (test/e2e/wms-gdal-check.mjs, the browser checks):
// starts it in its own process group with the state in $EO_EDGE_STATE (default .state), waits until it answers,
// and returns { base, token, stop() }. stop() interrupts the group (SIGINT, SIGKILL after 10 s); the group is also
// killed if the calling process exits or is interrupted first.
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { env, getToken, groupStopper, reapOnExit, waitReady } from "./bench.mjs";
import { portFree } from "./local.mjs";

/**
 * A TCP port no process listens on right now, with the next two free as well (npm start's second location and S3
 * endpoint take PORT + 1 and PORT + 2), drawn from 20000-29999: below Linux's ephemeral range (32768-60999), where
 * the kernel picks the ports of wrangler dev's own sockets (bound to port 0), so a concurrent wrangler dev cannot
 * be handed the port between this check and npm start's bind (the cause of "Address already in use" flakes when
 * the kernel's pick for port 0 was used instead).
 */
export async function sparePort() {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 9997);
    if ((await portFree(port)) && (await portFree(port + 1)) && (await portFree(port + 2))) return port; // as npm start checks them
  }
}

/**
 * Starts `npm start` (migrations, seed, wrangler dev) on $PORT (its second location on $PORT2 or PORT + 1), else on
 * a spare port; resolves once it serves requests.
 */
export async function startEoEdge() {
  const port = process.env.PORT ? Number(process.env.PORT) : await sparePort();
  const state = resolve(process.env.EO_EDGE_STATE ?? ".state");
  const child = spawn("npm", ["start", "--silent"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...env, PORT: String(port), EO_EDGE_STATE: state },
    detached: true,
  });
  const untrack = reapOnExit(child.pid);
  let exited = false;
  child.on("exit", () => (exited = true));
  const stopGroup = groupStopper(child);
  const stop = async () => (await stopGroup(), untrack());
  const base = `http://127.0.0.1:${port}`;
  try {
    // migrations and the seed run before wrangler dev listens: retry waitReady (60 s each) for up to 5 minutes
    for (let i = 0; i < 5 && !exited; i++) {
      try {
        await waitReady(base, () => !exited);
        break;
      } catch (e) {
        if (i === 4) throw e;
      }
    }
    if (exited) throw new Error("npm start exited before serving");
    return { base, token: await getToken(base, join(state, "demo-client.json")), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * The server a check runs against: $CONSOLE_BASE when set (a server someone else started, e.g. the shared one of
 * test/e2e/browser-checks.mjs; stop() does nothing), else startEoEdge(). Resolves to { base, token, stop() } with a
 * token of the demo client of $EO_EDGE_STATE (default .state).
 */
export async function checkServer() {
  if (!process.env.CONSOLE_BASE) return startEoEdge();
  const base = process.env.CONSOLE_BASE;
  return {
    base,
    token: await getToken(base, join(resolve(process.env.EO_EDGE_STATE ?? ".state"), "demo-client.json")),
    stop: async () => {},
  };
}

/** Creates a WMS instance with `layers` through the Configuration API; returns its id. */
export async function createInstance(base, token, name, layers) {
  const r = await fetch(`${base}/configuration/v1/wms/instances`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name, layers }),
  });
  if (r.status !== 201) throw new Error(`create instance: ${r.status} ${await r.text()}`);
  return (await r.json()).id;
}

/** POSTs a Processing API request; resolves to the response bytes (throws on a non-200). */
export async function processBytes(base, token, body) {
  const r = await fetch(`${base}/api/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (r.status !== 200) throw new Error(`process: ${r.status} ${await r.text()}`);
  return new Uint8Array(await r.arrayBuffer());
}
