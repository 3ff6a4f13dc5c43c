import { configDefaults, defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFile, readdir } from "node:fs/promises";
import http from "node:http";
import { join, resolve } from "node:path";
import { clientRelay } from "./test/services/client-relay.mjs";
import { pyService } from "./test/services/py-service.mjs";
import { startPlanetStub } from "./test/dataimport/planet-stub.mjs";
import { startArchiveTwin, TWIN_AWS_KEYS } from "./scripts/archive-twin.mjs";

const DATA = resolve("data");

/**
 * The pool's WebSocket to each workerd runtime (opened by miniflare's fetch with the `ws` client, which offers
 * permessage-deflate) carries every module the runtime loads, some 19 MB per runtime, deflated on loopback for
 * nothing: the upgrade request of that socket (the one with vitest-plugin's `MF-Vitest-Worker-Data` header) is
 * sent without the offer, so the socket is not compressed. 9 runtimes of a one-request file: vitest's process
 * 20.9 -> 14.1 s of CPU, workerd's unchanged (about 0.7 s of CPU per runtime; the suite starts some 45).
 */
function uncompressedPoolSockets(): void {
  const request = http.request;
  const patched = (...args: Parameters<typeof http.request>): http.ClientRequest => {
    const headers = (args[0] as http.RequestOptions | undefined)?.headers as Record<string, unknown> | undefined;
    if (headers && typeof headers === "object" && "mf-vitest-worker-data" in headers)
      delete headers["Sec-WebSocket-Extensions"];
    return request(...args);
  };
  (http as { request: unknown }).request = patched;
}
uncompressedPoolSockets();

/**
 * Which files vitest runs: EO_EDGE_VITEST=fast (`npm run test:fast`) the inner loop, the engine and the layers
 * below the API areas (FAST) without the files that call Python services (PY_DECODE, PY_S3, PY_ZARR,
 * CLIENT_RELAY: PYTHON_FILES); EO_EDGE_VITEST=bench (`npm run bench:transfer`) the benchmarks that run in workerd
 * (bench/*.workerd.ts), which the suite never runs; else the whole suite (test/**). `.ci/run` prints the slowest
 * files of each full run, the figures to keep FAST under 2 minutes by.
 */
const MODE = process.env.EO_EDGE_VITEST ?? "";
const FAST = [
  "test/raster/**/*.test.ts",
  "test/pipeline/**/*.test.ts",
  "test/storage/**/*.test.ts",
  "test/storage.test.ts",
  "test/http/**/*.test.ts",
  "test/vector/**/*.test.ts",
  "test/auth/**/*.test.ts",
  "test/openapi/**/*.test.ts",
  "test/buckets/**/*.test.ts",
  "test/locations/**/*.test.ts",
  "test/accounts/**/*.test.ts",
];
const PYTHON_FILES = ["test/raster/encode/{archive,cog,jpeg,png,tiff-clients,tiffstrips}.test.ts"];
const INCLUDE = { bench: ["bench/**/*.workerd.ts"], fast: FAST }[MODE] ?? ["test/**/*.test.ts"];
const EXCLUDE = [...configDefaults.exclude, ...(MODE === "fast" ? PYTHON_FILES : [])];
/**
 * Files of FAST that need a workerd runtime of their own (project "fresh"): they assert state an earlier file of the
 * same runtime would have left in the Worker's modules or storage (d1key: the isolate's key set, which it must read
 * from D1 cold; recycle: the sandbox isolates' generations and pool, which it fills from empty; storage: the sample
 * seeding's counts; admission: the isolate's memory admission, which it fills from none in flight). Each failed when sharing a runtime. Files of the API areas failed more often in shared
 * runtimes, depending on which file ran before (seeded scenes and collections, catalog page counts, capabilities
 * extents: 6 of 43 files in one order, 3 more in another), so they keep a runtime each.
 */
const FRESH_RUNTIME = [
  "test/auth/d1key.test.ts",
  "test/raster/evalscript/recycle.test.ts",
  "test/storage.test.ts",
  "test/pipeline/admission.test.ts",
];
/**
 * The API areas' files (every test file outside FAST) that keep a runtime each (project "isolated"), the rest
 * sharing runtimes (project "shared-api"). Two kinds: the files that put items of their own into the built-in
 * collections (test/catalog's fixture and derived items, process/bands and antimeridian, dataimport/subscriptions),
 * so that the shared runtimes hold no item but the sample scenes; and the files that failed in shared runtimes
 * (two runs of the API files): they read what the whole storage holds (the sample scenes' extents and dates, the
 * scenes a mosaic or a fusion request finds, the archive twin answering where no local item is), or they timed
 * out or lost work in a runtime other files had loaded (S3 listings, Zarr ingestion, the 19-date budget, the
 * 4000 x 4000 async render).
 */
const API_ISOLATED = [
  "test/catalog/*.test.ts",
  "test/process/{antimeridian,bands,fusion,gapfill}.test.ts",
  "test/dataimport/subscriptions.test.ts",
  "test/admin/samples.test.ts",
  "test/async/pieces.test.ts",
  "test/archive/{catalog,process,sentinel1,stream}.test.ts",
  "test/budget/{counts,wmts-pan}.test.ts",
  "test/s3/endpoint.test.ts",
  "test/tenancy/s3.test.ts",
  "test/wms/{clients,wms}.test.ts",
  "test/zarr/{collections,hostile}.test.ts",
];
/**
 * Pools: the FAST files run with `isolate: false`, several files one after the other in one workerd runtime (its
 * modules loaded once, its storage shared: they make their own accounts, buckets and records), since starting a
 * runtime and loading the Worker's modules for each file took 82% of their time (test:fast, 65 files, loaded
 * machine: 2205 s -> 226 s, CPU 367 s -> 82 s). The API areas' files share runtimes of their own the same way
 * (project "shared-api": its 84 files took 572 s of CPU and 572 s with a runtime each, 126 s and 127 s shared,
 * load 4-9), but for API_ISOLATED.
 */
const PROJECTS =
  MODE === "bench"
    ? undefined
    : [
        {
          name: "shared",
          include: FAST,
          exclude: [...EXCLUDE, ...FRESH_RUNTIME],
          isolate: false,
        },
        {
          name: "fresh",
          include: FRESH_RUNTIME,
          exclude: EXCLUDE,
          isolate: true,
        },
        ...(MODE === "fast"
          ? []
          : [
              { name: "shared-api", include: INCLUDE, exclude: [...EXCLUDE, ...FAST, ...API_ISOLATED], isolate: false },
              { name: "isolated", include: API_ISOLATED, exclude: EXCLUDE, isolate: true },
            ]),
      ];
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

/**
 * The Python services (test/services/py-service.mjs: long-lived python3 processes running the script's handle per
 * request): POST http://py/ with the script's JSON; answers its JSON, or 503 with the reason when python3 or one of
 * its modules is missing (tests then skip), 500 with the traceback for another failure. Services:
 * - PY_DECODE (test/services/py_decode.py): decodes test outputs with the decoders real clients use (Pillow, tifffile
 *   without imagecodecs, GDAL, Python's tarfile and email);
 * - PY_S3 (test/services/py_s3.py): S3 requests signed and answers parsed by botocore (tests of src/s3);
 * - PY_ZARR (test/services/py_zarr.py): Zarr v2 stores read by zarr-python (tests of batch Zarr output).
 * Client programs that talk HTTP (GDAL, OWSLib, rasterio: test/services/py_s3_clients.py) run through CLIENT_RELAY instead.
 */
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // Planet's public APIs as a local HTTP server (test/dataimport/planet-stub.mjs), for the Planet adapter's tests
  const planet = await startPlanetStub();
  // The archive twin (scripts/archive-twin.mjs): the public archives' STAC APIs and buckets over data/archive/,
  // on a free loopback port; the Worker reads it through the archive vars, the tests reach its hooks at ARCHIVE_TWIN_URL
  const twin = await startArchiveTwin();
  // one plugin per project (a plugin inherited by `extends` from the root config is applied twice)
  const plugin = () =>
    cloudflareTest({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // PUBLIC_BASE_URL: the origin tests send requests to (test/helpers/auth.ts BASE); BUCKET_REGIONS: the buckets
        // test/locations puts in a CREODIAS region, so their BYOC collections are hosted in location creo;
        // S3_HOSTS: 127.0.0.2 on any port (the relay's S3 address; test/s3/address.test.ts) serves S3 at its root
        bindings: {
          TEST_MIGRATIONS: migrations,
          PUBLIC_BASE_URL: "http://localhost",
          TRANSFER_REPS: process.env.TRANSFER_REPS ?? "",
          BUCKET_REGIONS: JSON.stringify({ "loc-creo": "waw3-1", "loc-creo-async": "waw3-1" }),
          S3_HOSTS: "127.0.0.2",
          PLANET_API_URL: planet,
          PLANET_TILES_URL: planet,
          EO_EDGE_ARCHIVE: "twin",
          ARCHIVE_STAC_URL: twin.stacUrl["earth-search"],
          ARCHIVE_URL_MAP: JSON.stringify(twin.urlMap),
          ARCHIVE_TWIN_URL: twin.url,
          AWS_ACCESS_KEY_ID: TWIN_AWS_KEYS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: TWIN_AWS_KEYS.secretAccessKey,
        },
        // CLIENT_RELAY (test/services/client-relay.mjs): real HTTP client programs (GDAL, OWSLib, rasterio) against the Worker,
        // the one way a program reaches the Worker under test (its address: 127.0.0.1, or 127.0.0.2 for S3 at the root)
        serviceBindings: {
          SAMPLE_DATA: sampleData,
          PY_DECODE: pyService("py_decode.py"),
          PY_S3: pyService("py_s3.py"),
          PY_ZARR: pyService("py_zarr.py"),
          CLIENT_RELAY: clientRelay,
        },
      },
    });
  const resolveOptions = {
    // @aws-sdk/client-s3 in workerd (test/s3/sdk.test.ts): @aws-sdk/xml-builder's "browser" field picks a parser
    // built on DOMParser, which workerd lacks; its Node parser (the one `./xml-parser` names) runs anywhere
    // (aws/aws-sdk-js-v3#7375). Only xml-builder imports a module of that name.
    alias: [
      { find: /^\.\/xml-parser$/, replacement: resolve("node_modules/@aws-sdk/xml-builder/dist-es/xml-parser.js") },
    ],
  };
  const testOptions = { setupFiles: ["./test/helpers/apply-migrations.ts"], testTimeout: 30_000, hookTimeout: 60_000 };
  // Many tests wait on queues, alarms and python decoders rather than on the CPU: 4 workers finish the suite
  // about 35% sooner than one per core on these 2-core machines (measured: 121 s -> 78 s on 5 folders).
  const maxWorkers = 4;
  if (!PROJECTS)
    return {
      plugins: [plugin()],
      resolve: resolveOptions,
      test: { include: INCLUDE, exclude: EXCLUDE, ...testOptions, maxWorkers },
    };
  return {
    test: {
      maxWorkers,
      projects: PROJECTS.map((test) => ({
        plugins: [plugin()],
        resolve: resolveOptions,
        test: { ...testOptions, ...test },
      })),
    },
  };
});
