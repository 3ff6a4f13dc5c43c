// A relay between a real HTTP client program (GDAL, OWSLib, ...) and the Worker under test, for the tests in workerd
// (vitest.config.ts binds it as CLIENT_RELAY): the Worker there listens on no port, so a program cannot reach it.
// The relay runs the program with an HTTP server of its own on 127.0.0.1 (a port the system picks) as the program's
// server; every request the program sends is held until the test, which polls for it, has asked the Worker and
// handed back the Worker's answer. So the program talks HTTP with the Worker unchanged: nothing is mocked.
//
// Protocol (JSON bodies, POST http://relay/<op>):
// - run {command: [program, ...args], stdin?: string, env?: {...}, host?: "127.0.0.2"} -> {id, base}: starts the
//   server (on host, default 127.0.0.1; the S3 endpoint's tests use 127.0.0.2, an S3_HOSTS address) and the program,
//   whose environment gets EO_EDGE_BASE=<base> (http://<host>:<port>) and a scratch GDAL WMS cache folder;
// - next {id} -> {request: {rid, method, path, headers, body}} (body base64) when the program sent a request,
//   {done: {code, stdout, stderr}} once it has exited, {idle: true} after 20 s without either;
// - respond {id, rid, status, headers, body} (body base64) answers held request rid.
// A program that cannot start ends with code 127 and the reason in stderr; a run left alone for 5 minutes is killed.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const IDLE_MS = 20_000;
const RUN_LIMIT_MS = 5 * 60_000;
/** Runs by id. */
const runs = new Map();
let counter = 0;

/** Starts a run: the HTTP server, then the program. */
async function start({ command, stdin = "", env = {}, host = "127.0.0.1" }) {
  const id = String(++counter);
  const run = {
    events: [],
    waiters: [],
    held: new Map(),
    rid: 0,
    scratch: mkdtempSync(join(tmpdir(), "eo-edge-relay-")),
  };
  const push = (event) => (run.waiters.length ? run.waiters.shift()(event) : run.events.push(event));
  run.server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const rid = String(++run.rid);
      run.held.set(rid, res);
      push({
        request: {
          rid,
          method: req.method,
          path: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("base64"),
        },
      });
    });
  });
  await new Promise((done) => run.server.listen(0, host, done));
  const base = `http://${host}:${run.server.address().port}`;
  const out = [],
    err = [];
  const finish = (code) => {
    if (run.finished) return;
    run.finished = true;
    clearTimeout(run.limit);
    run.server.close();
    rmSync(run.scratch, { recursive: true, force: true });
    push({ done: { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() } });
  };
  const child = spawn(command[0], command.slice(1), {
    stdio: ["pipe", "pipe", "pipe"],
    // no proxy for the relay's address; GDAL's WMS tile cache and any dot-folder in the run's scratch folder
    env: {
      ...process.env,
      ...env,
      EO_EDGE_BASE: base,
      NO_PROXY: host,
      no_proxy: host,
      GDAL_DEFAULT_WMS_CACHE_PATH: join(run.scratch, "wms-cache"),
      HOME: run.scratch,
    },
  });
  child.stdout.on("data", (b) => out.push(b));
  child.stderr.on("data", (b) => err.push(b));
  child.on("error", (e) => (err.push(Buffer.from(`${command[0]} cannot run: ${e.message}\n`)), finish(127)));
  child.on("close", (code, signal) => finish(code ?? (signal ? 128 : 1)));
  child.stdin.on("error", () => {}); // the program may exit before reading its input
  child.stdin.end(stdin);
  run.limit = setTimeout(() => child.kill("SIGKILL"), RUN_LIMIT_MS);
  runs.set(id, run);
  return { id, base };
}

/** The next event of a run (a request, the end), or idle after IDLE_MS. */
function next({ id }) {
  const run = runs.get(id);
  if (!run) return { done: { code: -1, stdout: "", stderr: `no relay run ${id}` } };
  const event = run.events.shift();
  if (event) return settle(id, event);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      run.waiters.splice(run.waiters.indexOf(waiter), 1);
      resolve({ idle: true });
    }, IDLE_MS);
    const waiter = (e) => (clearTimeout(timer), resolve(settle(id, e)));
    run.waiters.push(waiter);
  });
}

/** Forgets a run once its end has been reported. */
const settle = (id, event) => (event.done && runs.delete(id), event);

/** Answers a held request. */
function respond({ id, rid, status, headers = {}, body = "" }) {
  const res = runs.get(id)?.held.get(rid);
  if (!res) return { ok: false };
  runs.get(id).held.delete(rid);
  res.writeHead(status, headers);
  res.end(Buffer.from(body, "base64"));
  return { ok: true };
}

const OPS = { run: start, next, respond };

/** The service binding's fetch handler: POST http://relay/<op> with the op's JSON. */
export async function clientRelay(request) {
  const op = OPS[new URL(request.url).pathname.slice(1)];
  if (!op) return new Response("unknown relay operation", { status: 404 });
  return Response.json(await op(await request.json()));
}
