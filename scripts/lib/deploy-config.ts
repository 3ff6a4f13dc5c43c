// The pure parts of `npm run deploy` (scripts/deploy.mjs): what wrangler.toml asks to exist, the configuration a
// deployment is deployed with (database id, vars, custom domains per location), and the readers of wrangler's
// outputs. No I/O here (no node: imports either), so the tests run these functions in workerd (test/admin).
// TypeScript, run by tsx (`npm run deploy`).

/** wrangler.toml as wrangler's experimental_readRawConfig reads it (the members used here). */
export interface RawConfig {
  name: string;
  main: string;
  vars?: Record<string, unknown>;
  assets?: { directory: string } & Record<string, unknown>;
  d1_databases?: ({ binding: string; database_name: string; database_id?: string; migrations_dir?: string } & Record<
    string,
    unknown
  >)[];
  r2_buckets?: ({ binding: string; bucket_name: string } & Record<string, unknown>)[];
  queues?: {
    producers?: ({ binding: string; queue: string } & Record<string, unknown>)[];
    consumers?: ({ queue: string; dead_letter_queue?: string } & Record<string, unknown>)[];
  };
  [key: string]: unknown;
}

/** A custom domain of the Worker (wrangler's `routes` entry). */
export interface Route {
  pattern: string;
  custom_domain: boolean;
}

/** Where a deployment's locations are served (see {@link locationConfig}). */
export interface LocationSettings {
  location: string;
  url: string;
  domain?: string;
  domains?: Record<string, string>;
  urls?: Record<string, string>;
  s3Domain?: string;
}

/**
 * The name of resource `resource` (a D1 database, R2 bucket or queue of wrangler.toml, named after the Worker, e.g.
 * `eo-edge-data`) in a deployment named `name`: the Worker's own name prefix replaced, so that two deployments of
 * one Cloudflare account (`--name eo-edge-staging`) never share a database, bucket or queue.
 * `base`: wrangler.toml's `name`.
 */
export function renamed(resource: string, base: string, name: string): string {
  return name === base || !resource.startsWith(base) ? resource : name + resource.slice(base.length);
}

/**
 * What a deployment needs to exist, from wrangler.toml's raw configuration (wrangler's experimental_readRawConfig):
 * every D1 database, every R2 bucket (DATA, BUCKETS and any other binding) and every queue (producers, consumers
 * and each consumer's dead-letter queue), named for deployment `name`.
 */
export function resourcesOf(
  raw: RawConfig,
  name: string,
): { databases: { binding: string; name: string }[]; buckets: string[]; queues: string[] } {
  const n = (r: string): string => renamed(r, raw.name, name);
  const unique = (xs: (string | undefined)[]): string[] => [
    ...new Set(xs.filter((x): x is string => typeof x === "string" && x !== "")),
  ];
  const q = raw.queues ?? {};
  return {
    databases: (raw.d1_databases ?? []).map((d) => ({ binding: d.binding, name: n(d.database_name) })),
    buckets: unique((raw.r2_buckets ?? []).map((b) => n(b.bucket_name))),
    queues: unique(
      [
        ...(q.producers ?? []).map((p) => p.queue),
        ...(q.consumers ?? []).flatMap((c) => [c.queue, c.dead_letter_queue]),
      ].map((x) => x && n(x)),
    ),
  };
}

/** `https://<host>` of a bare hostname (a custom domain). */
const https = (host: string): string => `https://${host}`;

/**
 * The Worker vars and custom domains of a deployment's locations (src/locations/config.ts):
 * - this Worker serves location `location` at `url` (its custom domain `domain`, else its workers.dev URL);
 * - `domains` (`{id: host}`): other locations this same Worker serves under their own hostnames (one D1, R2 and
 *   queue for all: requests are served as the location whose URL they were sent to);
 * - `urls` (`{id: url}`): locations served by other deployments, listed so that requests for their collections are
 *   sent there (the 404 naming the hosting location);
 * - `s3Domain`: the hostname of the S3 endpoint (S3_HOSTS, served at the root of that host; it also stays at `/s3`).
 * Every hostname becomes a custom domain route (Cloudflare creates its DNS record and certificate; the zone must be
 * on the same account).
 */
export function locationConfig(s: LocationSettings): { vars: Record<string, string>; routes: Route[] } {
  const served = Object.entries(s.domains ?? {});
  const elsewhere = Object.entries(s.urls ?? {});
  const family = [
    { id: s.location, url: s.url },
    ...served.map(([id, host]) => ({ id, url: https(host) })),
    ...elsewhere.map(([id, url]) => ({ id, url: url.replace(/\/+$/, "") })),
  ];
  const vars: Record<string, string> = {
    PUBLIC_BASE_URL: s.url,
    LOCATION_ID: s.location,
    S3_HOSTS: s.s3Domain ?? "",
    ...(family.length > 1 ? { LOCATIONS: JSON.stringify(family) } : {}),
  };
  const hosts = [s.domain, ...served.map(([, host]) => host), s.s3Domain].filter((h): h is string => !!h);
  return { vars, routes: [...new Set(hosts)].map((pattern) => ({ pattern, custom_domain: true })) };
}

/**
 * The configuration `wrangler deploy` gets (written as JSON beside the deployment's state, never into git):
 * wrangler.toml's, with the deployment's name and resource names, the D1 database ids, the vars and routes of
 * {@link locationConfig}, and paths made relative to the generated file (`root`: the repository seen from its folder).
 */
export function deployConfig(
  raw: RawConfig,
  {
    root,
    name,
    databaseIds,
    vars,
    routes,
  }: { root: string; name: string; databaseIds: Record<string, string>; vars: Record<string, string>; routes: Route[] },
): RawConfig {
  const n = (r: string): string => renamed(r, raw.name, name);
  const at = (p: string): string => `${root.replace(/\/+$/, "")}/${p.replace(/^\.\//, "")}`;
  const q = raw.queues ?? {};
  return {
    ...raw,
    name,
    main: at(raw.main),
    ...(raw.assets ? { assets: { ...raw.assets, directory: at(raw.assets.directory) } } : {}),
    vars: { ...raw.vars, ...vars },
    d1_databases: (raw.d1_databases ?? []).map((d) => ({
      ...d,
      database_name: n(d.database_name),
      database_id: databaseIds[n(d.database_name)] ?? d.database_id,
      migrations_dir: at(d.migrations_dir ?? "migrations"),
    })),
    r2_buckets: (raw.r2_buckets ?? []).map((b) => ({ ...b, bucket_name: n(b.bucket_name) })),
    queues: {
      ...q,
      producers: (q.producers ?? []).map((p) => ({ ...p, queue: n(p.queue) })),
      consumers: (q.consumers ?? []).map((c) => ({
        ...c,
        queue: n(c.queue),
        ...(c.dead_letter_queue ? { dead_letter_queue: n(c.dead_letter_queue) } : {}),
      })),
    },
    ...(routes.length ? { routes } : {}),
  };
}

/** `text` without ANSI colour codes. */
// eslint-disable-next-line no-control-regex
const plain = (text: string): string => String(text).replace(/\u001b\[[0-9;]*m/g, "");

/**
 * The first JSON value of `text` that starts a line (wrangler may print warnings around it), or undefined.
 */
function firstJson(text: string): unknown {
  for (const m of text.matchAll(/^\s*[[{]/gm)) {
    const from = m.index + m[0].length - 1;
    const close = text[from] === "[" ? "]" : "}";
    for (let to = text.lastIndexOf(close); to > from; to = text.lastIndexOf(close, to - 1)) {
      try {
        return JSON.parse(text.slice(from, to + 1));
      } catch {
        /* a shorter slice may be the JSON */
      }
    }
  }
  return undefined;
}

/**
 * The databases of `wrangler d1 list --json` (an array of the API's database objects: `uuid`, `name`, ...), as
 * [{ name, id }]. Tolerates an `{result: [...]}` wrapper and warnings around the JSON; throws when there is no list.
 */
export function parseD1List(text: string): { name: string; id: string }[] {
  const parsed = firstJson(plain(text)) as { result?: unknown } | unknown[] | undefined;
  const list = (Array.isArray(parsed) ? parsed : parsed?.result) as
    | { name?: unknown; uuid?: string; database_id?: string; id?: string }[]
    | undefined;
  if (!Array.isArray(list))
    throw new Error(`wrangler d1 list --json printed no list of databases: ${plain(text).slice(0, 300)}`);
  return list
    .filter((d) => typeof d?.name === "string")
    .map((d) => ({ name: d.name as string, id: (d.uuid ?? d.database_id ?? d.id) as string }));
}

/**
 * The bucket names of `wrangler r2 bucket list` (blocks of `name: <bucket>` / `creation_date: ...` lines).
 */
export function parseR2BucketList(text: string): string[] {
  return [...plain(text).matchAll(/^\s*name:\s+(\S+)\s*$/gm)].map((m) => m[1]!);
}

/**
 * The queue names of `wrangler queues list` (a cli-table3 table: `│ id │ name │ created_on │ ...`, box or ASCII
 * borders), read by the column headed `name`.
 */
export function parseQueuesList(text: string): string[] {
  const rows = plain(text)
    .split("\n")
    .filter((l) => /^\s*[│|]/.test(l))
    .map((l) =>
      l
        .trim()
        .replace(/^[│|]|[│|]$/g, "")
        .split(/[│|]/)
        .map((c) => c.trim()),
    )
    .filter((cells) => !cells.every((c) => /^[-=+:─]*$/.test(c))); // separator rows
  const header = rows.findIndex((r) => r.includes("name"));
  if (header < 0) return [];
  const col = rows[header]!.indexOf("name");
  return rows
    .slice(header + 1)
    .map((r) => r[col])
    .filter((x): x is string => !!x);
}

/**
 * The secret names of `wrangler secret list --format json` (`[{name, type}]`); [] when it printed no list.
 */
export function parseSecretList(text: string): string[] {
  const list = firstJson(plain(text));
  return Array.isArray(list)
    ? list.map((s: { name?: unknown }) => s?.name).filter((x): x is string => typeof x === "string")
    : [];
}

/**
 * Milliseconds of CPU a startup profile spent (the `.cpuprofile` of `wrangler check startup`, Chrome DevTools
 * Protocol `Profiler.Profile`: `nodes`, `samples`, `timeDeltas` in microseconds): the time of every sample not in
 * the `(idle)` node, garbage collection included (what wrangler prints as "Active").
 */
export function startupCpuMs(profile: {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let us = 0;
  profile.samples.forEach((id, i) => (us += idle.has(id) ? 0 : (profile.timeDeltas[i] ?? 0)));
  return us / 1000;
}

/** Largest max_concurrency a queue consumer may have (Cloudflare's own ceiling: 250 concurrent invocations). */
export const MAX_CONSUMER_CONCURRENCY = 250;

/**
 * What in wrangler.toml makes a deployment unsafe to run: `[observability]` not enabled (errors of the
 * edge would be lost), a queue consumer without a bounded `max_concurrency` (Cloudflare autoscales it to 250
 * invocations, all on the same Durable Objects and D1 database). Empty when the configuration is fine.
 */
export function configProblems(raw: RawConfig): string[] {
  const problems: string[] = [];
  const observability = raw.observability as { enabled?: unknown } | undefined;
  if (observability?.enabled !== true)
    problems.push("[observability] enabled = true is missing (Workers Logs keep the edge's errors)");
  for (const c of raw.queues?.consumers ?? []) {
    const n = c.max_concurrency;
    if (!(typeof n === "number" && Number.isInteger(n) && n >= 1 && n < MAX_CONSUMER_CONCURRENCY)) {
      problems.push(
        `queue consumer ${c.queue} has no bounded max_concurrency (${n === undefined ? "unset: autoscaled to 250" : String(n)}); give it 1..${MAX_CONSUMER_CONCURRENCY - 1} with the reason beside it`,
      );
    }
  }
  return problems;
}

/**
 * The startup check's judgement (scripts/lib/startup-check.mjs), in ms: the Worker's profiled median `worker`
 * divided by the load factor, the calibration Worker's profiled median `calibration` over the CPU time its fixed
 * work took outside the profiler (`calibrationCpu`); a factor below 1 counts as 1 (a quiet machine's profile is
 * taken as it is, never scaled up).
 */
export function judgeStartup(worker: number, calibration: number, calibrationCpu: number): number {
  return worker / Math.max(1, calibration / calibrationCpu);
}
