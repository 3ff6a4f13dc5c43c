// `npm run deploy`: deploys EO Edge to the Cloudflare account of `npx wrangler login`, or (`--local`) the same path on
// this machine. Safe to run again, and an interrupted run resumes: each step makes only what is missing, and
// <dir>/deploy.json records the settings and each step as it completes. The steps:
//   0. preflight   (remote) before anything is created: the account, Workers Paid, R2 enabled, the workers.dev
//                  subdomain or --domain, and every custom domain's zone, DNS records and Worker domains; a DNS record
//                  or another Worker's domain is replaced only with --replace-dns / --replace-domain
//                  (scripts/lib/deploy-preflight.mjs); the Worker's URL is known here, so PUBLIC_BASE_URL is right
//                  from the first deploy;
//   1. resources   every D1 database, R2 bucket and queue (dead-letter queues included) of wrangler.toml that the
//                  account lacks (read with `wrangler d1 list --json`, `r2 bucket list`, `queues list`);
//   2. config      the configuration deployed, generated from wrangler.toml into <dir>/wrangler.json (never into
//                  git): the D1 id, the Worker name, PUBLIC_BASE_URL, LOCATION_ID, LOCATIONS, S3_HOSTS; no routes
//                  (custom domains are attached in step 5b, not by wrangler, which replaces DNS records and other
//                  Workers' domains whenever it runs without a terminal);
//   3. secrets     JWT_PRIVATE_JWK (Ed25519, made with jose) and ADMIN_TOKEN (256 random bits) when missing:
//                  `wrangler secret put` (the value on stdin); locally <dir>/.dev.vars; the admin token is kept in
//                  <dir>/admin-token (mode 0600) for `npm run admin`;
//   4. migrations  `wrangler d1 migrations apply <db> --remote` (`--local --persist-to <dir>`);
//   5. deploy      `wrangler deploy`, the version it replaced recorded first (locally `wrangler dev` on --port;
//                  `--dry-run`: the bundle is built and its startup CPU checked against a one-line Worker's,
//                  scripts/lib/startup-check.mjs, and nothing else runs); 5b. the custom domains, through the API;
//   6. bootstrap   the first account, its OAuth client "admin" and an S3 key (admin API), atomic across crashes;
//                  their secrets go to <dir>/credentials.json (mode 0600), shown only on a terminal, never logged;
//   7. samples     with --with-samples: the sample scenes and their STAC items (admin API);
//   8. smoke test  a token, the catalog, one Process request against the deployed URL; when it fails, the Worker
//                  is rolled back to the version step 5 replaced (`wrangler rollback`).
// <dir> is .deploy/<name> (remote) or --state (local, default .state-deploy). See docs/deploy-and-edge-limits.md.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { experimental_readRawConfig } from "wrangler";
import { adminClient } from "./lib/admin-client.mjs";
import { archiveVars } from "./lib/archive-vars.mjs";
import { cloudflareApi, wranglerAuth } from "./lib/cloudflare-api.mjs";
import { bootstrap, credentialsFile, smokeTest, uploadSamples, waitServing } from "./lib/deploy-bootstrap.mjs";
import { configProblems, deployConfig, locationConfig, resourcesOf } from "./lib/deploy-config.ts";
import { PreflightError, attachDomains, preflight } from "./lib/deploy-preflight.mjs";
import { localSecrets, newSecrets, provision, remoteSecrets } from "./lib/deploy-steps.mjs";
import { liveVersion, rollback } from "./lib/deploy-versions.mjs";
import { checkStartup } from "./lib/startup-check.mjs";
import { wranglerRunner } from "./lib/wrangler-run.mjs";
import { startServer } from "./lib/bench.mjs";
import { sparePort } from "./lib/serve.mjs";

/** Most startup CPU a deployment may take, in ms (Cloudflare allows 1 s; 60% headroom kept). */
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
  --replace-dns           let a custom domain replace the DNS records its hostname has (refused without it)
  --replace-domain        let a custom domain move from another Worker of the account (refused without it)
  --d1-location HINT      where a new D1 database lives: weur eeur apac oc wnam enam
  --rotate-admin-token    set a new ADMIN_TOKEN (when its local copy is lost)
  --state DIR, --port N|auto, --serve   local: state folder (default .state-deploy), port (default 8789), keep serving`;

const { values: o } = parseArgs({
  options: {
    local: { type: "boolean" },
    "dry-run": { type: "boolean" },
    "with-samples": { type: "boolean" },
    serve: { type: "boolean" },
    name: { type: "string" },
    domain: { type: "string" },
    location: { type: "string" },
    "location-domain": { type: "string", multiple: true },
    "location-url": { type: "string", multiple: true },
    "s3-domain": { type: "string" },
    "d1-location": { type: "string" },
    "rotate-admin-token": { type: "boolean" },
    "replace-dns": { type: "boolean" },
    "replace-domain": { type: "boolean" },
    state: { type: "string" },
    port: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (o.help) console.log(USAGE), process.exit(0);
const die = (message) => (console.error(`npm run deploy: ${message}`), process.exit(1));
if (o.local && o["dry-run"])
  die("--dry-run is for a Cloudflare deployment; --local already runs everything on this machine");
const log = (line) => console.log(line);
const step = (n, what) => console.log(`${n}. ${what}`);

/** `ID=VALUE` flags as an object. */
const pairs = (list = []) =>
  Object.fromEntries(
    list.map((p) =>
      /^[\w-]+=\S+$/.test(p)
        ? [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]
        : die(`expected ID=VALUE, got '${p}'`),
    ),
  );

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
  accountId: saved.accountId,
  previousVersion: saved.previousVersion,
  version: saved.version,
  bootstrap: saved.bootstrap,
  steps: saved.steps ?? {},
};
if (o.local) s.url = `http://127.0.0.1:${s.port}`;
else if (s.domain) s.url = `https://${s.domain}`;
const w = wranglerRunner({ dryRun: o["dry-run"] });
const configPath = join(dir, "wrangler.json");
const flags = { replaceDns: !!o["replace-dns"], replaceDomain: !!o["replace-domain"] };
let databaseIds = saved.databaseIds ?? {};

/** Records `members` in <home>/deploy.json (settings and steps done; never in a dry run) as soon as they are known. */
async function save(members = {}) {
  Object.assign(s, members);
  if (!o["dry-run"])
    await writeFile(join(home, "deploy.json"), JSON.stringify({ ...s, databaseIds }, null, 2) + "\n", { mode: 0o600 });
}
/** Marks step `name` done (with the time) in deploy.json. */
const done = (name) => save({ steps: { ...s.steps, [name]: new Date().toISOString() } });

/**
 * Writes the generated configuration for the deployment's URL `url` (locally: no custom domains). Its routes stay
 * empty: custom domains are attached by attachDomains after the preflight, never by wrangler.
 */
async function writeConfig(url, databaseIds) {
  const loc = locationConfig({
    ...s,
    url,
    ...(o.local ? { domains: {}, s3Domain: undefined, domain: undefined } : {}),
  });
  // the public archive behind the built-in collections: Earth Search unless EO_EDGE_ARCHIVE names another
  const archive = archiveVars(process.env.EO_EDGE_ARCHIVE || "earth-search");
  const config = deployConfig(raw, {
    root: relative(dir, process.cwd()) || ".",
    name,
    databaseIds,
    vars: { ...loc.vars, ...archive },
    routes: [],
  });
  await writeFile(configPath, JSON.stringify(config, null, 2) + "\n");
  return loc;
}

const t0 = performance.now();
console.log(
  `EO Edge ${o.local ? `local deployment in ${relative(".", dir)} on ${s.url}` : `deployment '${name}'${o["dry-run"] ? " (dry run)" : ""}`}`,
);
const problems = configProblems(raw);
if (problems.length) die(`wrangler.toml is not safe to deploy:\n  ${problems.join("\n  ")}`);

let api;
if (!o.local && !o["dry-run"]) {
  step(0, "preflight: account, Workers Paid, R2, URL, custom domains (nothing is created before it passes)");
  try {
    api = cloudflareApi({ auth: await wranglerAuth(w) });
    const pf = await preflight(api, s, flags, log);
    w.env.CLOUDFLARE_ACCOUNT_ID = pf.accountId; // wrangler acts on the account the preflight checked
    await save({ url: pf.url, accountId: pf.accountId, hosts: pf.hosts });
    await done("preflight");
  } catch (e) {
    die(e instanceof PreflightError ? `preflight: ${e.message}. Nothing was created.` : e.message);
  }
}

step(1, "resources: D1, R2 buckets, queues (dead-letter queues included)");
const wanted = resourcesOf(raw, name);
if (o.local)
  log(
    `  local: ${[...wanted.databases.map((d) => d.name), ...wanted.buckets, ...wanted.queues].join(", ")} are made by wrangler dev in ${relative(".", dir)} on first use`,
  );
else {
  ({ databaseIds } = await provision(w, wanted, { d1Location: s.d1Location }, log));
  await done("resources");
}

step(2, `configuration: ${relative(".", configPath)}`);
// a dry run has no account to read the workers.dev subdomain from: its URL is a placeholder that is never deployed
const loc = await writeConfig(s.url ?? `https://${name}.<your-subdomain>.workers.dev`, databaseIds);
log(
  `  PUBLIC_BASE_URL ${loc.vars.PUBLIC_BASE_URL}, LOCATION_ID ${loc.vars.LOCATION_ID}${loc.vars.LOCATIONS ? `, LOCATIONS ${loc.vars.LOCATIONS}` : ""}${loc.vars.S3_HOSTS ? `, S3_HOSTS ${loc.vars.S3_HOSTS}` : ""}`,
);
for (const r of loc.routes)
  log(`  custom domain ${r.pattern}${o.local ? "" : " (attached in step 5b, after the deploy)"}`);

step(3, "secrets: JWT_PRIVATE_JWK, ADMIN_TOKEN");
const secrets = o.local ? localSecrets(join(dir, ".dev.vars")) : remoteSecrets(w, configPath);
const have = await secrets.names();
const fresh = await newSecrets();
const tokenFile = join(home, "admin-token");
const set = (what) => (w.dryRun ? `${what} would be set when missing` : `${what} set`);
if (!have.includes("JWT_PRIVATE_JWK"))
  await secrets
    .put("JWT_PRIVATE_JWK", fresh.JWT_PRIVATE_JWK)
    .then(() => log(`  ${set("JWT_PRIVATE_JWK")} (a new Ed25519 key)`));
else log("  JWT_PRIVATE_JWK is set (kept: rotate with npm run admin -- keys rotate)");
if (!have.includes("ADMIN_TOKEN") || o["rotate-admin-token"]) {
  if (!w.dryRun) await writeFile(tokenFile, fresh.ADMIN_TOKEN + "\n", { mode: 0o600 }); // kept before it is set
  await secrets.put("ADMIN_TOKEN", fresh.ADMIN_TOKEN);
  log(`  ${set("ADMIN_TOKEN")}; its copy for npm run admin: ${relative(".", join(home, "admin-token"))} (mode 0600)`);
} else if (!process.env.EO_EDGE_ADMIN_TOKEN && !existsSync(tokenFile) && !o["dry-run"]) {
  die(
    `ADMIN_TOKEN is set on the Worker but ${relative(".", tokenFile)} is missing: set EO_EDGE_ADMIN_TOKEN, or run again with --rotate-admin-token`,
  );
} else log("  ADMIN_TOKEN is set");
if (!o.local) await done("secrets");

step(4, "D1 migrations");
const db = wanted.databases[0].name;
const migrated = await w.must(
  ["d1", "migrations", "apply", db, ...(o.local ? ["--local", "--persist-to", dir] : ["--remote"]), "-c", configPath],
  { local: o.local },
);
if (!w.dryRun) log(`  ${/No migrations to apply/.test(migrated) ? "no migration to apply" : `${db}: applied`}`);
if (!o.local) await done("migrations");

step(
  5,
  o.local
    ? `serve: wrangler dev on ${s.url}`
    : o["dry-run"]
      ? "deploy (dry run): bundle and startup check"
      : "deploy: wrangler deploy",
);
let server;
if (o["dry-run"]) {
  await w.must(["deploy", "-c", configPath]);
  const cpu = await checkStartup(w, configPath, dir, log);
  const load = `the calibration Worker ${cpu.calibration.toFixed(0)} ms profiled for ${cpu.calibrationCpu.toFixed(0)} ms of CPU`;
  log(
    `  startup CPU ${cpu.judged.toFixed(1)} ms (profiled median ${cpu.worker.toFixed(1)} ms; ${load}), budget ${STARTUP_BUDGET_MS} ms, Cloudflare's limit 1 s`,
  );
  if (cpu.judged > STARTUP_BUDGET_MS)
    die(
      `startup takes ${cpu.judged.toFixed(1)} ms of CPU (profiled median ${cpu.worker.toFixed(1)} ms; ${load}), over the ${STARTUP_BUDGET_MS} ms budget`,
    );
} else if (o.local) {
  server = await startServer({ stateDir: dir, port: s.port, args: ["-c", configPath] });
} else {
  // a run that deployed but died before its smoke test passed resumes: the version to roll back to stays the one
  // that served before it (the live one is that run's, untested)
  const resumed = s.steps.deploy && !(s.steps.smoke >= s.steps.deploy) && s.previousVersion !== undefined;
  if (!resumed) await save({ previousVersion: (await liveVersion(api, s.accountId, name)) ?? null });
  await w.must(["deploy", "-c", configPath]);
  await save({ version: await liveVersion(api, s.accountId, name) });
  await done("deploy");
  log(
    `  deployed version ${s.version}${s.previousVersion ? ` (replacing ${s.previousVersion})` : " (the Worker's first)"}: ${s.url}`,
  );
  step(
    "5b",
    "custom domains (through the API; DNS records and other Workers' domains replaced only with --replace-dns / --replace-domain)",
  );
  try {
    await attachDomains(api, s.accountId, name, s.hosts ?? [], flags);
  } catch (e) {
    die(
      e instanceof PreflightError
        ? `custom domains: ${e.message}. The Worker is deployed at its previous addresses.`
        : e.message,
    );
  }
  for (const h of s.hosts ?? []) log(`  ${h.host}: this Worker's custom domain`);
  await done("domains");
}

if (o["dry-run"]) {
  log(
    "6-8. bootstrap, samples and smoke test: would call the admin API and the token, catalog and Process endpoints of the deployed URL",
  );
  console.log(`Dry run done in ${((performance.now() - t0) / 1000).toFixed(1)} s: nothing changed on the account.`);
  process.exit(0);
}

// where this script reaches the deployed Worker: its public URL, or EO_EDGE_DEPLOY_REACH_URL (the deploy twin,
// test/e2e/deploy-twin.mjs, which has no Cloudflare edge to reach)
const reach = process.env.EO_EDGE_DEPLOY_REACH_URL ?? s.url;
try {
  await waitServing(reach, o.local ? 60 : 600, log);
  const admin = adminClient(reach, process.env.EO_EDGE_ADMIN_TOKEN ?? (await readFile(tokenFile, "utf8")).trim());
  step(6, "first account, its admin OAuth client and an S3 key");
  const secrets = credentialsFile(join(home, "credentials.json"));
  await save({
    bootstrap: await bootstrap(admin, s.bootstrap, { record: (b) => save({ bootstrap: b }), secrets, log }),
  });
  await done("bootstrap");
  if (o["with-samples"]) {
    step(7, "sample scenes and items");
    const up = await uploadSamples(admin, resolve("data"));
    log(`  ${up.files} files uploaded (the others were there), ${up.items} items upserted`);
  }
  step(8, "smoke test");
  try {
    log(`  ${await smokeTest(reach, admin, s.bootstrap.accountId, !!o["with-samples"])}`);
  } catch (e) {
    if (o.local) throw e;
    if (!s.previousVersion)
      die(
        `${e.message}\nThe Worker's first version failed its smoke test; there is no earlier version to roll back to.`,
      );
    log(`  ${e.message}`);
    log(`  rolling back to version ${s.previousVersion} (the one this deploy replaced)`);
    await rollback(w, configPath, name, s.previousVersion, `npm run deploy: smoke test of ${s.version} failed`);
    await save({ version: s.previousVersion, steps: { ...s.steps, deploy: undefined } });
    die(
      `the smoke test failed; version ${s.previousVersion} serves again. Fix the cause and run npm run deploy again.`,
    );
  }
  if (!o.local) await done("smoke");
  console.log(
    `Done in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${s.url} (npm run admin -- ${o.local ? `--local --state ${relative(".", dir)} ` : ""}accounts list)`,
  );
  if (server && o.serve) {
    console.log("Serving; Ctrl-C stops.");
    await new Promise(() => {});
  }
} finally {
  await server?.stop();
}
