/**
 * The pure parts of `npm run deploy` (scripts/lib/deploy-config.ts): what wrangler.toml asks to exist (dead-letter
 * queues and every bucket included), the generated configuration (ids, names, paths, vars, custom domains per
 * location), and the readers of wrangler's outputs, fed with output in wrangler 4's formats (`d1 list --json`: the
 * API's database objects; `r2 bucket list`: `name:` / `creation_date:` blocks; `queues list`: a cli-table3 table).
 * The whole path runs for real in `.ci/run` (`npm run deploy -- --local` and `-- --dry-run`).
 */
import { describe, expect, it } from "vitest";
import {
  configProblems,
  deployConfig,
  judgeStartup,
  locationConfig,
  parseD1List,
  parseQueuesList,
  parseR2BucketList,
  parseSecretList,
  resourcesOf,
  startupCpuMs,
} from "../../scripts/lib/deploy-config";

/** wrangler.toml as experimental_readRawConfig reads it (the parts the deploy uses). */
const RAW = {
  name: "eo-edge",
  main: "src/index.ts",
  vars: { LOCATION_ID: "local", PUBLIC_BASE_URL: "http://127.0.0.1:8787" },
  d1_databases: [
    {
      binding: "DB",
      database_name: "eo-edge",
      database_id: "00000000-0000-0000-0000-000000000000",
      migrations_dir: "migrations",
    },
  ],
  r2_buckets: [
    { binding: "DATA", bucket_name: "eo-edge-data" },
    { binding: "BUCKETS", bucket_name: "eo-edge-buckets" },
  ],
  assets: { directory: "./web" },
  queues: {
    producers: [{ binding: "TASK_QUEUE", queue: "eo-edge-tasks" }],
    consumers: [
      { queue: "eo-edge-tasks", max_retries: 3, dead_letter_queue: "eo-edge-tasks-dlq" },
      { queue: "eo-edge-tasks-dlq", max_retries: 3 },
    ],
  },
};

describe("resources and configuration", () => {
  it("lists every database, bucket and queue, the dead-letter queue included, renamed for another deployment", () => {
    expect(resourcesOf(RAW, "eo-edge")).toEqual({
      databases: [{ binding: "DB", name: "eo-edge" }],
      buckets: ["eo-edge-data", "eo-edge-buckets"],
      queues: ["eo-edge-tasks", "eo-edge-tasks-dlq"],
    });
    expect(resourcesOf(RAW, "eo-staging")).toEqual({
      databases: [{ binding: "DB", name: "eo-staging" }],
      buckets: ["eo-staging-data", "eo-staging-buckets"],
      queues: ["eo-staging-tasks", "eo-staging-tasks-dlq"],
    });
  });

  it("one location on its workers.dev URL: no LOCATIONS, no custom domain", () => {
    expect(locationConfig({ location: "aws-eu-central-1", url: "https://eo-edge.acme.workers.dev" })).toEqual({
      vars: { PUBLIC_BASE_URL: "https://eo-edge.acme.workers.dev", LOCATION_ID: "aws-eu-central-1", S3_HOSTS: "" },
      routes: [],
    });
  });

  it("locations served here get custom domains and LOCATIONS entries; others only entries; S3 its own host", () => {
    const c = locationConfig({
      location: "aws-eu-central-1",
      url: "https://eo.example.org",
      domain: "eo.example.org",
      domains: { creo: "creo.eo.example.org" },
      urls: { "aws-us-west-2": "https://us.example.net/" },
      s3Domain: "s3.eo.example.org",
    });
    expect(JSON.parse(c.vars.LOCATIONS!)).toEqual([
      { id: "aws-eu-central-1", url: "https://eo.example.org" },
      { id: "creo", url: "https://creo.eo.example.org" },
      { id: "aws-us-west-2", url: "https://us.example.net" },
    ]);
    expect(c.vars).toMatchObject({
      PUBLIC_BASE_URL: "https://eo.example.org",
      LOCATION_ID: "aws-eu-central-1",
      S3_HOSTS: "s3.eo.example.org",
    });
    expect(c.routes).toEqual([
      { pattern: "eo.example.org", custom_domain: true },
      { pattern: "creo.eo.example.org", custom_domain: true },
      { pattern: "s3.eo.example.org", custom_domain: true },
    ]);
  });

  it("the generated configuration: database id, names, paths from its folder, vars and routes; wrangler.toml untouched", () => {
    const before = JSON.stringify(RAW);
    const routes = [{ pattern: "eo.example.org", custom_domain: true }];
    const c = deployConfig(RAW, {
      root: "../..",
      name: "eo-staging",
      databaseIds: { "eo-staging": "4f1c-uuid" },
      vars: { PUBLIC_BASE_URL: "https://eo.example.org", LOCATION_ID: "creo" },
      routes,
    });
    expect(c).toMatchObject({
      name: "eo-staging",
      main: "../../src/index.ts",
      assets: { directory: "../../web" },
      vars: { PUBLIC_BASE_URL: "https://eo.example.org", LOCATION_ID: "creo" },
      d1_databases: [
        { binding: "DB", database_name: "eo-staging", database_id: "4f1c-uuid", migrations_dir: "../../migrations" },
      ],
      r2_buckets: [
        { binding: "DATA", bucket_name: "eo-staging-data" },
        { binding: "BUCKETS", bucket_name: "eo-staging-buckets" },
      ],
      queues: {
        producers: [{ binding: "TASK_QUEUE", queue: "eo-staging-tasks" }],
        consumers: [
          { queue: "eo-staging-tasks", dead_letter_queue: "eo-staging-tasks-dlq" },
          { queue: "eo-staging-tasks-dlq" },
        ],
      },
      routes,
    });
    expect(JSON.stringify(RAW)).toBe(before);
    expect("routes" in deployConfig(RAW, { root: ".", name: "eo-edge", databaseIds: {}, vars: {}, routes: [] })).toBe(
      false,
    );
  });
});

describe("wrangler's outputs", () => {
  it("d1 list --json: names and uuids, warnings around the JSON tolerated, no JSON refused", () => {
    const json = JSON.stringify(
      [
        {
          uuid: "a1b2c3d4-0000-4000-8000-000000000001",
          name: "eo-edge",
          created_at: "2026-11-27T05:00:00.000Z",
          version: "production",
          num_tables: 14,
          file_size: 323584,
          jurisdiction: null,
        },
        {
          uuid: "a1b2c3d4-0000-4000-8000-000000000002",
          name: "other",
          created_at: "2026-10-01T00:00:00.000Z",
          version: "production",
          num_tables: 0,
          file_size: 12288,
        },
      ],
      null,
      2,
    );
    const expected = [
      { name: "eo-edge", id: "a1b2c3d4-0000-4000-8000-000000000001" },
      { name: "other", id: "a1b2c3d4-0000-4000-8000-000000000002" },
    ];
    expect(parseD1List(json)).toEqual(expected);
    expect(parseD1List(`▲ [WARNING] Processing wrangler.json configuration:\n  - a [note] here\n\n${json}\n`)).toEqual(
      expected,
    );
    expect(parseD1List(JSON.stringify({ result: JSON.parse(json) }))).toEqual(expected);
    expect(parseD1List("[]")).toEqual([]);
    expect(() => parseD1List("✘ [ERROR] Authentication error [code: 10000]")).toThrow(/no list of databases/);
  });

  it("r2 bucket list: the name of every block", () => {
    const out =
      "Listing buckets...\nname:           eo-edge-buckets\ncreation_date:  2026-11-27T05:00:01.000Z\n\nname:           eo-edge-data\ncreation_date:  2026-11-27T05:00:00.000Z\n";
    expect(parseR2BucketList(out)).toEqual(["eo-edge-buckets", "eo-edge-data"]);
    expect(parseR2BucketList("Listing buckets...\n")).toEqual([]);
  });

  it("queues list: the name column of the table (box or ASCII borders), none for an empty table", () => {
    const box = [
      "┌──────────────────────────────────┬───────────────────┬─────────────────────────────┬─────────────────────────────┬───────────┬───────────┐",
      "│ id                               │ name              │ created_on                  │ modified_on                 │ producers │ consumers │",
      "├──────────────────────────────────┼───────────────────┼─────────────────────────────┼─────────────────────────────┼───────────┼───────────┤",
      "│ 0f6f2b4a9c3e4b1a8d7c6e5f4a3b2c1d │ eo-edge-tasks     │ 2026-11-27T05:00:00.000000Z │ 2026-11-27T05:00:00.000000Z │ 1         │ 1         │",
      "├──────────────────────────────────┼───────────────────┼─────────────────────────────┼─────────────────────────────┼───────────┼───────────┤",
      "│ 1a2b3c4d5e6f4a1b8c9d0e1f2a3b4c5d │ eo-edge-tasks-dlq │ 2026-11-27T05:00:01.000000Z │ 2026-11-27T05:00:01.000000Z │ 0         │ 1         │",
      "└──────────────────────────────────┴───────────────────┴─────────────────────────────┴─────────────────────────────┴───────────┴───────────┘",
    ].join("\n");
    expect(parseQueuesList(box)).toEqual(["eo-edge-tasks", "eo-edge-tasks-dlq"]);
    expect(parseQueuesList("| id | name | created_on |\n|----|------|-----|\n| 1 | q1 | x |")).toEqual(["q1"]);
    expect(parseQueuesList("┌┐\n└┘")).toEqual([]);
  });

  it("secret list --format json", () => {
    expect(
      parseSecretList(
        '[\n  {\n    "name": "ADMIN_TOKEN",\n    "type": "secret_text"\n  },\n  {\n    "name": "JWT_PRIVATE_JWK",\n    "type": "secret_text"\n  }\n]',
      ),
    ).toEqual(["ADMIN_TOKEN", "JWT_PRIVATE_JWK"]);
    expect(parseSecretList("")).toEqual([]);
  });

  it("startup CPU of a .cpuprofile: every sample outside (idle), garbage collection included", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: "(root)" } },
        { id: 2, callFrame: { functionName: "(idle)" } },
        { id: 3, callFrame: { functionName: "(program)" } },
        { id: 4, callFrame: { functionName: "(garbage collector)" } },
        { id: 5, callFrame: { functionName: "buildApi" } },
      ],
      samples: [2, 5, 5, 3, 4, 2],
      timeDeltas: [100000, 12000, 8000, 1500, 2500, 50000],
    };
    expect(startupCpuMs(profile)).toBe(24);
  });

  it("startup judgement: a loaded machine's inflation (calibration profiled over its CPU time) is divided out, never multiplied in", () => {
    // the same bundle profiled 550 ms and 2,128 ms on loaded machines
    expect(judgeStartup(550, 400, 100)).toBeCloseTo(137.5, 9); // calibration inflated 4x
    expect(judgeStartup(2128, 1600, 100)).toBeCloseTo(133, 9); // 16x
    expect(judgeStartup(300, 80, 100)).toBe(300); // quieter than its CPU time: taken as profiled
    expect(judgeStartup(450, 100, 100)).toBe(450); // a real regression on a quiet machine still fails the 400 ms budget
  });
});

describe("configProblems: wrangler.toml safe to deploy", () => {
  const consumers = (extra: ({ queue: string } & Record<string, unknown>)[]) => ({
    ...RAW,
    queues: { ...RAW.queues, consumers: extra },
  });
  it("needs [observability] enabled and a bounded max_concurrency on every consumer", () => {
    const ok = {
      ...consumers([
        { queue: "eo-edge-tasks", max_concurrency: 16 },
        { queue: "eo-edge-tasks-dlq", max_concurrency: 2 },
      ]),
      observability: { enabled: true },
    };
    expect(configProblems(ok)).toEqual([]);
    const bad = {
      ...consumers([
        { queue: "eo-edge-tasks" },
        { queue: "eo-edge-ingest", max_concurrency: 250 },
        { queue: "x", max_concurrency: 1.5 },
      ]),
      observability: { enabled: false },
    };
    expect(configProblems(bad)).toEqual([
      "[observability] enabled = true is missing (Workers Logs keep the edge's errors)",
      "queue consumer eo-edge-tasks has no bounded max_concurrency (unset: autoscaled to 250); give it 1..249 with the reason beside it",
      "queue consumer eo-edge-ingest has no bounded max_concurrency (250); give it 1..249 with the reason beside it",
      "queue consumer x has no bounded max_concurrency (1.5); give it 1..249 with the reason beside it",
    ]);
  });
});
