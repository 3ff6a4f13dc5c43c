// A recorded stand-in of the Cloudflare API (https://api.cloudflare.com/client/v4) for `npm run deploy`'s twin
// (test/e2e/deploy-twin.mjs): a local HTTP server answering, in the API's envelope (`{success, errors, messages,
// result, result_info}`), the endpoints wrangler 4.164 and scripts/lib/cloudflare-api.mjs call during a deploy,
// with the shapes of the API's documentation and of wrangler's own reading of them (node_modules/wrangler). Point
// wrangler at it with CLOUDFLARE_API_BASE_URL=<url>/client/v4 and CLOUDFLARE_API_TOKEN / CLOUDFLARE_ACCOUNT_ID.
// Every request is recorded (method, path, query, JSON body) so that a test sees the calls and flags a real deploy
// would send. The account it stands for is `state` (see {@link defaultState}); an endpoint it does not know answers
// 404 with code 7003 (as the API does for an unknown route) and is recorded as such. It checks nothing the real
// API checks beyond what its state holds: what it cannot show is listed in docs/deploy-and-edge-limits.md.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

/**
 * The account a stand-in serves: one account on Workers Paid with R2 enabled, a workers.dev subdomain, the zone
 * example.org (where `taken.example.org` has a DNS record and `other.example.org` is another Worker's domain).
 * Tests change members before starting the server.
 */
export function defaultState() {
  return {
    token: "standin-token",
    accounts: [{ id: "0123456789abcdef0123456789abcdef", name: "EO Edge test account" }],
    workersPaid: true,
    r2Enabled: true,
    subdomain: "eo-twin",
    zones: [{ id: "zone-example-org", name: "example.org", account: { id: "0123456789abcdef0123456789abcdef" } }],
    dnsRecords: [
      { id: "dns-taken", zone_id: "zone-example-org", name: "taken.example.org", type: "A", content: "192.0.2.10" },
    ],
    workerDomains: [
      {
        id: "wd-other",
        hostname: "other.example.org",
        service: "someone-elses-worker",
        environment: "production",
        zone_id: "zone-example-org",
        zone_name: "example.org",
      },
    ],
    databases: [],
    buckets: [],
    queues: [],
    scripts: {},
    /** Fail the next deploy's version (a smoke test against it then fails). */
    failNextVersion: false,
  };
}

const ok = (result, extra = {}) => ({ success: true, errors: [], messages: [], result, ...extra });
const fail = (code, message, status = 400) => ({
  status,
  body: { success: false, errors: [{ code, message }], messages: [], result: null },
});

/** The multipart or JSON body of a request, parsed as far as the stand-in needs (JSON parts by name). */
async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const buf = Buffer.concat(chunks);
  const type = req.headers["content-type"] ?? "";
  if (type.includes("multipart/form-data")) {
    const parts = {};
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
    if (boundary) {
      for (const part of buf.toString("latin1").split(`--${boundary[1] ?? boundary[2]}`)) {
        const name = /name="([^"]+)"/.exec(part)?.[1];
        const body = part.split("\r\n\r\n").slice(1).join("\r\n\r\n").replace(/\r\n$/, "");
        if (!name) continue;
        try {
          parts[name] = JSON.parse(body);
        } catch {
          parts[name] = `<${body.length} bytes>`;
        }
      }
    }
    return parts;
  }
  if (!buf.length) return null;
  try {
    return JSON.parse(buf.toString()); // wrangler sends JSON bodies with or without a content-type
  } catch {
    return buf.toString();
  }
}

/** Routes: [method, RegExp of the path after /client/v4, handler(state, match, body, query) -> body | {status, body}]. */
function routes() {
  const account = "/accounts/([^/]+)";
  const script = `${account}/workers/scripts/([^/]+)`;
  const service = `${account}/workers/services/([^/]+)/environments/([^/]+)`;
  const versionOf = (s) => s.versions.at(-1);
  const deployOf = (s, version) => {
    const d = {
      id: randomUUID(),
      source: "wrangler",
      strategy: "percentage",
      created_on: new Date().toISOString(),
      versions: [{ version_id: version, percentage: 100 }],
      annotations: {},
    };
    s.deployments.push(d);
    return d;
  };
  const scriptOf = (st, name) =>
    (st.scripts[name] ??= { secrets: [], versions: [], deployments: [], consumers: [], schedules: [] });
  return [
    ["GET", "^/user$", () => ok({ id: "user-1", email: "operator@example.org" })],
    ["GET", "^/user/tokens/verify$", () => ok({ id: "token-1", status: "active" })],
    [
      "GET",
      "^/memberships$",
      (st) => ok(st.accounts.map((a) => ({ id: `m-${a.id}`, account: a, status: "accepted" }))),
    ],
    [
      "GET",
      "^/accounts$",
      (st) =>
        ok(st.accounts, {
          result_info: { page: 1, per_page: 50, count: st.accounts.length, total_count: st.accounts.length },
        }),
    ],
    [
      "GET",
      `^${account}/subscriptions$`,
      (st) =>
        ok(
          st.workersPaid
            ? [
                {
                  id: "sub-1",
                  rate_plan: { id: "workers_paid", public_name: "Workers Paid" },
                  state: "Paid",
                  price: 5,
                  currency: "USD",
                  frequency: "monthly",
                },
              ]
            : [],
        ),
    ],
    [
      "GET",
      `^${account}/workers/subdomain$`,
      (st) =>
        st.subdomain
          ? ok({ subdomain: st.subdomain })
          : fail(10007, "This account does not have a workers.dev subdomain", 404),
    ],
    // D1
    [
      "GET",
      `^${account}/d1/database$`,
      (st) =>
        ok(st.databases, {
          result_info: { page: 1, per_page: 1000, count: st.databases.length, total_count: st.databases.length },
        }),
    ],
    [
      "POST",
      `^${account}/d1/database$`,
      (st, m, body) => {
        if (st.databases.some((d) => d.name === body.name))
          return fail(7502, "A database with that name already exists");
        const d = {
          uuid: randomUUID(),
          name: body.name,
          version: "production",
          created_at: new Date().toISOString(),
          file_size: 0,
          num_tables: 0,
        };
        st.databases.push(d);
        return ok(d);
      },
    ],
    ["GET", `^${account}/d1/database/([^/]+)$`, (st, m) => ok(st.databases.find((d) => d.uuid === m[2]) ?? null)],
    [
      "POST",
      `^${account}/d1/database/([^/]+)/(query|raw)$`,
      (st, m, body) => {
        // migrations: the d1_migrations table is read (empty), then each migration file runs
        const sql = String(body?.sql ?? "");
        const rows = /SELECT name FROM d1_migrations|FROM d1_migrations/i.test(sql) ? [] : [];
        return ok([
          {
            results: rows,
            success: true,
            meta: { changes: 0, duration: 1, served_by: "standin", rows_read: 0, rows_written: 0 },
          },
        ]);
      },
    ],
    // R2
    [
      "GET",
      `^${account}/r2/buckets$`,
      (st) =>
        st.r2Enabled
          ? ok({ buckets: st.buckets })
          : fail(10042, "Please enable R2 through the Cloudflare Dashboard.", 403),
    ],
    [
      "POST",
      `^${account}/r2/buckets$`,
      (st, m, body) => {
        if (!st.r2Enabled) return fail(10042, "Please enable R2 through the Cloudflare Dashboard.", 403);
        if (st.buckets.some((b) => b.name === body.name))
          return fail(10004, "The bucket you tried to create already exists, and you own it.", 409);
        st.buckets.push({ name: body.name, creation_date: new Date().toISOString() });
        return ok({});
      },
    ],
    [
      "GET",
      `^${account}/r2/buckets/([^/]+)$`,
      (st, m) => {
        const b = st.buckets.find((x) => x.name === m[2]);
        return b
          ? ok({ ...b, location: "WEUR", storage_class: "Standard" })
          : fail(10006, "The specified bucket does not exist.", 404);
      },
    ],
    // Queues
    [
      "GET",
      `^${account}/queues$`,
      (st, m, body, q) => {
        const names = q.getAll("name"); // wrangler asks for several at once (ensureQueuesExistByConfig)
        const list = names.length ? st.queues.filter((x) => names.includes(x.queue_name)) : st.queues;
        return ok(Number(q.get("page") ?? 1) > 1 ? [] : list, {
          result_info: {
            page: Number(q.get("page") ?? 1),
            per_page: 100,
            count: list.length,
            total_count: list.length,
          },
        });
      },
    ],
    [
      "POST",
      `^${account}/queues$`,
      (st, m, body) => {
        if (st.queues.some((x) => x.queue_name === body.queue_name)) return fail(11009, "Queue name already taken");
        const q = {
          queue_id: randomUUID(),
          queue_name: body.queue_name,
          created_on: new Date().toISOString(),
          modified_on: new Date().toISOString(),
          producers: [],
          consumers: [],
          producers_total_count: 0,
          consumers_total_count: 0,
        };
        st.queues.push(q);
        return ok(q);
      },
    ],
    ["GET", `^${account}/queues/([^/]+)$`, (st, m) => ok(st.queues.find((x) => x.queue_id === m[2]) ?? null)],
    [
      "POST",
      `^${account}/queues/([^/]+)/consumers$`,
      (st, m, body) => {
        const q = st.queues.find((x) => x.queue_id === m[2]);
        const c = { consumer_id: randomUUID(), type: "worker", ...body };
        q?.consumers.push(c);
        return ok(c);
      },
    ],
    ["PUT", `^${account}/queues/([^/]+)/consumers/([^/]+)$`, (st, m, body) => ok({ consumer_id: m[3], ...body })],
    // Worker scripts, versions, deployments, secrets, schedules, domains
    [
      "GET",
      `^${script}/secrets$`,
      (st, m) =>
        st.scripts[m[2]]
          ? ok(st.scripts[m[2]].secrets.map((name) => ({ name, type: "secret_text" })))
          : fail(10007, "This Worker does not exist on your account.", 404),
    ],
    [
      "PUT",
      `^${script}/secrets$`,
      (st, m, body) => {
        const s = scriptOf(st, m[2]);
        if (!s.versions.length) s.versions.push({ id: randomUUID(), number: 1, metadata: { source: "secret" } });
        if (!s.secrets.includes(body.name)) s.secrets.push(body.name);
        return ok({ name: body.name, type: "secret_text" });
      },
    ],
    [
      "GET",
      `^${account}/workers/services/([^/]+)$`,
      (st, m) => {
        const s = st.scripts[m[2]];
        if (!s) return fail(10007, "This Worker does not exist on your account.", 404);
        return ok({
          id: m[2],
          default_environment: {
            environment: "production",
            script: { id: m[2], tag: `tag-${m[2]}`, migration_tag: s.migrationTag ?? null },
          },
        });
      },
    ],
    [
      "GET",
      `^${script}/settings$`,
      (st, m) => {
        const s = st.scripts[m[2]];
        return s
          ? ok({
              bindings: s.lastMetadata?.bindings ?? [],
              logpush: false,
              observability: s.observability ?? null,
              tail_consumers: [],
            })
          : fail(10007, "This Worker does not exist on your account.", 404);
      },
    ],
    ["PATCH", `^${script}/settings$`, (st, m, body) => ok(body)],
    [
      "GET",
      `^${script}/subdomain$`,
      (st, m) => ok({ enabled: st.scripts[m[2]]?.workersDev ?? false, previews_enabled: false }),
    ],
    [
      "POST",
      `^${script}/subdomain$`,
      (st, m, body) => {
        scriptOf(st, m[2]).workersDev = !!body?.enabled;
        return ok({ enabled: !!body?.enabled, previews_enabled: !!body?.previews_enabled });
      },
    ],
    [
      "GET",
      `^${account}/workers/workers/([^/]+)$`,
      (st, m) => {
        const s = st.scripts[m[2]];
        return s
          ? ok({
              id: m[2],
              name: m[2],
              subdomain: { enabled: s.workersDev ?? false, previews_enabled: false },
              observability: s.observability,
            })
          : fail(10007, "This Worker does not exist on your account.", 404);
      },
    ],
    ["POST", `^${script}/assets-upload-session$`, () => ok({ jwt: "standin-assets-jwt", buckets: [] })],
    [
      "PUT",
      `^${script}$`,
      (st, m, body) => {
        const s = scriptOf(st, m[2]);
        const version = {
          id: randomUUID(),
          number: s.versions.length + 1,
          metadata: { source: "wrangler" },
          failing: st.failNextVersion,
        };
        st.failNextVersion = false;
        s.versions.push(version);
        s.observability = body?.metadata?.observability ?? null;
        s.migrationTag = body?.metadata?.migrations?.new_tag ?? s.migrationTag;
        s.lastMetadata = body?.metadata ?? null;
        deployOf(s, version.id);
        return ok({
          id: m[2],
          etag: version.id,
          deployment_id: version.id,
          startup_time_ms: 12,
          handlers: ["fetch", "queue", "scheduled"],
        });
      },
    ],
    [
      "POST",
      `^${script}/versions$`,
      (st, m, body) => {
        // a redeploy (wrangler's versions + deployments flow): the version, then POST deployments puts it live
        const s = scriptOf(st, m[2]);
        const version = { id: randomUUID(), number: s.versions.length + 1, metadata: { source: "wrangler" } };
        s.versions.push(version);
        s.observability = body?.metadata?.observability ?? s.observability;
        s.lastMetadata = body?.metadata ?? s.lastMetadata;
        return ok({
          id: version.id,
          number: version.number,
          metadata: version.metadata,
          resources: {
            script: { etag: version.id, handlers: ["fetch", "queue", "scheduled"] },
            bindings: body?.metadata?.bindings ?? [],
          },
          startup_time_ms: 12,
        });
      },
    ],
    [
      "GET",
      `^${script}/deployments$`,
      (st, m) => ok({ deployments: [...(st.scripts[m[2]]?.deployments ?? [])].reverse() }),
    ],
    [
      "POST",
      `^${script}/deployments$`,
      (st, m, body) => {
        const s = scriptOf(st, m[2]);
        return ok(deployOf(s, body.versions[0].version_id));
      },
    ],
    [
      "GET",
      `^${script}/versions$`,
      (st, m) =>
        ok({
          items: [...(st.scripts[m[2]]?.versions ?? [])].reverse().map((v) => ({
            id: v.id,
            number: v.number,
            metadata: { ...v.metadata, created_on: new Date().toISOString() },
          })),
        }),
    ],
    [
      "GET",
      `^${script}/versions/([^/]+)$`,
      (st, m) => {
        const v = st.scripts[m[2]]?.versions.find((x) => x.id === m[3]);
        return v
          ? ok({
              id: v.id,
              number: v.number,
              metadata: v.metadata,
              resources: { script: { etag: v.id, handlers: ["fetch"] }, bindings: [] },
            })
          : fail(10025, "version not found", 404);
      },
    ],
    ["PUT", `^${script}/schedules$`, (st, m, body) => ok({ schedules: body })],
    ["GET", `^${script}/schedules$`, () => ok({ schedules: [] })],
    ["GET", `^${script}/script-settings$`, () => ok({ logpush: false, tail_consumers: null })],
    [
      "POST",
      `^${service}/domains/changeset$`,
      (st, m, body) => {
        const conflicting = body.filter(
          (o) =>
            st.dnsRecords.some((r) => r.name === o.hostname) &&
            !st.workerDomains.some((d) => d.hostname === o.hostname),
        );
        const updated = body
          .filter((o) => st.workerDomains.some((d) => d.hostname === o.hostname))
          .map((o) => {
            const d = st.workerDomains.find((x) => x.hostname === o.hostname);
            return { ...d, modified: d.service !== m[2] };
          });
        const added = body
          .filter((o) => !conflicting.includes(o) && !st.workerDomains.some((d) => d.hostname === o.hostname))
          .map((o) => ({ ...o, id: randomUUID() }));
        return ok({ added, removed: [], updated, conflicting });
      },
    ],
    [
      "PUT",
      `^${service}/domains/records$`,
      (st, m, body) => {
        for (const o of body.origins) {
          const other = st.workerDomains.find((d) => d.hostname === o.hostname && d.service !== m[2]);
          if (other && !body.override_existing_origin)
            return fail(
              100116,
              `Hostname '${o.hostname}' is already in use by another Worker (${other.service}).`,
              409,
            );
          const record = st.dnsRecords.find((r) => r.name === o.hostname);
          if (
            record &&
            !other &&
            !st.workerDomains.some((d) => d.hostname === o.hostname) &&
            !body.override_existing_dns_record
          )
            return fail(100117, `Hostname '${o.hostname}' already has externally managed DNS records.`, 409);
        }
        for (const o of body.origins) {
          st.workerDomains = st.workerDomains.filter((d) => d.hostname !== o.hostname);
          st.dnsRecords = st.dnsRecords.filter((r) => r.name !== o.hostname);
          const zone = st.zones.find((z) => o.hostname === z.name || o.hostname.endsWith(`.${z.name}`));
          st.workerDomains.push({
            id: randomUUID(),
            hostname: o.hostname,
            service: m[2],
            environment: m[3],
            zone_id: zone?.id,
            zone_name: zone?.name,
          });
        }
        return ok(null);
      },
    ],
    [
      "GET",
      `^${account}/workers/domains$`,
      (st, m, body, q) => ok(st.workerDomains.filter((d) => !q.get("hostname") || d.hostname === q.get("hostname"))),
    ],
    [
      "GET",
      `^${account}/workers/domains/records/([^/]+)$`,
      (st, m) => ok(st.workerDomains.find((d) => d.id === m[2]) ?? null),
    ],
    ["GET", "^/zones$", (st, m, body, q) => ok(st.zones.filter((z) => !q.get("name") || z.name === q.get("name")))],
    [
      "GET",
      "^/zones/([^/]+)/dns_records$",
      (st, m, body, q) =>
        ok(st.dnsRecords.filter((r) => r.zone_id === m[1] && (!q.get("name") || r.name === q.get("name")))),
    ],
    ["GET", `^${account}/workers/durable_objects/namespaces$`, () => ok([])],
    [
      "GET",
      `^${account}/workers/account-settings$`,
      () => ok({ default_usage_model: "standard", green_compute: false }),
    ],
  ];
}

/**
 * Starts the stand-in on 127.0.0.1:`port` (0: any free port). Resolves to { url, base (the /client/v4 URL),
 * state, requests (every request recorded, in order), close() }.
 * @param {{ port?: number, state?: ReturnType<typeof defaultState> }} [options]
 */
export async function startStandin({ port = 0, state = defaultState() } = {}) {
  const table = routes().map(([method, re, handler]) => [method, new RegExp(re), handler]);
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://standin");
    const path = url.pathname.replace(/^\/client\/v4/, "");
    const body = await readBody(req);
    const entry = { method: req.method, path, query: Object.fromEntries(url.searchParams), body, status: 0 };
    requests.push(entry);
    let answer;
    if (req.headers.authorization !== `Bearer ${state.token}`) answer = fail(10000, "Authentication error", 403);
    else {
      const route = table.find(([method, re]) => method === req.method && re.test(path));
      const m = route && path.match(route[1]);
      answer = route
        ? route[2](state, m, body, url.searchParams)
        : fail(7003, `No route for that URI (stand-in: ${req.method} ${path})`, 404);
    }
    const { status, body: out } = "status" in answer && "body" in answer ? answer : { status: 200, body: answer };
    entry.status = status;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(out));
  });
  await new Promise((done) => server.listen(port, "127.0.0.1", done));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, base: `${url}/client/v4`, state, requests, close: () => new Promise((done) => server.close(done)) };
}
