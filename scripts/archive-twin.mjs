// The archive twin: a local stand-in for the public cloud archives EO Edge reads, serving the real
// fixtures of data/archive/ (see data/SOURCES.md) as the real services do, for `npm start`, the tests and the bench:
// - objects under their real bucket keys: GET/HEAD {url}/objects/<bucket-or-host>/<key> with one Range (S3 and Azure
//   Blob Storage answers and errors; requester-pays buckets need SigV4 of TWIN_AWS_KEYS, the Planetary Computer's
//   storage accounts a SAS token of the twin's token endpoint), scripts/lib/twin/objects.mjs;
// - Earth Search v1 at {url}/earth-search/v1 and the Planetary Computer at {url}/planetary-computer/api/stac/v1
//   (STAC API, scripts/lib/twin/stac.mjs), the Planetary Computer's SAS endpoint at
//   {url}/planetary-computer/api/sas/v1/token/{collection} (and /sign?href=);
// - test hooks: GET /_twin/stats, POST /_twin/reset, POST /_twin/faults {prefix, status|"hang"|"cut"|"stall"|
//   "expire-tokens", count} ("cut": an object's answer breaks off after half its body, the connection closed;
//   "stall": it sends half its body, then nothing more), POST /_twin/latency {ms}, GET /_twin/describe;
// - scopes: everything above also under {url}/t/<name>/ (any name of [A-Za-z0-9_-]), with stats, faults, latency and
//   SAS tokens of its own, so that test files running at the same time do not see each other's requests or faults.
// The interface is fixed by /work/coord/ARCHIVE-CONTRACT.md: startArchiveTwin() and the CLI
// `node scripts/archive-twin.mjs --port P [--latency-ms L]`, which prints the twin's description as one JSON line.
import { createServer } from "node:http";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SasAuthority, TWIN_AWS_KEYS } from "./lib/twin/auth.mjs";
import { sendXmlError, serveObject } from "./lib/twin/objects.mjs";
import { loadCql2 } from "./lib/twin/search.mjs";
import { serveStac } from "./lib/twin/stac.mjs";
import { ARCHIVES, BUCKETS, loadStore, PC_CONTAINERS, urlMapFor } from "./lib/twin/store.mjs";

export { TWIN_AWS_KEYS };

const SAS_PREFIX = "/planetary-computer/api/sas/v1";
const json = (res, status, body) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
/**
 * A scope's counters: requests by kind, object bytes sent, requests per object, and the most requests it had in flight
 * at once (`peakInFlight`: Workers allow 6 simultaneous connections per request).
 */
const freshStats = () => ({
  stac: 0,
  object: 0,
  token: 0,
  other: 0,
  bytes: 0,
  objects: {},
  inFlight: 0,
  peakInFlight: 0,
});

/** The state of one scope of the twin (the root, or /t/<name>): its stats, faults, latency and SAS authority. */
function newScope(store, sasTtlSeconds, latencyMs) {
  const scope = { store, sas: new SasAuthority(sasTtlSeconds), stats: freshStats(), faults: [], latencyMs, url: "" };
  scope.reset = () => ((scope.stats = freshStats()), (scope.faults = []));
  return scope;
}

/** What a twin (or one of its scopes) at `url` serves: { url, stacUrl: { <archive>: root }, urlMap }. */
const describe = (url) => ({
  url,
  stacUrl: Object.fromEntries(Object.entries(ARCHIVES).map(([id, a]) => [id, `${url}${a.path}`])),
  urlMap: urlMapFor(url),
});

/** The Planetary Computer's SAS endpoint: /token/{collection}, /token/{account}/{container}, /sign?href=. */
function serveSas(req, res, sub, twin) {
  const url = new URL(req.url, twin.url);
  const token = /^\/token\/([^/]+)(?:\/([^/]+))?$/.exec(sub);
  if (token) {
    const where = token[2] ? { account: token[1], container: token[2] } : PC_CONTAINERS[token[1]];
    if (!where) return json(res, 404, { detail: `Collection ${token[1]} not found` });
    return json(res, 200, twin.sas.issue(where.account, where.container));
  }
  if (sub === "/sign") {
    const href = url.searchParams.get("href") ?? "";
    const m = /^https:\/\/([^.]+)\.blob\.core\.windows\.net\/([^/]+)\//.exec(href);
    if (!m) return json(res, 400, { detail: `${href} is not an Azure Blob Storage URL` });
    const sas = twin.sas.issue(m[1], m[2]);
    return json(res, 200, {
      href: `${href}${href.includes("?") ? "&" : "?"}${sas.token}`,
      "msft:expiry": sas["msft:expiry"],
    });
  }
  return json(res, 404, { detail: "Not Found" });
}

/** Reads a small JSON request body ({} when empty). */
async function bodyJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
}

/** The test hooks under /_twin/ (never delayed, never faulted, not counted). */
async function serveHooks(req, res, sub, twin) {
  if (sub === "/stats" && req.method === "GET") return json(res, 200, twin.stats);
  if (sub === "/describe" && req.method === "GET") return json(res, 200, describe(twin.url));
  if (sub === "/reset" && req.method === "POST") return (twin.reset(), json(res, 200, { ok: true }));
  if (sub === "/latency" && req.method === "POST")
    return ((twin.latencyMs = Number((await bodyJson(req)).ms) || 0), json(res, 200, { latencyMs: twin.latencyMs }));
  if (sub === "/faults" && req.method === "POST") {
    const { prefix = "/", status, count = 1 } = await bodyJson(req);
    if (status === "expire-tokens") twin.sas.revoke();
    else if (
      MID_BODY.includes(status) ||
      status === "hang" ||
      (Number.isInteger(status) && status >= 400 && status <= 599)
    )
      twin.faults.push({ prefix, status, count });
    else
      return json(res, 400, {
        error: `status must be an HTTP error status, "hang", "cut", "stall" or "expire-tokens", got ${JSON.stringify(status)}`,
      });
    return json(res, 200, { faults: twin.faults });
  }
  return json(res, 404, { error: "unknown hook" });
}

/** Faults that break an object's answer off in the middle of its body (scripts/lib/twin/objects.mjs serveObject). */
const MID_BODY = ["cut", "stall"];

/**
 * Answers a request with an injected fault when one matches its path (and uses it up); true when it did. A fault
 * of MID_BODY on an object is left to serveObject (`req.twinFault`): false.
 */
function injectFault(req, res, path, twin) {
  const fault = twin.faults.find(
    (f) => path.startsWith(f.prefix) && f.count > 0 && (!MID_BODY.includes(f.status) || path.startsWith("/objects/")),
  );
  if (!fault) return false;
  fault.count -= 1;
  twin.faults = twin.faults.filter((f) => f.count > 0);
  if (MID_BODY.includes(fault.status)) return ((req.twinFault = fault.status), false);
  if (fault.status === "hang") return true; // never answered; close() destroys the connection
  const code = fault.status === 503 ? "SlowDown" : fault.status >= 500 ? "InternalError" : "AccessDenied";
  if (path.startsWith("/objects/"))
    sendXmlError(res, BUCKETS[path.split("/")[2]]?.kind ?? "s3", {
      status: fault.status,
      code,
      message: `Injected fault (${fault.status})`,
    });
  else json(res, fault.status, { code, description: `Injected fault (${fault.status})` });
  return true;
}

/** Routes one request (after the latency) to its scope (the root or /t/<name>/), counting it by kind. */
async function route(req, res, root) {
  let path = (req.url ?? "/").split("?")[0];
  let twin = root;
  const scoped = /^\/t\/([A-Za-z0-9_-]{1,64})(\/.*)?$/.exec(path);
  if (scoped) {
    twin = root.scope(scoped[1]);
    path = scoped[2] ?? "/";
  }
  if (path.startsWith("/_twin/")) return serveHooks(req, res, path.slice(6), twin);
  const stats = twin.stats;
  stats.peakInFlight = Math.max(stats.peakInFlight, ++stats.inFlight);
  res.on("close", () => (stats.inFlight -= 1));
  if (twin.latencyMs > 0) await new Promise((r) => setTimeout(r, twin.latencyMs));
  const archive = Object.entries(ARCHIVES).find(([, a]) => path === a.path || path.startsWith(`${a.path}/`));
  const kind = path.startsWith("/objects/")
    ? "object"
    : path.startsWith(SAS_PREFIX)
      ? "token"
      : archive
        ? "stac"
        : "other";
  twin.stats[kind] += 1;
  if (kind === "object") {
    const key = decodeURIComponent(path.slice(9));
    twin.stats.objects[key] = (twin.stats.objects[key] ?? 0) + 1;
  }
  if (injectFault(req, res, path, twin)) return;
  if (kind === "object") return serveObject(req, res, path.slice(9), twin);
  if (kind === "token") return serveSas(req, res, path.slice(SAS_PREFIX.length), twin);
  if (archive) return serveStac(req, res, archive[0], path.slice(archive[1].path.length), twin);
  json(res, 404, {
    error: "Not Found",
    archives: Object.values(ARCHIVES).map((a) => a.path),
    objects: "/objects/<bucket-or-host>/<key>",
  });
}

/**
 * Starts the archive twin on host:port (port 0: a free port). `latencyMs`: delay before every answer (hooks
 * excepted), `root`: the repository whose data/archive/ is served, `sasTtlSeconds`: lifetime of SAS tokens. The
 * server does not keep the Node process alive (unref'd: the CLI below and `npm start` keep theirs running).
 * Resolves to { url, stacUrl: { "earth-search", "planetary-computer" }, urlMap, stats(), resetStats(), close() }.
 */
export async function startArchiveTwin({
  port = 0,
  host = "127.0.0.1",
  latencyMs = 0,
  root,
  sasTtlSeconds = 3600,
} = {}) {
  await loadCql2();
  const store = loadStore(root);
  const scopes = new Map();
  const twin = newScope(store, sasTtlSeconds, latencyMs);
  twin.scope = (name) => {
    if (!scopes.has(name))
      scopes.set(name, Object.assign(newScope(store, sasTtlSeconds, 0), { url: `${twin.url}/t/${name}` }));
    return scopes.get(name);
  };
  const server = createServer((req, res) =>
    route(req, res, twin).catch((e) =>
      res.headersSent ? res.destroy() : json(res, 500, { error: String(e?.stack ?? e) }),
    ),
  );
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket) => socket.unref());
  await new Promise((done, fail) => server.once("error", fail).listen(port, host, done));
  server.unref();
  const { port: bound } = server.address();
  twin.url = `http://${host}:${bound}`;
  return {
    ...describe(twin.url),
    stats: () => structuredClone(twin.stats),
    resetStats: () => twin.reset(),
    close: () => new Promise((done) => (server.close(() => done()), server.closeAllConnections())),
  };
}

/** True when this module is the program (run as `node scripts/archive-twin.mjs`, also through a symlink). */
const isMain = () => {
  try {
    return realpathSync(process.argv[1] ?? "") === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
};

if (isMain()) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      "latency-ms": { type: "string", default: "0" },
    },
  });
  const twin = await startArchiveTwin({
    port: Number(values.port),
    host: values.host,
    latencyMs: Number(values["latency-ms"]),
  });
  const { stats: _s, resetStats: _r, close, ...described } = twin;
  console.log(JSON.stringify(described));
  const alive = setInterval(() => {}, 1 << 30); // the server is unref'd: keep the CLI running until a signal
  const stop = () => (clearInterval(alive), close().then(() => process.exit(0)));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
