// The local deployment `npm start` serves (scripts/start.mjs) and `npm run credentials` describes
// (scripts/credentials.mjs): its state folder, its addresses, the demo credentials kept in the state folder, and
// the environment of every wrangler process (no network calls: the machine may be offline).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join, resolve } from "node:path";

/**
 * Environment for wrangler (and getPlatformProxy in scripts/seed.ts): the caller's, with every network call of
 * wrangler itself off. WRANGLER_SEND_METRICS: usage metrics; WRANGLER_HIDE_BANNER: the banner and with it the npm
 * registry update check (wrangler's printWranglerBanner); CLOUDFLARE_CF_FETCH_ENABLED=false: miniflare's download of
 * https://workers.cloudflare.com/cf.json for `Request.cf` (offline: a `getaddrinfo ENOTFOUND` stack trace per
 * start; requests then carry miniflare's placeholder `cf` object, as they do after a failed download);
 * WRANGLER_SEND_ERROR_REPORTS: crash reports (off by default; kept off).
 */
export const wranglerEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
};

/**
 * [command, args] running wrangler with `args` on this Node (npm scripts' Node 22, >= the 22.12 wrangler needs):
 * its CLI module as wrangler's bin script runs it (`node --no-warnings wrangler-dist/cli.js`), without `npx` (which
 * starts npm first, about 0.4 s of CPU) and without the bin script's own process, which does not pass a signal on
 * to the CLI: a SIGINT sent to the spawned process reaches wrangler itself, which stops its workerd.
 */
export const wrangler = (args) => [
  process.execPath,
  ["--no-warnings", resolve("node_modules/wrangler/wrangler-dist/cli.js"), ...args],
];

/**
 * `wrangler dev`'s `--inspector-port` from $INSPECTOR_PORT (none when unset: wrangler takes the first free port from
 * 9229). CI sets 0, a port the kernel picks: wrangler's own pick checks a port is free and binds it later, so two
 * servers starting in the same second took the same one and one failed ("Address already in use (socket
 * direct:1:default)").
 */
export const inspectorPort = () => (process.env.INSPECTOR_PORT ? ["--inspector-port", process.env.INSPECTOR_PORT] : []);

/** Where `npm start` records the state folder it serves, so that `npm run credentials` finds it without EO_EDGE_STATE. */
const LAST_START = resolve("node_modules/.cache/eo-edge/last-start.json");

/** The state folder `npm start` uses: $EO_EDGE_STATE, default `.state` (absolute). */
export const startState = () => resolve(process.env.EO_EDGE_STATE ?? ".state");

/**
 * The state folder of the service a script should reach: $EO_EDGE_STATE when set, else the one the last
 * `npm start` served (recorded by {@link recordStart}) while it exists, else `.state` (absolute).
 */
export function currentState() {
  if (process.env.EO_EDGE_STATE) return startState();
  try {
    const { state } = JSON.parse(readFileSync(LAST_START, "utf8"));
    if (typeof state === "string" && existsSync(state)) return state;
  } catch {
    /* no npm start yet */
  }
  return startState();
}

/**
 * The S3 endpoint `npm start` serves on 127.0.0.1:s3Port (the one place that says where it is): the S3 API at the
 * root of its own port, as GDAL's `/vsis3/` (AWS_S3_ENDPOINT=127.0.0.1:<port>), rasterio and s3fs need; the Worker
 * serves S3 at the root of the addresses in S3_HOSTS (src/s3/address.ts). Every location's `<url>/s3` serves the
 * same buckets, for clients given an endpoint URL.
 */
export const s3Endpoint = (s3Port) => `http://127.0.0.1:${s3Port}`;

/**
 * The addresses `npm start` serves on 127.0.0.1 (src/locations; the Worker answers on port, port2 and s3Port
 * forward to it): the locations, primary `aws-eu-central-1` (Sentinel-2, Sentinel-1 GRD; token issuer, console,
 * docs) on port and `creo` (BYOC collections of buckets in CREODIAS regions, scripts/lib/regions.mjs) on port2, and
 * the S3 endpoint on s3Port. The buckets are the deployment's, not a location's: one S3 port serves both. The shape
 * of <state>/endpoints.json.
 */
export function endpoints(port, port2, s3Port) {
  const base = `http://127.0.0.1:${port}`;
  const base2 = `http://127.0.0.1:${port2}`;
  return {
    base_url: base,
    token_url: `${base}/auth/realms/main/protocol/openid-connect/token`,
    s3_endpoint: s3Endpoint(s3Port),
    console_url: `${base}/`,
    docs_url: `${base}/docs.html`,
    locations: [
      { id: "aws-eu-central-1", hosts: "Sentinel-2 L1C/L2A, Sentinel-1 GRD", url: base },
      { id: "creo", hosts: "BYOC in CREODIAS buckets", url: base2 },
    ],
  };
}

/** `npm start`'s ports: $PORT (default 8787), $PORT2 (default PORT + 1) and $S3_PORT (default PORT + 2). */
export function startPorts() {
  const port = Number(process.env.PORT ?? 8787);
  return { port, port2: Number(process.env.PORT2 ?? port + 1), s3Port: Number(process.env.S3_PORT ?? port + 2) };
}

/** Writes <state>/endpoints.json (what this start serves, with its pid) and points `npm run credentials` at state. */
export function recordStart(state, served) {
  writeFileSync(
    join(state, "endpoints.json"),
    JSON.stringify({ ...served, pid: process.pid, started: new Date().toISOString() }, null, 2) + "\n",
  );
  try {
    mkdirSync(dirname(LAST_START), { recursive: true });
    writeFileSync(LAST_START, JSON.stringify({ state }) + "\n");
  } catch {
    /* read-only node_modules: credentials then needs EO_EDGE_STATE */
  }
}

/** The addresses recorded by the last `npm start` of state, else those $PORT/$PORT2/$S3_PORT (or the defaults) give. */
export function servedEndpoints(state) {
  try {
    return JSON.parse(readFileSync(join(state, "endpoints.json"), "utf8"));
  } catch {
    const { port, port2, s3Port } = startPorts();
    return endpoints(port, port2, s3Port);
  }
}

/**
 * The demo S3 keys of state, kept in <state>/demo-s3-keys.json (mode 0600), the one source of the keys the S3
 * endpoint of that state accepts: made once per state folder (random), or taken from $S3_ACCESS_KEY_ID and
 * $S3_SECRET_ACCESS_KEY when `override` and both are set (then written to the file, so that credentials and later
 * starts see them). Returns { accessKeyId, secretAccessKey }.
 */
export function demoS3Keys(state, override = false) {
  const file = join(state, "demo-s3-keys.json");
  const env = process.env;
  const given =
    override && env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
      : undefined;
  if (given || !existsSync(file)) {
    const keys = given ?? {
      accessKeyId: `EOEDGE${randomBytes(7).toString("hex").toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString("base64url"),
    };
    mkdirSync(state, { recursive: true });
    writeFileSync(file, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

/** The demo OAuth client of state (<state>/demo-client.json, written by scripts/seed.ts); undefined before the first seed. */
export function demoClient(state) {
  try {
    const { client_id, client_secret } = JSON.parse(readFileSync(join(state, "demo-client.json"), "utf8"));
    return { client_id, client_secret };
  } catch {
    return undefined;
  }
}

/** Resolves true when nothing accepts TCP connections on 127.0.0.1:port. */
export function portFree(port) {
  return new Promise((done) => {
    const socket = createConnection({ host: "127.0.0.1", port: Number(port) });
    socket.once("connect", () => (socket.destroy(), done(false)));
    socket.once("error", () => done(true));
  });
}
