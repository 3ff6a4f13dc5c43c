// The preflight of `npm run deploy` (scripts/deploy.mjs): everything a deployment needs from the Cloudflare
// account, read before anything is created, each failure a message saying what to do. Read-only API calls
// (scripts/lib/cloudflare-api.mjs):
//   account        GET /accounts (CLOUDFLARE_ACCOUNT_ID picks one of several);
//   Workers Paid   GET /accounts/{id}/subscriptions: a `workers_paid` rate plan (queues' consumers, 30 s CPU);
//   R2             GET /accounts/{id}/r2/buckets (code 10042: R2 not enabled on the account);
//   URL            --domain, else the account's workers.dev subdomain (GET /accounts/{id}/workers/subdomain): the
//                  Worker's URL is known before the first deploy, so PUBLIC_BASE_URL is right from the start;
//   hostnames      every custom domain asked for (--domain, --location-domain, --s3-domain): its zone must be on the
//                  account (GET /zones?name=), and an existing DNS record (GET /zones/{zone}/dns_records?name=) or
//                  another Worker's custom domain (GET /accounts/{id}/workers/domains?hostname=) is refused unless
//                  the operator passed --replace-dns or --replace-domain.
import { CloudflareApiError } from "./cloudflare-api.mjs";

/** A preflight failure: `message` says what the operator must do; nothing was created. */
export class PreflightError extends Error {}

/** The account to deploy to. */
async function chooseAccount(api) {
  const accounts = await api.call("GET", "/accounts", { query: { per_page: "50" } });
  const wanted = process.env.CLOUDFLARE_ACCOUNT_ID;
  if (wanted) {
    const a = accounts.find((x) => x.id === wanted);
    if (!a)
      throw new PreflightError(
        `CLOUDFLARE_ACCOUNT_ID ${wanted} is not an account these credentials reach (they reach: ${accounts.map((x) => `${x.name} ${x.id}`).join(", ") || "none"})`,
      );
    return a;
  }
  if (accounts.length === 1) return accounts[0];
  if (!accounts.length) throw new PreflightError("these credentials reach no Cloudflare account");
  throw new PreflightError(
    `these credentials reach ${accounts.length} accounts: set CLOUDFLARE_ACCOUNT_ID to one of ${accounts.map((x) => `${x.id} (${x.name})`).join(", ")}`,
  );
}

/** The zone of `host` on the account (longest matching name), or undefined. */
async function zoneOf(api, accountId, host) {
  const labels = host.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    const name = labels.slice(i).join(".");
    const [zone] = await api.call("GET", "/zones", { query: { name, "account.id": accountId } });
    if (zone) return zone;
  }
  return undefined;
}

/**
 * What a custom domain `host` for Worker `name` would replace: `{ zone, records, domain }` (DNS records of that
 * name, a Worker custom domain of that hostname serving another Worker).
 */
async function hostState(api, accountId, name, host) {
  const zone = await zoneOf(api, accountId, host);
  if (!zone)
    throw new PreflightError(
      `${host}: no zone of this account holds it; add the zone to the account (Cloudflare dashboard) or choose a hostname in one of its zones`,
    );
  const domains = await api.call("GET", `/accounts/${accountId}/workers/domains`, { query: { hostname: host } });
  const mine = domains.find((d) => d.hostname === host && d.service === name);
  const other = domains.find((d) => d.hostname === host && d.service !== name);
  const records =
    mine || other ? [] : await api.call("GET", `/zones/${zone.id}/dns_records`, { query: { name: host } });
  return { zone, records, other, mine };
}

/**
 * Runs the preflight for deployment `s` (scripts/deploy.mjs settings: name, domain, domains, s3Domain) with flags
 * `replaceDns` / `replaceDomain`. Resolves to `{ accountId, accountName, url, hosts }`: `url` the Worker's public
 * URL (its custom domain or workers.dev address), `hosts` the custom domains with their zones and what they replace.
 * @throws PreflightError with the operator's next step; CloudflareApiError for an unexpected API answer.
 */
export async function preflight(api, s, { replaceDns = false, replaceDomain = false } = {}, log = console.log) {
  const account = await chooseAccount(api);
  const at = `/accounts/${account.id}`;
  log(`  account ${account.name} (${account.id})`);
  const subscriptions = await api.call("GET", `${at}/subscriptions`);
  if (!subscriptions.some((x) => /workers_paid|workers_standard|workers_enterprise/i.test(x?.rate_plan?.id ?? ""))) {
    throw new PreflightError(
      "the account is not on Workers Paid (Queues consumers, Durable Objects with SQLite at scale and 30 s of CPU per request need it): subscribe under Workers & Pages > Plans, then run again",
    );
  }
  log("  Workers Paid: yes");
  try {
    await api.call("GET", `${at}/r2/buckets`, { query: { per_page: "1" } });
  } catch (e) {
    if (e instanceof CloudflareApiError && e.codes.includes(10042))
      throw new PreflightError(
        "R2 is not enabled on the account: enable it under R2 Object Storage in the dashboard (it asks for a payment method), then run again",
      );
    throw e;
  }
  log("  R2: enabled");
  let url;
  if (s.domain) url = `https://${s.domain}`;
  else {
    const sub = await api
      .call("GET", `${at}/workers/subdomain`)
      .catch((e) => (e instanceof CloudflareApiError && e.status === 404 ? null : Promise.reject(e)));
    if (!sub?.subdomain)
      throw new PreflightError(
        "the account has no workers.dev subdomain and no --domain was given: pick a subdomain under Workers & Pages (the dashboard's first visit asks for one), or deploy with --domain <hostname in one of your zones>",
      );
    url = `https://${s.name}.${sub.subdomain}.workers.dev`;
  }
  log(`  URL ${url}`);
  const hosts = [];
  for (const host of [...new Set([s.domain, ...Object.values(s.domains ?? {}), s.s3Domain].filter(Boolean))]) {
    const h = await hostState(api, account.id, s.name, host);
    if (h.other && !replaceDomain)
      throw new PreflightError(
        `${host} is the custom domain of another Worker (${h.other.service}): deploying would move it to ${s.name}. Choose another hostname, or pass --replace-domain to move it`,
      );
    if (h.records.length && !replaceDns)
      throw new PreflightError(
        `${host} has DNS records (${h.records.map((r) => `${r.type} ${r.content}`).join(", ")}): a custom domain replaces them. Choose another hostname, or pass --replace-dns to replace them`,
      );
    log(
      `  ${host}: zone ${h.zone.name}${h.mine ? ", already this Worker's domain" : h.other ? `, moved from Worker ${h.other.service} (--replace-domain)` : h.records.length ? `, replacing ${h.records.length} DNS record(s) (--replace-dns)` : ", free"}`,
    );
    hosts.push({ host, zoneId: h.zone.id, zoneName: h.zone.name });
  }
  return { accountId: account.id, accountName: account.name, url, hosts };
}

/**
 * Attaches the custom domains `hosts` to Worker `name` (production), as wrangler 4.164's publishCustomDomains does
 * (a changeset, then PUT of the records) but with `override_existing_origin` / `override_existing_dns_record` set
 * only by the operator's flags: wrangler sets both whenever stdout is not a terminal. An unexpected conflict (one
 * that appeared after the preflight) fails here, replacing nothing.
 */
export async function attachDomains(api, accountId, name, hosts, { replaceDns = false, replaceDomain = false } = {}) {
  if (!hosts.length) return;
  const service = `/accounts/${accountId}/workers/services/${name}/environments/production`;
  const origins = hosts.map((h) => ({ hostname: h.host, zone_id: h.zoneId }));
  const changeset = await api.call("POST", `${service}/domains/changeset`, {
    query: { replace_state: "true" },
    body: origins,
  });
  const moved = (changeset.updated ?? []).filter((d) => d.modified && d.service !== name);
  if (moved.length && !replaceDomain)
    throw new PreflightError(
      `${moved.map((d) => d.hostname).join(", ")}: now the custom domain of another Worker; pass --replace-domain to move it`,
    );
  if ((changeset.conflicting ?? []).length && !replaceDns)
    throw new PreflightError(
      `${changeset.conflicting.map((d) => d.hostname).join(", ")}: now has DNS records; pass --replace-dns to replace them`,
    );
  await api.call("PUT", `${service}/domains/records`, {
    body: {
      override_scope: true,
      override_existing_origin: replaceDomain,
      override_existing_dns_record: replaceDns,
      origins,
    },
  });
}
