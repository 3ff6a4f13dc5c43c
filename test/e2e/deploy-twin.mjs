// `npm run deploy:twin`: `npm run deploy` against a recorded stand-in of the Cloudflare API (test/services/
// cf-standin.mjs), with wrangler itself pointed at it (CLOUDFLARE_API_BASE_URL), so that CI sees the calls and flags
// a real deploy sends. The deployed Worker cannot be reached (there is no edge): a small stand-in of it answers the
// admin API, the token, catalog and Process endpoints the bootstrap and smoke test call (EO_EDGE_DEPLOY_REACH_URL);
// the real Worker's side of those calls is run by .ci/run's local twin (`npm run deploy -- --local`). Paths checked:
//   1. preflight refusals (no Workers Paid, R2 off, no workers.dev subdomain and no --domain, a hostname with DNS
//      records, another Worker's domain): exit 1 naming the fix, and no write call reached the API;
//   2. a first deploy with --domain on a hostname with a DNS record and --replace-dns: the custom domain written by
//      deploy.mjs with override_existing_dns_record true and override_existing_origin false, never by wrangler;
//      observability in the uploaded metadata; PUBLIC_BASE_URL the final URL from the first upload; each step in
//      deploy.json; a bootstrap that dies after the account was made, resumed by a rerun into one account with one
//      client; the secrets in a mode-0600 file and never on stdout (not a terminal);
//   3. a first deploy without --domain: PUBLIC_BASE_URL the workers.dev URL read in the preflight, one upload;
//   4. a redeploy whose smoke test fails: `wrangler rollback` to the version it replaced.
// The paths run side by side (each deploy mostly waits on node and wrangler starting); their checks are printed in
// the order above. Ports: the stand-ins listen on free ports of 127.0.0.1. Exits 1 when a check failed.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { rm, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { encode } from "fast-png";
import { defaultState, startStandin } from "../services/cf-standin.mjs";

const ACCOUNT = defaultState().accounts[0].id;
const failures = [];
/**
 * A recorder of checks for one path: the paths run side by side (each deploy is mostly waiting on node and wrangler
 * starting), so each keeps its results and `report` prints them in the order of the paths.
 */
const recorder = () => {
  const lines = [];
  const check = (ok, what) => lines.push([ok, what]);
  const report = () => {
    for (const [ok, what] of lines) {
      console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
      if (!ok) failures.push(what);
    }
  };
  return { check, report };
};

/**
 * A stand-in of the deployed Worker (what deploy.mjs reaches after `wrangler deploy`): the OpenID configuration,
 * the admin API calls of the bootstrap and smoke test (accounts, clients, S3 keys), the token endpoint, the catalog
 * and a 64 x 64 PNG for Process. `failClientsOnce`: the first POST of a client answers 500 (a crash mid-bootstrap);
 * `broken`: the token endpoint answers 500 (a version failing its smoke test).
 */
async function workerStandin() {
  const st = { accounts: new Map(), failClientsOnce: false, broken: false, calls: [] };
  const png = Buffer.from(encode({ width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(255), channels: 4 }));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://w");
    let body = "";
    for await (const c of req) body += c;
    st.calls.push(`${req.method} ${url.pathname}`);
    const json = (status, value) => (
      res.writeHead(status, { "content-type": "application/json" }),
      res.end(value === undefined ? "" : JSON.stringify(value))
    );
    const p = url.pathname.replace(/^\/api\/v1\/admin/, "");
    let m;
    if (url.pathname === "/auth/realms/main/.well-known/openid-configuration") return json(200, {});
    if (url.pathname === "/auth/realms/main/protocol/openid-connect/token")
      return st.broken ? json(500, { error: "broken version" }) : json(200, { access_token: "t" });
    if (url.pathname === "/api/v1/catalog/1.0.0/collections")
      return json(200, { collections: [{ id: "sentinel-2-l2a" }] });
    if (url.pathname === "/api/v1/process") return (res.writeHead(200, { "content-type": "image/png" }), res.end(png));
    if (p === "/accounts" && req.method === "GET")
      return json(200, { data: [...st.accounts.keys()].map((id) => ({ id })) });
    if (p === "/accounts" && req.method === "POST") {
      const { id } = JSON.parse(body);
      if (st.accounts.has(id)) return json(409, { error: { message: "exists" } });
      st.accounts.set(id, { clients: [] });
      return json(201, { id });
    }
    if ((m = /^\/accounts\/([^/]+)$/.exec(p)))
      return st.accounts.has(m[1]) ? json(200, { id: m[1] }) : json(404, { error: { message: "no account" } });
    if ((m = /^\/accounts\/([^/]+)\/clients$/.exec(p))) {
      const a = st.accounts.get(m[1]);
      if (req.method === "GET") return json(200, { data: { active: a.clients, inactive: [] } });
      if (st.failClientsOnce) return ((st.failClientsOnce = false), json(500, { error: { message: "crash" } }));
      const c = {
        clientId: crypto.randomUUID(),
        name: JSON.parse(body).name,
        clientSecret: `secret-${crypto.randomUUID()}`,
      };
      a.clients.push({ clientId: c.clientId, name: c.name });
      return json(201, c);
    }
    if ((m = /^\/accounts\/([^/]+)\/clients\/([^/]+)$/.exec(p))) {
      const a = st.accounts.get(m[1]);
      a.clients = a.clients.filter((c) => c.clientId !== m[2]);
      return (res.writeHead(204), res.end());
    }
    if ((m = /^\/accounts\/([^/]+)\/s3keys$/.exec(p)))
      return json(201, { accessKeyId: "EOEDGETWIN", secretAccessKey: `s3secret-${crypto.randomUUID()}` });
    return json(404, { error: { message: `worker stand-in: no ${req.method} ${url.pathname}` } });
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return { st, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((d) => server.close(d)) };
}

/** Runs `npm run deploy` (tsx scripts/deploy.mjs) with `args` against the stand-ins; resolves to { code, out }. */
function deploy(args, api, worker) {
  return new Promise((done) => {
    const env = {
      ...process.env,
      CLOUDFLARE_API_BASE_URL: api.base,
      CLOUDFLARE_API_TOKEN: api.state.token,
      EO_EDGE_DEPLOY_REACH_URL: worker.url,
      EO_EDGE_ADMIN_TOKEN: "twin-admin-token",
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_ACCOUNT_ID: "",
    };
    delete env.CLOUDFLARE_ACCOUNT_ID; // the preflight finds the one account
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/deploy.mjs", ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    child.on("close", (code) => done({ code, out }));
  });
}

/** The Worker uploads recorded: a first upload (PUT .../scripts/{name}) or a redeploy's version (POST .../versions). */
const uploadsOf = (requests) =>
  requests.filter(
    (r) =>
      (r.method === "PUT" && /\/workers\/scripts\/[^/]+$/.test(r.path)) ||
      (r.method === "POST" && /\/workers\/scripts\/[^/]+\/versions$/.test(r.path)),
  );
const writes = (requests) => requests.filter((r) => r.method !== "GET" && !/\/domains\/changeset$/.test(r.path));
const home = (name) => resolve(".deploy", name);

async function refusals(worker, check) {
  const cases = [
    ["no Workers Paid", (s) => (s.workersPaid = false), [], /not on Workers Paid/],
    ["R2 not enabled", (s) => (s.r2Enabled = false), [], /R2 is not enabled/],
    [
      "no workers.dev subdomain, no --domain",
      (s) => (s.subdomain = null),
      [],
      /no workers\.dev subdomain and no --domain/,
    ],
    [
      "a hostname with DNS records",
      () => {},
      ["--domain", "taken.example.org"],
      /taken\.example\.org has DNS records \(A 192\.0\.2\.10\).*--replace-dns/,
    ],
    [
      "another Worker's domain",
      () => {},
      ["--s3-domain", "other.example.org"],
      /other\.example\.org is the custom domain of another Worker \(someone-elses-worker\).*--replace-domain/,
    ],
    [
      "a hostname outside the account's zones",
      () => {},
      ["--domain", "eo.example.net"],
      /no zone of this account holds it/,
    ],
  ];
  // side by side, each under its own name (a refused run writes nothing, but the names keep them apart regardless)
  const run = async ([what, change, args], i) => {
    const state = defaultState();
    change(state);
    const api = await startStandin({ state });
    const r = await deploy(["--name", `eo-twin-refused-${i}`, ...args], api, worker);
    await api.close();
    await rm(home(`eo-twin-refused-${i}`), { recursive: true, force: true });
    return { r, requests: api.requests };
  };
  const runs = await Promise.all(cases.map(run));
  for (const [i, [what, , , message]] of cases.entries()) {
    const { r, requests } = runs[i];
    check(r.code === 1 && message.test(r.out) && /Nothing was created/.test(r.out), `preflight refuses: ${what}`);
    check(
      writes(requests).length === 0,
      `  ${what}: no write call reached the API (${
        writes(requests)
          .map((x) => `${x.method} ${x.path}`)
          .join(", ") || "none"
      })`,
    );
  }
}

async function firstDeployWithDomain(worker, check) {
  const name = "eo-twin-domain";
  await rm(home(name), { recursive: true, force: true });
  const api = await startStandin();
  worker.st.failClientsOnce = true; // the first run dies mid-bootstrap, after the account was made
  const first = await deploy(["--name", name, "--domain", "taken.example.org", "--replace-dns"], api, worker);
  check(first.code === 1, "a bootstrap dying after its account was made stops the run");
  const saved = JSON.parse(await readFile(join(home(name), "deploy.json"), "utf8"));
  check(
    saved.bootstrap?.complete === false && worker.st.accounts.has(saved.bootstrap.accountId),
    "  deploy.json holds the account being made",
  );
  check(
    ["preflight", "resources", "secrets", "migrations", "deploy", "domains"].every((k) => saved.steps?.[k]),
    `  every step before it recorded: ${Object.keys(saved.steps ?? {}).join(", ")}`,
  );
  const second = await deploy(["--name", name], api, worker); // no other flag: deploy.json has them
  check(second.code === 0, `a rerun with only --name finishes${second.code ? `:\n${second.out}` : ""}`);
  check(
    worker.st.accounts.size === 1 && worker.st.accounts.get(saved.bootstrap.accountId).clients.length === 1,
    "  one account, one client (none left without a client)",
  );
  const uploads = uploadsOf(api.requests);
  const bindings = uploads[0]?.body?.metadata?.bindings ?? [];
  check(
    bindings.some((b) => b.name === "PUBLIC_BASE_URL" && b.text === "https://taken.example.org"),
    "  PUBLIC_BASE_URL is the custom domain's URL in the first upload",
  );
  check(
    uploads.every((u) => u.body?.metadata?.observability?.enabled === true),
    "  observability enabled in every upload",
  );
  const records = api.requests.filter((r) => r.method === "PUT" && /\/domains\/records$/.test(r.path));
  const [firstPut, ...later] = records;
  check(
    firstPut?.body.override_existing_dns_record === true && firstPut.body.override_existing_origin === false,
    "  custom domain written with override_existing_dns_record true (--replace-dns), override_existing_origin false",
  );
  check(
    later.length >= 1 &&
      later.every((r) => r.body.override_existing_dns_record === false && r.body.override_existing_origin === false),
    "  the rerun without --replace-dns sends both overrides false (the flag is per run, never saved)",
  );
  check(
    !api.requests.some(
      (r) => /\/workers\/routes|\/domains\/records/.test(r.path) && r.method !== "GET" && !records.includes(r),
    ),
    "  wrangler wrote no route or domain itself",
  );
  const creds = join(home(name), "credentials.json");
  const mode = (await stat(creds)).mode & 0o777;
  const secrets = JSON.parse(await readFile(creds, "utf8"));
  check(
    mode === 0o600 && secrets.client_secret && secrets.s3_secret_access_key,
    `  secrets in credentials.json, mode ${mode.toString(8)}`,
  );
  check(
    ![secrets.client_secret, secrets.s3_secret_access_key].some((x) => first.out.includes(x) || second.out.includes(x)),
    "  no secret on stdout or stderr (not a terminal)",
  );
  await api.close();
  return name;
}

async function firstDeployWorkersDev(worker, check) {
  const name = "eo-twin-dev";
  await rm(home(name), { recursive: true, force: true });
  const api = await startStandin();
  const r = await deploy(["--name", name], api, worker);
  check(r.code === 0, `a first deploy without --domain finishes${r.code ? `:\n${r.out}` : ""}`);
  const uploads = uploadsOf(api.requests);
  const url = uploads[0]?.body?.metadata?.bindings?.find((b) => b.name === "PUBLIC_BASE_URL")?.text;
  check(
    uploads.length === 1 && url === `https://${name}.eo-twin.workers.dev`,
    `  one upload, PUBLIC_BASE_URL ${url} (never workers-dev-url.invalid)`,
  );
  check(!api.requests.some((x) => /\/domains\/records$/.test(x.path)), "  no custom domain written");
  // 4. a redeploy whose smoke test fails is rolled back to the version it replaced
  const before = JSON.parse(await readFile(join(home(name), "deploy.json"), "utf8")).version;
  worker.st.broken = true;
  const again = await deploy(["--name", name], api, worker);
  worker.st.broken = false;
  const rolled = api.requests.filter(
    (x) =>
      x.method === "POST" &&
      /\/workers\/scripts\/[^/]+\/deployments$/.test(x.path) &&
      x.body?.versions?.[0]?.version_id === before,
  );
  check(
    again.code === 1 && /rolling back to version/.test(again.out),
    "a failed smoke test stops the run and rolls back",
  );
  check(
    rolled.length === 1 &&
      rolled[0].body?.versions?.[0]?.version_id === before &&
      rolled[0].body.versions[0].percentage === 100,
    `  wrangler rollback deployed ${before} to 100%`,
  );
  await api.close();
  return name;
}

// The three paths side by side, each with its own stand-in of the deployed Worker (its accounts and fault flags are
// per path); their checks are printed in this order once all ended.
const workers = await Promise.all([workerStandin(), workerStandin(), workerStandin()]);
const paths = [refusals, firstDeployWithDomain, firstDeployWorkersDev].map(() => recorder());
const ended = await Promise.allSettled(
  [refusals, firstDeployWithDomain, firstDeployWorkersDev].map((path, i) => path(workers[i], paths[i].check)),
);
for (const p of paths) p.report();
await Promise.all(workers.map((w) => w.close()));
for (const n of ["eo-twin-domain", "eo-twin-dev"]) await rm(home(n), { recursive: true, force: true });
for (const e of ended) if (e.status === "rejected") throw e.reason; // a path that broke off (not a failed check)
console.log(failures.length ? `deploy twin: ${failures.length} check(s) failed` : "deploy twin: every check passed");
process.exit(failures.length ? 1 : 0);
