// `npm run admin -- <command>`: the operators' tools, through the admin API (src/admin) of a deployment made by
// `npm run deploy`, remote (default: .deploy/<name>) or local (`--local`, the --state of `npm run deploy --
// --local --serve`): the same calls either way. Answers are printed as JSON; the secrets of new clients and S3
// keys are in them, shown this once. The deployment's URL and admin token come from <dir>/deploy.json and
// <dir>/admin-token (mode 0600), or from --url and $EO_EDGE_ADMIN_TOKEN.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { adminClient } from "./lib/admin-client.mjs";

const USAGE = `npm run admin -- [--local [--state DIR] | --name NAME | --url URL] <command>
  accounts list [--search TEXT]
  accounts create --name NAME [--id ID] [--plan PLAN] [--quota PU|none] [--policies P] [--token-policies P] [--client NAME]
  accounts show ACCOUNT
  accounts set ACCOUNT [--name NAME] [--plan PLAN] [--quota PU|none] [--policies P|none] [--token-policies P|none]
  clients list ACCOUNT
  clients create ACCOUNT --name NAME [--expires ISO-8601]   (default: never expires)
  clients delete ACCOUNT CLIENT_ID
  s3keys create ACCOUNT
  plans
  keys list
  keys rotate                 (new tokens use a new key; tokens of the old one stay valid until they expire)
Policies P: PERIOD:LIMIT,... (ISO 8601 durations, e.g. PT1S:20,P1D:10000) or a JSON array of {samplingPeriod, limit}.`;

const { values: o, positionals: args } = parseArgs({
  allowPositionals: true,
  options: {
    local: { type: "boolean" },
    state: { type: "string" },
    name: { type: "string" },
    url: { type: "string" },
    search: { type: "string" },
    id: { type: "string" },
    plan: { type: "string" },
    quota: { type: "string" },
    policies: { type: "string" },
    "token-policies": { type: "string" },
    client: { type: "string" },
    expires: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
const die = (message) => (console.error(`npm run admin: ${message}`), process.exit(1));
if (o.help || args.length === 0) console.log(USAGE), process.exit(o.help ? 0 : 1);

/** The deployment folder of npm run deploy: --state (local) or .deploy/<name> (name: --name, else wrangler.toml's). */
function deploymentDir() {
  if (o.local) return resolve(o.state ?? ".state-deploy");
  const name = o.name ?? /^name\s*=\s*"([^"]+)"/m.exec(readFileSync("wrangler.toml", "utf8"))?.[1];
  return resolve(".deploy", name ?? die("no --name and no name in wrangler.toml"));
}

const dir = deploymentDir();
const read = (file) => {
  try {
    return readFileSync(join(dir, file), "utf8");
  } catch {
    return undefined;
  }
};
const url =
  o.url ??
  JSON.parse(read("deploy.json") ?? "{}").url ??
  die(`no deployment in ${dir} (run npm run deploy first, or give --url)`);
const token =
  process.env.EO_EDGE_ADMIN_TOKEN ??
  read("admin-token")?.trim() ??
  die(`no admin token: ${join(dir, "admin-token")} is missing and EO_EDGE_ADMIN_TOKEN is unset`);
const client = adminClient(url.replace(/\/+$/, ""), token);

/** A policy list from P (see USAGE); null for `none`. */
function policies(p) {
  if (p === undefined) return undefined;
  if (p === "none") return null;
  if (p.trim().startsWith("[")) return JSON.parse(p);
  return p.split(",").map((x) => {
    const [samplingPeriod, limit] = x.trim().split(":");
    if (!samplingPeriod || !/^\d+$/.test(limit ?? "")) die(`bad policy '${x}': PERIOD:LIMIT, e.g. PT1S:20`);
    return { samplingPeriod, limit: Number(limit) };
  });
}

/** A PU quota from --quota: a number, or null for `none` (the plan's). */
const quota = (q) =>
  q === undefined
    ? undefined
    : q === "none"
      ? null
      : Number.isFinite(Number(q))
        ? Number(q)
        : die(`bad --quota '${q}': a number, or none`);
const defined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
const enc = encodeURIComponent;
const need = (i, what) => args[i] ?? die(`missing ${what}\n${USAGE}`);

/** Every account (all pages). */
async function allAccounts() {
  const out = [];
  let viewtoken;
  do {
    const q = new URLSearchParams(defined({ search: o.search, viewtoken }));
    const page = await client.call("GET", `/accounts?${q}`);
    out.push(...page.data);
    viewtoken = page.links.nextToken;
  } while (viewtoken);
  return out;
}

async function accountsCreate() {
  const account = await client.call(
    "POST",
    "/accounts",
    defined({
      name: o.name ?? die("accounts create needs --name"),
      id: o.id,
      plan: o.plan,
      puQuota: quota(o.quota),
      policies: policies(o.policies),
      tokenPolicies: policies(o["token-policies"]),
    }),
  );
  if (!o.client) return account;
  const c = await client.call("POST", `/accounts/${enc(account.id)}/clients`, {
    name: o.client,
    neverExpire: true,
    confirmNeverExpireRisk: true,
  });
  return { ...account, client: c };
}

const commands = {
  "accounts list": allAccounts,
  "accounts create": accountsCreate,
  "accounts show": () => client.call("GET", `/accounts/${enc(need(2, "ACCOUNT"))}`),
  "accounts set": () =>
    client.call(
      "PATCH",
      `/accounts/${enc(need(2, "ACCOUNT"))}`,
      defined({
        name: o.name,
        plan: o.plan,
        puQuota: quota(o.quota),
        policies: policies(o.policies),
        tokenPolicies: policies(o["token-policies"]),
      }),
    ),
  "clients list": () => client.call("GET", `/accounts/${enc(need(2, "ACCOUNT"))}/clients`),
  "clients create": () =>
    client.call(
      "POST",
      `/accounts/${enc(need(2, "ACCOUNT"))}/clients`,
      o.expires
        ? { name: o.name ?? die("clients create needs --name"), expires: o.expires }
        : { name: o.name ?? die("clients create needs --name"), neverExpire: true, confirmNeverExpireRisk: true },
    ),
  "clients delete": () =>
    client
      .call("DELETE", `/accounts/${enc(need(2, "ACCOUNT"))}/clients/${enc(need(3, "CLIENT_ID"))}`)
      .then(() => ({ deleted: args[3] })),
  "s3keys create": () => client.call("POST", `/accounts/${enc(need(2, "ACCOUNT"))}/s3keys`),
  plans: () => client.call("GET", "/plans"),
  "keys list": () => client.call("GET", "/keys"),
  "keys rotate": () => client.call("POST", "/keys/rotate"),
};

const run =
  commands[args.slice(0, 2).join(" ")] ?? commands[args[0]] ?? die(`unknown command '${args.join(" ")}'\n${USAGE}`);
try {
  console.log(JSON.stringify(await run(), null, 2));
} catch (e) {
  die(e.message);
}
