// What `npm run deploy` does through a deployment's own API once it serves (scripts/deploy.mjs): the first account
// and its admin OAuth client, the sample scenes and items (`--with-samples`), and the smoke test. The same calls
// for a local deployment and a remote one (the admin API, src/admin).
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
 * The deployment's first account ("Operator", plan enterprise) with an OAuth client "admin" and an S3 key of the
 * S3 endpoint, whose secrets are printed here once and stored nowhere. Made only while the deployment has no account at all; when `known` (the account
 * made by an earlier run) still exists, or other accounts exist, nothing is made. Returns { accountId, clientId?,
 * s3AccessKeyId? }.
 * @param {ReturnType<import("./admin-client.mjs").adminClient>} client @param {{ accountId?: string, clientId?: string } | undefined} known
 */
export async function bootstrap(client, known, log) {
  if (known?.accountId) {
    const found = await client.call("GET", `/accounts/${encodeURIComponent(known.accountId)}`).catch((e) => (e.status === 404 ? undefined : Promise.reject(e)));
    if (found) {
      log(`  first account ${known.accountId} exists (its client ${known.clientId ?? "-"}); nothing made`);
      return known;
    }
  }
  const some = await client.call("GET", "/accounts?count=1");
  if (some.data.length > 0) {
    log(`  the deployment has accounts already (e.g. ${some.data[0].id}); no first account made (npm run admin -- accounts create ...)`);
    return { accountId: some.data[0].id };
  }
  const account = await client.call("POST", "/accounts", { name: "Operator", plan: "enterprise" });
  const c = await client.call("POST", `/accounts/${account.id}/clients`, { name: "admin", neverExpire: true, confirmNeverExpireRisk: true });
  const k = await client.call("POST", `/accounts/${account.id}/s3keys`);
  log(`  created the first account ${account.id} (plan enterprise), its OAuth client "admin" and an S3 key:`);
  log(`    client_id             ${c.clientId}`);
  log(`    client_secret         ${c.clientSecret}`);
  log(`    s3_access_key_id      ${k.accessKeyId}`);
  log(`    s3_secret_access_key  ${k.secretAccessKey}`);
  log("    (the secrets are shown this once and stored nowhere: keep them in your password manager)");
  return { accountId: account.id, clientId: c.clientId, s3AccessKeyId: k.accessKeyId };
}

/**
 * Uploads the sample scenes of `data` (the files their items' assets name, keys = paths under data/, skipped when
 * the DATA bucket holds them with the same size: the seed's uploadMissing) and then their STAC items, through the
 * admin API. Returns { files, items }: files put now, items upserted.
 */
export async function uploadSamples(client, data) {
  const items = await sampleItems(data);
  const keys = [...new Set(items.flatMap((i) => Object.values(i.assets).map((a) => a.href)))];
  const files = await uploadMissing(adminDataStore(client), "", keys.map((key) => ({ key, path: join(data, key) })));
  for (let i = 0; i < items.length; i += ITEM_BATCH) await client.call("POST", "/items", { items: items.slice(i, i + ITEM_BATCH) });
  return { files, items: items.length };
}

/** The smoke test's Process request: true colour 64 x 64 over the Sentinel-2 L2A tile 29RKH (19 Feb 2020). */
const PROCESS = {
  input: { bounds: { bbox: [-11.6, 24.6, -11.4, 24.8] }, data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } } }] },
  output: { width: 64, height: 64 },
  evalscript: '//VERSION=3\nfunction setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}\nfunction evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}',
};

/** Throws `what` with the response's status and body unless `r` has `status`. */
async function expectStatus(r, status, what) {
  if (r.status !== status) throw new Error(`smoke test: ${what} answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
}

/**
 * The smoke test against `base`: a temporary OAuth client of `accountId` (made through the admin API, expiring in
 * an hour, deleted at the end), a token from the token endpoint, the catalog's collections, and one Process request
 * (a PNG; with `samples`, every pixel must hold data: the sample scene covers the box). Throws naming the failed step.
 * Returns a one-line summary.
 */
export async function smokeTest(base, client, accountId, samples) {
  const expires = new Date(Date.now() + 3600_000).toISOString();
  const c = await client.call("POST", `/accounts/${encodeURIComponent(accountId)}/clients`, { name: "deploy smoke test", expires });
  try {
    const tokenUrl = `${base}/auth/realms/main/protocol/openid-connect/token`;
    const t = await fetch(tokenUrl, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", client_id: c.clientId, client_secret: c.clientSecret }) });
    await expectStatus(t, 200, "the token endpoint");
    const auth = { authorization: `Bearer ${(await t.json()).access_token}` };
    const cols = await fetch(`${base}/api/v1/catalog/1.0.0/collections`, { headers: auth });
    await expectStatus(cols, 200, "GET /api/v1/catalog/1.0.0/collections");
    const ids = (await cols.json()).collections.map((x) => x.id);
    if (!ids.includes("sentinel-2-l2a")) throw new Error(`smoke test: the catalog lists ${ids.join(", ")}, not sentinel-2-l2a`);
    const p = await fetch(`${base}/api/v1/process`, { method: "POST", headers: { ...auth, "content-type": "application/json", accept: "image/png" }, body: JSON.stringify(PROCESS) });
    await expectStatus(p, 200, "POST /api/v1/process");
    const png = decode(new Uint8Array(await p.arrayBuffer()));
    let withData = 0;
    for (let i = 3; i < png.data.length; i += png.channels) withData += png.data[i] > 0 ? 1 : 0;
    if (samples && withData !== png.width * png.height) throw new Error(`smoke test: the Process PNG has data in ${withData} of ${png.width * png.height} pixels (the sample scene covers all)`);
    return `token, ${ids.length} collections, Process ${png.width}x${png.height} PNG (${withData} pixels with data, ${p.headers.get("x-processingunits-spent") ?? "?"} PU)`;
  } finally {
    await client.call("DELETE", `/accounts/${encodeURIComponent(accountId)}/clients/${c.clientId}`).catch(() => undefined);
  }
}
