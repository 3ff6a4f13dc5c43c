// What `npm run deploy` does through a deployment's own API once it serves (scripts/deploy.mjs): the first account
// and its admin OAuth client, the sample scenes and items (`--with-samples`), and the smoke test. The same calls
// for a local deployment and a remote one (the admin API, src/admin).
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decode } from "fast-png";
import { sampleItems, uploadMissing } from "../seed-files.ts";
import { adminDataStore } from "./admin-client.mjs";

/** Items per POST /api/v1/admin/items (the API takes at most 100; sample items are ~4 KB each). */
const ITEM_BATCH = 50;

/** Resolves once `base` answers its OpenID configuration with 200; throws after `seconds`. */
export async function waitServing(base, seconds, log) {
  const until = Date.now() + seconds * 1000;
  let said = false;
  for (;;) {
    try {
      if ((await fetch(`${base}/auth/realms/main/.well-known/openid-configuration`)).status === 200) return;
    } catch {
      /* not reachable yet (DNS, certificate, start-up) */
    }
    if (Date.now() > until) throw new Error(`${base} did not answer within ${seconds} s`);
    if (!said) log(`  waiting for ${base} to answer (a new custom domain's certificate can take a few minutes)...`);
    said = true;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/**
 * The deployment's first account ("Operator", plan enterprise) with an OAuth client "admin" and an S3 key of the S3
 * endpoint, made atomically across crashes: the account's id is chosen and recorded (`record`, deploy.json) before
 * it is created, each step finds what an interrupted run made, and a client whose secret was not kept (the run died
 * between its creation and the file write) is deleted and made again. The secrets go to `secrets` (a mode-0600 file,
 * {@link credentialsFile}), never to the log. Made only while the deployment has no account but the recorded one;
 * when `known` is complete and still exists, or other accounts exist, nothing is made. Returns { accountId,
 * clientId?, s3AccessKeyId?, complete? }.
 * @param {ReturnType<import("./admin-client.mjs").adminClient>} client
 * @param {{ accountId?: string, clientId?: string, s3AccessKeyId?: string, complete?: boolean } | undefined} known
 * @param {{ record: (b: object) => Promise<void>, secrets: ReturnType<typeof credentialsFile>, log: (line: string) => void }} io
 */
export async function bootstrap(client, known, { record, secrets, log }) {
  const exists = async (id) =>
    !!(await client
      .call("GET", `/accounts/${encodeURIComponent(id)}`)
      .catch((e) => (e.status === 404 ? undefined : Promise.reject(e))));
  if (known?.accountId && (known.complete || known.complete === undefined) && (await exists(known.accountId))) {
    log(`  first account ${known.accountId} exists (its client ${known.clientId ?? "-"}); nothing made`);
    return known;
  }
  let b = known?.accountId && known.complete === false ? known : undefined;
  if (!b) {
    const some = await client.call("GET", "/accounts?count=1");
    if (some.data.length > 0) {
      log(
        `  the deployment has accounts already (e.g. ${some.data[0].id}); no first account made (npm run admin -- accounts create ...)`,
      );
      return { accountId: some.data[0].id };
    }
    b = { accountId: crypto.randomUUID(), complete: false };
    await record(b); // the id is kept before the account exists: a rerun finishes this one
  }
  if (!(await exists(b.accountId)))
    await client.call("POST", "/accounts", { id: b.accountId, name: "Operator", plan: "enterprise" });
  const previous = await secrets.read();
  const kept = previous.account_id === b.accountId ? previous : {}; // a file of an older deployment's account is replaced
  const { active = [], inactive = [] } = (await client.call("GET", `/accounts/${b.accountId}/clients`)).data ?? {};
  for (const c of [...active, ...inactive].filter((c) => c.name === "admin" && c.clientId !== kept.client_id)) {
    await client.call("DELETE", `/accounts/${b.accountId}/clients/${c.clientId}`); // its secret was lost in a crash
  }
  if (!kept.client_id || ![...active, ...inactive].some((c) => c.clientId === kept.client_id)) {
    const c = await client.call("POST", `/accounts/${b.accountId}/clients`, {
      name: "admin",
      neverExpire: true,
      confirmNeverExpireRisk: true,
    });
    await secrets.write(
      { account_id: b.accountId, client_id: c.clientId, client_secret: c.clientSecret },
      kept !== previous,
    );
  }
  if (!kept.s3_access_key_id) {
    const k = await client.call("POST", `/accounts/${b.accountId}/s3keys`);
    await secrets.write({ s3_access_key_id: k.accessKeyId, s3_secret_access_key: k.secretAccessKey });
  }
  const all = await secrets.read();
  b = { accountId: b.accountId, clientId: all.client_id, s3AccessKeyId: all.s3_access_key_id, complete: true };
  await record(b);
  log(
    `  created the first account ${b.accountId} (plan enterprise), its OAuth client "admin" (${b.clientId}) and an S3 key (${b.s3AccessKeyId})`,
  );
  log(`  their secrets: ${secrets.path} (mode 0600; keep them in your password manager, then delete the file)`);
  if (process.stdout.isTTY) for (const [k, v] of Object.entries(all)) log(`    ${k.padEnd(22)}${v}`);
  return b;
}

/**
 * The file holding a deployment's first secrets (`path`, JSON, mode 0600, written whole each time): `read()` the
 * object (empty when absent), `write(members, replace?)` merged into it (or replacing it).
 */
export function credentialsFile(path) {
  const read = async () => JSON.parse(await readFile(path, "utf8").catch(() => "{}"));
  return {
    path,
    read,
    /** @param {Record<string, string>} members @param {boolean} [replace] start a new file instead of merging */
    async write(members, replace = false) {
      await writeFile(path, JSON.stringify({ ...(replace ? {} : await read()), ...members }, null, 2) + "\n", {
        mode: 0o600,
      });
      await chmod(path, 0o600);
    },
  };
}

/**
 * Uploads the sample scenes of `data` (the files their items' assets name, keys = paths under data/, skipped when
 * the DATA bucket holds them with the same size: the seed's uploadMissing) and then their STAC items, through the
 * admin API. Returns { files, items }: files put now, items upserted.
 */
export async function uploadSamples(client, data) {
  const items = await sampleItems(data);
  const keys = [...new Set(items.flatMap((i) => Object.values(i.assets).map((a) => a.href)))];
  const files = await uploadMissing(
    adminDataStore(client),
    "",
    keys.map((key) => ({ key, path: join(data, key) })),
  );
  for (let i = 0; i < items.length; i += ITEM_BATCH)
    await client.call("POST", "/items", { items: items.slice(i, i + ITEM_BATCH) });
  return { files, items: items.length };
}

/** The smoke test's Process request: true colour 64 x 64 over the Sentinel-2 L2A tile 29RKH (19 Feb 2020). */
const PROCESS = {
  input: {
    bounds: { bbox: [-11.6, 24.6, -11.4, 24.8] },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } },
      },
    ],
  },
  output: { width: 64, height: 64 },
  evalscript:
    '//VERSION=3\nfunction setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}\nfunction evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}',
};

/** Throws `what` with the response's status and body unless `r` has `status`. */
async function expectStatus(r, status, what) {
  if (r.status !== status)
    throw new Error(`smoke test: ${what} answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
}

/**
 * The smoke test against `base`: a temporary OAuth client of `accountId` (made through the admin API, expiring in
 * an hour, deleted at the end), a token from the token endpoint, the catalog's collections, and one Process request
 * (a PNG; with `samples`, every pixel must hold data: the sample scene covers the box). Throws naming the failed step.
 * Returns a one-line summary.
 */
export async function smokeTest(base, client, accountId, samples) {
  const expires = new Date(Date.now() + 3600_000).toISOString();
  const c = await client.call("POST", `/accounts/${encodeURIComponent(accountId)}/clients`, {
    name: "deploy smoke test",
    expires,
  });
  try {
    const tokenUrl = `${base}/auth/realms/main/protocol/openid-connect/token`;
    const t = await fetch(tokenUrl, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: c.clientId,
        client_secret: c.clientSecret,
      }),
    });
    await expectStatus(t, 200, "the token endpoint");
    const auth = { authorization: `Bearer ${(await t.json()).access_token}` };
    const cols = await fetch(`${base}/api/v1/catalog/1.0.0/collections`, { headers: auth });
    await expectStatus(cols, 200, "GET /api/v1/catalog/1.0.0/collections");
    const ids = (await cols.json()).collections.map((x) => x.id);
    if (!ids.includes("sentinel-2-l2a"))
      throw new Error(`smoke test: the catalog lists ${ids.join(", ")}, not sentinel-2-l2a`);
    const p = await fetch(`${base}/api/v1/process`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "image/png" },
      body: JSON.stringify(PROCESS),
    });
    await expectStatus(p, 200, "POST /api/v1/process");
    const png = decode(new Uint8Array(await p.arrayBuffer()));
    let withData = 0;
    for (let i = 3; i < png.data.length; i += png.channels) withData += png.data[i] > 0 ? 1 : 0;
    if (samples && withData !== png.width * png.height)
      throw new Error(
        `smoke test: the Process PNG has data in ${withData} of ${png.width * png.height} pixels (the sample scene covers all)`,
      );
    return `token, ${ids.length} collections, Process ${png.width}x${png.height} PNG (${withData} pixels with data, ${p.headers.get("x-processingunits-spent") ?? "?"} PU)`;
  } finally {
    await client
      .call("DELETE", `/accounts/${encodeURIComponent(accountId)}/clients/${c.clientId}`)
      .catch(() => undefined);
  }
}
