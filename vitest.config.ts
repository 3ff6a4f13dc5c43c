import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFile, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";

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

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // PUBLIC_BASE_URL: the origin tests send requests to (test/helpers/auth.ts BASE)
          bindings: { TEST_MIGRATIONS: migrations, PUBLIC_BASE_URL: "http://localhost" },
          serviceBindings: { SAMPLE_DATA: sampleData },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/helpers/apply-migrations.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
});
