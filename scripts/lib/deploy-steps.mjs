// The steps of `npm run deploy` that act through wrangler (scripts/deploy.mjs): finding and creating the
// account's resources, the Worker's secrets (remote: `wrangler secret put`, the value on stdin; local: the
// `.dev.vars` file beside the generated configuration, which `wrangler dev` reads). The startup check is
// scripts/lib/startup-check.mjs.
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { exportJWK, generateKeyPair } from "jose";
import { parseD1List, parseQueuesList, parseR2BucketList, parseSecretList } from "./deploy-config.ts";

/** Wrangler's answer to creating something that exists (D1 7502, R2 10004, Queues 11009): treated as done. */
const EXISTS = /already (exists|taken)|\b(7502|10004|11009)\b/i;
/** Most pages of `wrangler queues list` read. */
const MAX_QUEUE_PAGES = 50;

/** Every queue name of the account (`wrangler queues list --page N` until a page adds nothing). */
async function queueNames(w) {
  const names = new Set();
  for (let page = 1; page <= MAX_QUEUE_PAGES; page++) {
    const found = parseQueuesList(await w.must(["queues", "list", "--page", String(page)]));
    const before = names.size;
    found.forEach((n) => names.add(n));
    if (names.size === before) break;
  }
  return [...names];
}

/** The D1 databases of the account as [{ name, id }] (none in a dry run). */
const databases = async (w) =>
  w.dryRun ? (await w.must(["d1", "list", "--json"]), []) : parseD1List(await w.must(["d1", "list", "--json"]));

/** Runs a create command; an answer saying the resource exists counts as success. Returns true when it created. */
async function create(w, args) {
  const r = await w.run(args);
  if (r.code === 0) return true;
  if (EXISTS.test(r.out)) return false;
  throw new Error(`npx wrangler ${args.join(" ")} failed (exit ${r.code}):\n${r.out.trim()}`);
}

/**
 * Creates every resource of `wanted` (scripts/lib/deploy-config.ts resourcesOf) that the account lacks, read from
 * `wrangler d1 list --json`, `wrangler r2 bucket list` and `wrangler queues list`: safe to run again. `d1Location`:
 * the new database's location hint (weur, eeur, apac, oc, wnam, enam). Resolves to the D1 ids by database name
 * (empty in a dry run) and the names created.
 */
export async function provision(w, wanted, { d1Location } = {}, log = console.log) {
  const have = {
    databases: await databases(w),
    buckets: w.dryRun
      ? (await w.must(["r2", "bucket", "list"]), [])
      : parseR2BucketList(await w.must(["r2", "bucket", "list"])),
    queues: w.dryRun ? (await w.must(["queues", "list", "--page", "1"]), []) : await queueNames(w),
  };
  const created = [];
  const make = async (what, name, args) => {
    log(`  ${what} ${name}: ${w.dryRun ? "made if missing" : "missing, creating"}`);
    if (await create(w, args)) created.push(name);
  };
  for (const { name } of wanted.databases)
    if (!have.databases.some((d) => d.name === name))
      await make("D1 database", name, ["d1", "create", name, ...(d1Location ? ["--location", d1Location] : [])]);
  for (const name of wanted.buckets)
    if (!have.buckets.includes(name)) await make("R2 bucket", name, ["r2", "bucket", "create", name]);
  for (const name of wanted.queues)
    if (!have.queues.includes(name)) await make("queue", name, ["queues", "create", name]);
  const all = created.length && !w.dryRun ? await databases(w) : have.databases;
  const ids = Object.fromEntries(
    all.filter((d) => wanted.databases.some((x) => x.name === d.name)).map((d) => [d.name, d.id]),
  );
  for (const { name } of wanted.databases)
    if (!w.dryRun && !ids[name])
      throw new Error(`D1 database ${name} was not found after creating it (wrangler d1 list --json)`);
  return { databaseIds: ids, created };
}

/**
 * The secrets a new deployment gets: `JWT_PRIVATE_JWK`, an Ed25519 private JWK made with jose (WebCrypto) whose
 * kid names its creation date, and `ADMIN_TOKEN`, 256 random bits (base64url, 43 characters).
 * @returns {Promise<Record<string, string>>}
 */
export async function newSecrets() {
  const jwk = await exportJWK((await generateKeyPair("EdDSA", { extractable: true })).privateKey);
  const kid = `eo-edge-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString("hex")}`;
  return { JWT_PRIVATE_JWK: JSON.stringify({ ...jwk, kid }), ADMIN_TOKEN: randomBytes(32).toString("base64url") };
}

/** The Worker's secrets through wrangler (`secret list`, `secret put` with the value on stdin, never echoed). */
export function remoteSecrets(w, config) {
  return {
    async names() {
      const r = await w.run(["secret", "list", "--format", "json", "-c", config]);
      if (r.code === 0) return parseSecretList(r.out);
      if (/not found|does not exist|10007/i.test(r.out)) return []; // no Worker yet: `secret put` creates it
      throw new Error(`npx wrangler secret list failed (exit ${r.code}):\n${r.out.trim()}`);
    },
    put: (name, value) => w.must(["secret", "put", name, "-c", config], { input: value }),
  };
}

/** The local twin: `NAME='value'` lines of `file` (mode 0600), the `.dev.vars` `wrangler dev` reads beside its config. */
export function localSecrets(file) {
  const read = () => readFile(file, "utf8").catch(() => "");
  return {
    async names() {
      return [...(await read()).matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]);
    },
    async put(name, value) {
      if (value.includes("'") || value.includes("\n"))
        throw new Error(`${name}: a value with a quote or a newline cannot be written to ${file}`);
      const kept = (await read()).split("\n").filter((l) => l && !l.startsWith(`${name}=`));
      await writeFile(file, [...kept, `${name}='${value}'`].join("\n") + "\n", { mode: 0o600 });
    },
  };
}
