// `npm run deploy`: deploys EO Edge to the Cloudflare account of `npx wrangler login`, or (`--local`) the same path on
// this machine. Safe to run again: each step makes only what is missing. The steps:
//   1. resources   every D1 database, R2 bucket and queue (dead-letter queues included) of wrangler.toml that the
//                  account lacks (read with `wrangler d1 list --json`, `r2 bucket list`, `queues list`);
//   2. config      the configuration deployed, generated from wrangler.toml into <dir>/wrangler.json (never into
//                  git): the D1 id, the Worker name, PUBLIC_BASE_URL, LOCATION_ID, LOCATIONS, S3_HOSTS and one
//                  custom domain per hostname (scripts/lib/deploy-config.ts);
//   3. secrets     JWT_PRIVATE_JWK (Ed25519, made with jose) and ADMIN_TOKEN (256 random bits) when missing:
//                  `wrangler secret put` (the value on stdin); locally <dir>/.dev.vars; the admin token is kept in
//                  <dir>/admin-token (mode 0600) for `npm run admin`;
//   4. migrations  `wrangler d1 migrations apply <db> --remote` (`--local --persist-to <dir>`);
//   5. deploy      `wrangler deploy` (locally `wrangler dev` on --port; `--dry-run`: the bundle is built and its
//                  startup profiled, `wrangler check startup`, at most 400 ms of CPU, and nothing else runs);
//   6. bootstrap   the first account and its OAuth client "admin", whose secret is printed once (admin API);
//   7. samples     with --with-samples: the sample scenes and their STAC items (admin API);
//   8. smoke test  a token, the catalog, one Process request against the deployed URL.
// <dir> is .deploy/<name> (remote) or --state (local, default .state-deploy); <dir>/deploy.json keeps the settings,
// so a second run needs no flags. See README, "Deploy to Cloudflare".
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { experimental_readRawConfig } from "wrangler";
import { adminClient } from "./lib/admin-client.mjs";
import { archiveVars } from "./lib/archive-vars.mjs";
import { bootstrap, smokeTest, uploadSamples, waitServing } from "./lib/deploy-bootstrap.mjs";
import { deployConfig, locationConfig, resourcesOf, workersDevUrl } from "./lib/deploy-config.ts";
import { checkStartup, localSecrets, newSecrets, provision, remoteSecrets } from "./lib/deploy-steps.mjs";
import { wranglerRunner } from "./lib/wrangler-run.mjs";
import { startServer } from "./lib/bench.mjs";
import { sparePort } from "./lib/serve.mjs";

/** Most startup CPU a deployment may take, in ms (Cloudflare allows 1 s; issue 27 keeps 60% headroom). */
const STARTUP_BUDGET_MS = 400;

const USAGE = `npm run deploy -- [options]
  --local                 run every step on this machine (wrangler dev, local D1/R2/queues) instead of Cloudflare
  --dry-run               print what would run on the account; build the bundle and check its startup CPU
  --with-samples          upload the sample scenes and their STAC items
  --name NAME             Worker name (default: wrangler.toml's); resources are renamed after it
  --domain HOST           this Worker's hostname (custom domain), else its workers.dev URL
  --location ID           the location this Worker serves (default aws-eu-central-1)
  --location-domain ID=HOST   another location served by this Worker under its own hostname (repeatable)
  --location-url ID=URL   a location served by another deployment (repeatable)
  --s3-domain HOST        the S3 endpoint's own hostname (S3_HOSTS)
  --d1-location HINT      where a new D1 database lives: weur eeur apac oc wnam enam
  --rotate-admin-token    set a new ADMIN_TOKEN (when its local copy is lost)
  --state DIR, --port N|auto, --serve   local: state folder (default .state-deploy), port (default 8789), keep serving`;

const { values: o } = parseArgs({
  options: {
    local: { type: "boolean" }, "dry-run": { type: "boolean" }, "with-samples": { type: "boolean" }, serve: { type: "boolean" },
    name: { type: "string" }, domain: { type: "string" }, location: { type: "string" },
    "location-domain": { type: "string", multiple: true }, "location-url": { type: "string", multiple: true },
    "s3-domain": { type: "string" }, "d1-location": { type: "string" }, "rotate-admin-token": { type: "boolean" },
    state: { type: "string" }, port: { type: "string" }, help: { type: "boolean", short: "h" },
  },
});
if (o.help) (console.log(USAGE), process.exit(0));
const die = (message) => (console.error(`npm run deploy: ${message}`), process.exit(1));
if (o.local && o["dry-run"]) die("--dry-run is for a Cloudflare deployment; --local already runs everything on this machine");
const log = (line) => console.log(line);
const step = (n, what) => console.log(`${n}. ${what}`);

/** `ID=VALUE` flags as an object. */
const pairs = (list = []) => Object.fromEntries(list.map((p) => (/^[\w-]+=\S+$/.test(p) ? [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)] : die(`expected ID=VALUE, got '${p}'`))));

const raw = experimental_readRawConfig({ config: "wrangler.toml" }).rawConfig;
const name = o.name ?? raw.name;
const home = o.local ? resolve(o.state ?? ".state-deploy") : resolve(".deploy", name);
// a dry run writes only below its own folder: the deployment's settings stay as they are
const dir = o["dry-run"] ? join(home, "dry-run") : home;
await mkdir(dir, { recursive: true, mode: 0o700 });
const saved = JSON.parse(await readFile(join(home, "deploy.json"), "utf8").catch(() => "{}"));
const s = {
  name,
  location: o.location ?? saved.location ?? "aws-eu-central-1",
  domain: o.domain ?? saved.domain,
  domains: { ...saved.domains, ...pairs(o["location-domain"]) },
  urls: { ...saved.urls, ...pairs(o["location-url"]) },
  s3Domain: o["s3-domain"] ?? saved.s3Domain,
  d1Location: o["d1-location"] ?? saved.d1Location,
  port: o.local ? (o.port === "auto" ? await sparePort() : Number(o.port ?? saved.port ?? 8789)) : undefined,
  url: saved.url,
  bootstrap: saved.bootstrap,
};
if (o.local) s.url = `http://127.0.0.1:${s.port}`;
else if (s.domain) s.url = `https://${s.domain}`;
const w = wranglerRunner({ dryRun: o["dry-run"] });
const configPath = join(dir, "wrangler.json");

/** Writes the generated configuration for the deployment's URL `url` (locally: no custom domains). */
async function writeConfig(url, databaseIds) {
  const loc = locationConfig({ ...s, url, ...(o.local ? { domains: {}, s3Domain: undefined, domain: undefined } : {}) });
  // the public archive behind the built-in collections (issue 36): Earth Search unless EO_EDGE_ARCHIVE names another
  const archive = archiveVars(process.env.EO_EDGE_ARCHIVE || "earth-search");
  const config = deployConfig(raw, { root: relative(dir, process.cwd()) || ".", name, databaseIds, vars: { ...loc.vars, ...archive }, routes: loc.routes });
  await writeFile(configPath, JSON.stringify(config, null, 2) + "\n");
  return loc;
}

const t0 = performance.now();
console.log(`EO Edge ${o.local ? `local deployment in ${relative(".", dir)} on ${s.url}` : `deployment '${name}'${o["dry-run"] ? " (dry run)" : ""}`}`);
if (!o.local && !o["dry-run"] && /not authenticated/i.test((await w.must(["whoami"])).toString())) die("not logged in to Cloudflare: run `npx wrangler login` first (or set CLOUDFLARE_API_TOKEN)");

step(1, "resources: D1, R2 buckets, queues (dead-letter queues included)");
const wanted = resourcesOf(raw, name);
let databaseIds = saved.databaseIds ?? {};
if (o.local) log(`  local: ${[...wanted.databases.map((d) => d.name), ...wanted.buckets, ...wanted.queues].join(", ")} are made by wrangler dev in ${relative(".", dir)} on first use`);
else ({ databaseIds } = await provision(w, wanted, { d1Location: s.d1Location }, log));

step(2, `configuration: ${relative(".", configPath)}`);
const loc = await writeConfig(s.url ?? "https://workers-dev-url.invalid", databaseIds);
log(`  PUBLIC_BASE_URL ${loc.vars.PUBLIC_BASE_URL}, LOCATION_ID ${loc.vars.LOCATION_ID}${loc.vars.LOCATIONS ? `, LOCATIONS ${loc.vars.LOCATIONS}` : ""}${loc.vars.S3_HOSTS ? `, S3_HOSTS ${loc.vars.S3_HOSTS}` : ""}`);
for (const r of loc.routes) log(`  custom domain ${r.pattern}`);

step(3, "secrets: JWT_PRIVATE_JWK, ADMIN_TOKEN");
const secrets = o.local ? localSecrets(join(dir, ".dev.vars")) : remoteSecrets(w, configPath);
const have = await secrets.names();
const fresh = await newSecrets();
const tokenFile = join(home, "admin-token");
const set = (what) => (w.dryRun ? `${what} would be set when missing` : `${what} set`);
if (!have.includes("JWT_PRIVATE_JWK")) await secrets.put("JWT_PRIVATE_JWK", fresh.JWT_PRIVATE_JWK).then(() => log(`  ${set("JWT_PRIVATE_JWK")} (a new Ed25519 key)`));
else log("  JWT_PRIVATE_JWK is set (kept: rotate with npm run admin -- keys rotate)");
if (!have.includes("ADMIN_TOKEN") || o["rotate-admin-token"]) {
  if (!w.dryRun) await writeFile(tokenFile, fresh.ADMIN_TOKEN + "\n", { mode: 0o600 }); // kept before it is set
  await secrets.put("ADMIN_TOKEN", fresh.ADMIN_TOKEN);
  log(`  ${set("ADMIN_TOKEN")}; its copy for npm run admin: ${relative(".", join(home, "admin-token"))} (mode 0600)`);
} else if (!process.env.EO_EDGE_ADMIN_TOKEN && !existsSync(tokenFile) && !o["dry-run"]) {
  die(`ADMIN_TOKEN is set on the Worker but ${relative(".", tokenFile)} is missing: set EO_EDGE_ADMIN_TOKEN, or run again with --rotate-admin-token`);
} else log("  ADMIN_TOKEN is set");

step(4, "D1 migrations");
const db = wanted.databases[0].name;
const migrated = await w.must(["d1", "migrations", "apply", db, ...(o.local ? ["--local", "--persist-to", dir] : ["--remote"]), "-c", configPath], { local: o.local });
if (!w.dryRun) log(`  ${/No migrations to apply/.test(migrated) ? "no migration to apply" : `${db}: applied`}`);

step(5, o.local ? `serve: wrangler dev on ${s.url}` : o["dry-run"] ? "deploy (dry run): bundle and startup check" : "deploy: wrangler deploy");
let server;
if (o["dry-run"]) {
  await w.must(["deploy", "-c", configPath]);
  const cpu = await checkStartup(w, configPath, dir);
  log(`  startup CPU ${cpu.toFixed(1)} ms (budget ${STARTUP_BUDGET_MS} ms, Cloudflare's limit 1 s)`);
  if (cpu > STARTUP_BUDGET_MS) die(`startup takes ${cpu.toFixed(1)} ms of CPU, over the ${STARTUP_BUDGET_MS} ms budget`);
} else if (o.local) {
  server = await startServer({ stateDir: dir, port: s.port, args: ["-c", configPath] });
} else {
  const out = await w.must(["deploy", "-c", configPath]);
  if (!s.url) {
    s.url = workersDevUrl(out) ?? die(`wrangler deploy printed no workers.dev URL (enable workers.dev, or give --domain):\n${out}`);
    log(`  deployed at ${s.url}; deploying again with PUBLIC_BASE_URL ${s.url}`);
    await writeConfig(s.url, databaseIds);
    await w.must(["deploy", "-c", configPath]);
  }
  log(`  deployed: ${s.url}`);
}

if (o["dry-run"]) {
  log("6-8. bootstrap, samples and smoke test: would call the admin API and the token, catalog and Process endpoints of the deployed URL");
  console.log(`Dry run done in ${((performance.now() - t0) / 1000).toFixed(1)} s: nothing changed on the account.`);
  process.exit(0);
}

try {
  await waitServing(s.url, o.local ? 60 : 600, log);
  const admin = adminClient(s.url, process.env.EO_EDGE_ADMIN_TOKEN ?? (await readFile(tokenFile, "utf8")).trim());
  step(6, "first account, its admin OAuth client and an S3 key");
  s.bootstrap = await bootstrap(admin, s.bootstrap, log);
  await writeFile(join(home, "deploy.json"), JSON.stringify({ ...s, databaseIds }, null, 2) + "\n");
  if (o["with-samples"]) {
    step(7, "sample scenes and items");
    const up = await uploadSamples(admin, resolve("data"));
    log(`  ${up.files} files uploaded (the others were there), ${up.items} items upserted`);
  }
  step(8, "smoke test");
  log(`  ${await smokeTest(s.url, admin, s.bootstrap.accountId, !!o["with-samples"])}`);
  console.log(`Done in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${s.url} (npm run admin -- ${o.local ? `--local --state ${relative(".", dir)} ` : ""}accounts list)`);
  if (server && o.serve) {
    console.log("Serving; Ctrl-C stops.");
    await new Promise(() => {});
  }
} finally {
  await server?.stop();
}
