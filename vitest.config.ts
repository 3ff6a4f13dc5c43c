import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { spawn } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { clientRelay } from "./scripts/lib/client-relay.mjs";
import { startPlanetStub } from "./test/dataimport/planet-stub.mjs";
import { startArchiveTwin, TWIN_AWS_KEYS } from "./scripts/archive-twin.mjs";

const DATA = resolve("data");
const FIXTURES = resolve("test/fixtures");

/** Lists data/items/<collection>/*.json as one JSON array (the STAC items the seed loads). */
async function allItems(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const c of await readdir(join(DATA, "items"))) {
    for (const f of (await readdir(join(DATA, "items", c))).sort()) {
      out.push(JSON.parse(await readFile(join(DATA, "items", c, f), "utf8")));
    }
  }
  return out;
}

/**
 * SAMPLE_DATA: a Node-side service that serves the real sample files of data/ and test/fixtures/ to tests
 * running in workerd (GET http://sample/<path under data/>, GET http://sample/fixtures/<path>,
 * GET http://sample/items -> all seed items). Tests copy what they need into R2/D1 with test/helpers/seed.ts.
 */
async function sampleData(request: Request): Promise<Response> {
  const path = decodeURIComponent(new URL(request.url).pathname).replace(/^\/+/, "");
  if (path.includes("..")) return new Response("bad path", { status: 400 });
  try {
    if (path === "items") return Response.json(await allItems());
    const file = path.startsWith("fixtures/") ? join(FIXTURES, path.slice(9)) : join(DATA, path);
    return new Response(await readFile(file));
  } catch {
    return new Response("not found", { status: 404 });
  }
}

/** Debian's python3 with Pillow, tifffile, numpy and GDAL (see scripts/py_decode.py). */
const PYTHON = "/usr/bin/python3";

/**
 * A Node-side service running `scripts/<script>` with Debian's python3: POST http://py/ with the script's JSON on
 * stdin; answers its JSON stdout, or 503 with the reason when python3 or one of its modules is missing (the script
 * exits 3; tests then skip), 500 with stderr for another failure. Services:
 * - PY_DECODE (scripts/py_decode.py): decodes test outputs with the decoders real clients use (Pillow, tifffile
 *   without imagecodecs, GDAL, Python's tarfile and email);
 * - PY_S3 (scripts/py_s3.py): S3 requests signed and answers parsed by botocore (tests of src/s3);
 * - PY_ZARR (scripts/py_zarr.py): Zarr v2 stores read by zarr-python (tests of batch Zarr output);
 * - PY_S3_CLIENTS (scripts/py_s3_clients.py): GDAL's /vsis3/ and Zarr driver and rasterio reading objects over
 *   S3_BRIDGE (tests of src/s3 at the root of an S3 address).
 */
function pyScript(script: string): (request: Request) => Promise<Response> {
  return (request) => request.arrayBuffer().then((body) => new Promise((done) => {
    const child = spawn(PYTHON, [resolve("scripts", script)], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [], err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => done(new Response(`${PYTHON} cannot run: ${e.message}`, { status: 503 })));
    child.on("close", (code) => {
      const stderr = Buffer.concat(err).toString();
      if (code === 0) done(new Response(Buffer.concat(out), { headers: { "content-type": "application/json" } }));
      else done(new Response(stderr || `${PYTHON} exited with ${code}`, { status: code === 3 ? 503 : 500 }));
    });
    child.stdin.on("error", () => {}); // python3 may exit before reading (missing modules): reported on close
    child.stdin.end(Buffer.from(body));
  }));
}

/** What the S3 bridge needs of the Miniflare instance that runs the tests (Miniflare passes itself to services). */
interface Dispatcher {
  dispatchFetch(url: string, init?: RequestInit): Promise<Response>;
}

/** Forwards one request of a TCP client to the Worker under test and streams its answer back (until the client hangs up). */
async function forwardToWorker(mf: Dispatcher, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
  const hangUp = new AbortController();
  res.on("close", () => hangUp.abort()); // GDAL closes a connection once it has the bytes it needs
  const r = await mf.dispatchFetch(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, redirect: "manual", signal: hangUp.signal });
  res.writeHead(r.status, Object.fromEntries(r.headers));
  if (r.body && req.method !== "HEAD") for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/** The address of each Miniflare instance's bridge (one HTTP server per instance, started on first use). */
const bridges = new WeakMap<Dispatcher, Promise<string>>();

/**
 * S3_BRIDGE: a real TCP address in front of the Worker under test, for S3 clients that take a host and port rather
 * than a fetch function (GDAL's /vsis3/ with AWS_S3_ENDPOINT, rasterio): GET http://bridge/ answers
 * {"endpoint": "127.0.0.2:<port>"}, an HTTP server on a free port that passes every request unchanged (method,
 * path, headers with the Host the client signed, body) to the Worker through Miniflare's dispatchFetch, as the
 * TCP forward of `npm start`'s S3 port does; the Worker serves S3 at the root of 127.0.0.2 (S3_HOSTS below: a loopback
 * address of its own, as 127.0.0.1 addresses are the API's, e.g. the second location of test/locations).
 */
function s3Bridge(_request: Request, mf: Dispatcher): Promise<Response> {
  let address = bridges.get(mf);
  if (!address) {
    const server = createServer((req, res) => forwardToWorker(mf, req, res).catch((e: Error) => (res.headersSent ? res.destroy() : res.writeHead(502).end(String(e)))));
    address = new Promise((done) => server.listen(0, "127.0.0.2", () => done(`127.0.0.2:${(server.address() as AddressInfo).port}`)));
    server.unref();
    bridges.set(mf, address);
  }
  return address.then((endpoint) => Response.json({ endpoint }));
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // Planet's public APIs as a local HTTP server (test/dataimport/planet-stub.mjs), for the Planet adapter's tests
  const planet = await startPlanetStub();
  // The archive twin (scripts/archive-twin.mjs, issue 36): the public archives' STAC APIs and buckets over data/archive/,
  // on a free loopback port; the Worker reads it through the archive vars, the tests reach its hooks at ARCHIVE_TWIN_URL
  const twin = await startArchiveTwin();
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // PUBLIC_BASE_URL: the origin tests send requests to (test/helpers/auth.ts BASE); BUCKET_REGIONS: the buckets
          // test/locations puts in a CREODIAS region, so their BYOC collections are hosted in location creo;
          // S3_HOSTS: 127.0.0.2 on any port (the S3 bridge; test/s3/address.test.ts) serves the S3 endpoint at its root
          bindings: {
            TEST_MIGRATIONS: migrations, PUBLIC_BASE_URL: "http://localhost", MEASURE_TRANSFER: process.env.MEASURE_TRANSFER ?? "",
            BUCKET_REGIONS: JSON.stringify({ "loc-creo": "waw3-1", "loc-creo-async": "waw3-1" }), S3_HOSTS: "127.0.0.2",
            PLANET_API_URL: planet, PLANET_TILES_URL: planet,
            EO_EDGE_ARCHIVE: "twin", ARCHIVE_STAC_URL: twin.stacUrl["earth-search"], ARCHIVE_URL_MAP: JSON.stringify(twin.urlMap),
            ARCHIVE_TWIN_URL: twin.url, AWS_ACCESS_KEY_ID: TWIN_AWS_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: TWIN_AWS_KEYS.secretAccessKey,
          },
          // CLIENT_RELAY (scripts/lib/client-relay.mjs): real HTTP client programs (GDAL, OWSLib) against the Worker
          serviceBindings: {
            SAMPLE_DATA: sampleData, PY_DECODE: pyScript("py_decode.py"), PY_S3: pyScript("py_s3.py"), PY_ZARR: pyScript("py_zarr.py"),
            CLIENT_RELAY: clientRelay, PY_S3_CLIENTS: pyScript("py_s3_clients.py"), S3_BRIDGE: s3Bridge as never,
          },
        },
      }),
    ],
    resolve: {
      // @aws-sdk/client-s3 in workerd (test/s3/sdk.test.ts): @aws-sdk/xml-builder's "browser" field picks a parser
      // built on DOMParser, which workerd lacks; its Node parser (the one `./xml-parser` names) runs anywhere
      // (aws/aws-sdk-js-v3#7375). Only xml-builder imports a module of that name.
      alias: [{ find: /^\.\/xml-parser$/, replacement: resolve("node_modules/@aws-sdk/xml-builder/dist-es/xml-parser.js") }],
    },
    test: {
      setupFiles: ["./test/helpers/apply-migrations.ts"],
      testTimeout: 30_000,
      // Many tests wait on queues, alarms and python decoders rather than on the CPU: 4 workers finish the suite
      // about 35% sooner than one per core on these 2-core machines (measured: 121 s -> 78 s on 5 folders).
      maxWorkers: 4,
      hookTimeout: 60_000,
    },
  };
});
