// `npm start`: builds what is out of date (wasm/build.mjs, scripts/build-web.mjs), prepares the state folder
// $EO_EDGE_STATE (default .state: D1 migrations, sample data, demo client; skipped while nothing changed, see
// scripts/lib/prepare.mjs), serves two locations side by side and prints a short banner with the addresses and
// the demo credentials. The child commands' output is kept and shown only when one fails; wrangler dev's own
// lines are shown from the moment it serves (request logs), see scripts/lib/devlog.mjs.
//
// Locations (src/locations/): one wrangler dev Worker (one D1, R2, Durable Objects and queue: one coherent state)
// answers on two addresses: http://127.0.0.1:$PORT (default 8787) is location `aws-eu-central-1` (the primary,
// hosting Sentinel-2 L1C/L2A and Sentinel-1 GRD, where sentinelhub-py expects them) and http://127.0.0.1:$PORT2
// (default PORT+1) is location `creo` (hosting the BYOC collections of buckets in CREODIAS regions: the seeded
// Sentinel-1 BYOC sample, scripts/lib/regions.mjs). PORT2 is a plain TCP forward to PORT; the Worker serves a request as the location whose configured URL
// it was sent to (LOCATIONS). Tokens from either address work at both (one issuer, as Sentinel Hub's one login).
// http://127.0.0.1:$S3_PORT (default PORT+2) is the S3 endpoint at the root of its own address, for GDAL's /vsis3/,
// rasterio and s3fs, which cannot sign for an endpoint under a path (<location>/s3 still serves boto3 and aws cli):
// another TCP forward to PORT, served as S3 because its address is in S3_HOSTS (src/s3/address.ts).
// The addresses are written to <state>/endpoints.json for `npm run credentials` (scripts/credentials.mjs).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { relative } from "node:path";
import { devLog, eachLine } from "./lib/devlog.mjs";
import {
  demoClient,
  demoS3Keys,
  endpoints,
  inspectorPort,
  portFree,
  recordStart,
  startPorts,
  startState,
  wrangler,
  wranglerEnv,
} from "./lib/local.mjs";
import { forgetSeed, prepareState } from "./lib/prepare.mjs";
import { BUCKET_REGIONS } from "./lib/regions.mjs";
import { archiveVars } from "./lib/archive-vars.mjs";
import { startArchiveTwin, TWIN_AWS_KEYS } from "./archive-twin.mjs";

const t0 = performance.now();
const seconds = () => ((performance.now() - t0) / 1000).toFixed(1);
const state = startState();
const { port, port2, s3Port } = startPorts();
const served = endpoints(port, port2, s3Port);

/** Exits with a message (and the output of the failed command, when given). */
function die(message, output = "") {
  if (output) process.stderr.write(output.endsWith("\n") ? output : `${output}\n`);
  console.error(`npm start: ${message}`);
  process.exit(1);
}

/** Runs a build script with this Node, quietly; shows its output when it fails, its notices when it prints any. */
function build(script) {
  const r = spawnSync(process.execPath, [script], { encoding: "utf8", env: wranglerEnv });
  if (r.status !== 0) die(`${script} failed (exit ${r.status ?? r.signal})`, `${r.stdout}${r.stderr}`);
  const said = `${r.stdout}${r.stderr}`.trim();
  if (said) console.log(said);
}

if (new Set([port, port2, s3Port]).size !== 3)
  die(`PORT (${port}), PORT2 (${port2}) and S3_PORT (${s3Port}) must be three different ports.`);
for (const p of [port, port2, s3Port])
  if (!(await portFree(p)))
    die(`port ${p} is in use (another npm start?): stop it, or set PORT (and PORT2, S3_PORT) to free ports.`);
build("wasm/build.mjs");
build("scripts/build-web.mjs");
mkdirSync(state, { recursive: true });
const s3 = demoS3Keys(state, true);
recordStart(state, served);
const where = relative(".", state) || ".";
try {
  const prepared = prepareState(state, [], () =>
    console.log(
      `Preparing ${where}: D1 migrations, sample data, demo client (once per change of data/, migrations/ or src/; about half a minute)...`,
    ),
  );
  if (prepared.seeded) console.log(`Prepared ${where} in ${seconds()} s: ${prepared.summary}`);
} catch (e) {
  die(
    `preparing ${where} failed; see above. A half-prepared state folder can be deleted (rm -rf ${where}).`,
    e.message,
  );
}
const demo = demoClient(state);

// The public archives behind the built-in collections (scripts/lib/archive-vars.mjs): the archive twin
// (scripts/archive-twin.mjs) in this process on ARCHIVE_TWIN_PORT (default PORT+3), unless EO_EDGE_ARCHIVE names a
// real archive (earth-search, planetary-computer; ARCHIVE_STAC_URL and ARCHIVE_URL_MAP override its defaults). The
// twin's requester-pays buckets take its test keys (TWIN_AWS_KEYS, not AWS keys); real keys belong in .dev.vars.
const archive = process.env.EO_EDGE_ARCHIVE || "twin";
const twinPort = Number(process.env.ARCHIVE_TWIN_PORT ?? port + 3);
const twin =
  archive === "twin"
    ? await startArchiveTwin({ port: twinPort }).catch((e) =>
        die(`the archive twin cannot listen on ${twinPort} (ARCHIVE_TWIN_PORT): ${e.message}`),
      )
    : undefined;
let archiveVarList;
try {
  const keys = twin
    ? { AWS_ACCESS_KEY_ID: TWIN_AWS_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: TWIN_AWS_KEYS.secretAccessKey }
    : {};
  archiveVarList = Object.entries({ ...archiveVars(archive, process.env, twin), ...keys }).map(([k, v]) => `${k}:${v}`);
} catch (e) {
  die(e.message);
}

const locations = JSON.stringify(served.locations.map(({ id, url }) => ({ id, url })));
// PUBLIC_BASE_URL (token issuer and links) is the primary location's address. The S3 endpoint's keys are the
// accounts' (D1, src/buckets/keys.ts): the seed stores the demo keys for the demo account.
// BUCKET_REGIONS: the second location's BYOC sample is in a CREODIAS bucket (scripts/lib/regions.mjs).
// S3_HOSTS: the S3 port's address, served as S3 at its root (src/s3/address.ts).
const vars = [
  `PUBLIC_BASE_URL:${served.base_url}`,
  "LOCATION_ID:aws-eu-central-1",
  `LOCATIONS:${locations}`,
  `BUCKET_REGIONS:${JSON.stringify(BUCKET_REGIONS)}`,
  `S3_HOSTS:${new URL(served.s3_endpoint).host}`,
  ...archiveVarList,
].flatMap((v) => ["--var", v]);
const dev = spawn(
  ...wrangler([
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    state,
    "--show-interactive-dev-session=false",
    "--test-scheduled",
    ...inspectorPort(),
    ...vars,
  ]),
  { stdio: ["ignore", "pipe", "pipe"], env: wranglerEnv },
);

// Until it serves, wrangler dev's output (banner, bindings table) is kept for a failure report; then shown, filtered.
let ready = false;
const early = [];
const log = devLog((line) => console.log(line));
const onLine = (line) => (ready ? log.push(line) : early.push(line));
eachLine(dev.stdout, onLine);
eachLine(dev.stderr, onLine);
dev.on("exit", (code, signal) => {
  if (!ready) die(`wrangler dev exited (${code ?? signal}) before serving`, early.join("\n"));
  process.exit(code ?? 0);
});

/** Listens on 127.0.0.1:from and pipes every connection to the Worker's port unchanged (the Host header names `from`). */
function forwardPort(from, what) {
  const server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port });
    client.pipe(upstream).pipe(client);
    const close = () => (client.destroy(), upstream.destroy());
    client.on("error", close);
    upstream.on("error", close);
  });
  server.on("error", (e) => (dev.kill("SIGINT"), die(`${what} port ${from}: ${e.message}`)));
  server.listen(from, "127.0.0.1");
  return server;
}
const forwards = [forwardPort(port2, "the second location's"), forwardPort(s3Port, "the S3 endpoint's")];
const stop = () => (forwards.forEach((f) => f.close()), dev.kill("SIGINT"));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

/** Resolves once the Worker answers its OpenID configuration (the first HTTP 200). */
async function served200() {
  for (;;) {
    try {
      if ((await fetch(`${served.base_url}/auth/realms/main/.well-known/openid-configuration`)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** True when the token endpoint accepts the demo client (it was deleted or changed if not). */
async function demoClientAccepted() {
  const body = new URLSearchParams({ grant_type: "client_credentials", ...demo });
  return (await fetch(served.token_url, { method: "POST", body })).status === 200;
}

await served200();
const accepted = await demoClientAccepted();
// the request logs of these two requests are ours, not the user's
log.swallow(/GET \/auth\/realms\/main\/\.well-known\/openid-configuration /);
log.swallow(/POST \/auth\/realms\/main\/protocol\/openid-connect\/token /);
// of the lines before, only warnings and errors are shown
for (const line of early.splice(0)) log.push(line, /\[wrangler:(warn|error)\]|✘|ERROR/.test(line));
ready = true;

// wrangler dev runs no crons: the Worker's `scheduled` handler (wrangler.toml [triggers]: the third-party import
// sweep, src/dataimport/plugin.ts resumeImports) is run here through --test-scheduled's /__scheduled route, once
// now (work cut short by a previous run's end resumes at start) and then every 5 minutes, as the cron would.
const CRON = "*/5 * * * *";
const sweep = () => {
  log.swallow(/GET \/__scheduled/); // its request log line is ours, not the user's
  fetch(`${served.base_url}/__scheduled?cron=${encodeURIComponent(CRON)}`).then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
};
sweep();
setInterval(sweep, 5 * 60_000);

const pad = (s, n) => s.padEnd(n);
console.log(`
EO Edge is running (state ${where}, ready in ${seconds()} s)
  Console           ${served.console_url}
  API docs          ${served.docs_url}
${served.locations.map((l) => `  ${pad(l.id, 17)} ${pad(l.url, 23)} (${l.hosts}; S3 also at ${l.url}/s3)`).join("\n")}
  S3 endpoint       ${pad(served.s3_endpoint, 23)} (every bucket, both locations; GDAL: AWS_S3_ENDPOINT=${new URL(served.s3_endpoint).host} AWS_HTTPS=NO)
  Archive           ${twin ? `twin ${twin.url} (Earth Search ${twin.stacUrl["earth-search"]}, Planetary Computer ${twin.stacUrl["planetary-computer"]})` : `${archive} ${archiveVarList[1].slice("ARCHIVE_STAC_URL:".length)}`}
  Token URL         ${served.token_url}
  Demo client       id ${demo.client_id}  secret ${demo.client_secret}
  Demo S3 keys      id ${s3.accessKeyId}  secret ${s3.secretAccessKey}
For scripts: npm run -s credentials (all of it as JSON). In a shell:
  eval "$(npm run -s credentials -- --env)"
  TOKEN=$(curl -s -d grant_type=client_credentials -d client_id=$CLIENT_ID -d client_secret=$CLIENT_SECRET $TOKEN_URL | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -s -H "Authorization: Bearer $TOKEN" $BASE_URL/api/v1/metadata/location
Requests are logged below; Ctrl-C stops the server.`);
if (!accepted) {
  console.log(
    `WARNING: the server refuses the demo client of ${where}/demo-client.json (deleted?); restart npm start to make a new one.`,
  );
  forgetSeed(state);
}
