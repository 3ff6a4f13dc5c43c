/**
 * Upgrading a local state: a D1 database migrated up to an earlier migration, with accounts and clients in it (what an
 * earlier `npm start` left in .state), takes the later migrations. Migrations that only work on empty tables would
 * pass every other test (they all start from an empty database) and break `npm start` for existing users.
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { applyD1Migrations } from "cloudflare:test";

/** Drops every table (and the migrations log) so the migrations can be replayed from the start. */
async function emptyDatabase(): Promise<void> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  ).all<{ name: string }>();
  await env.DB.batch([
    env.DB.prepare("PRAGMA defer_foreign_keys = on"),
    ...tables.results.map((t) => env.DB.prepare(`DROP TABLE IF EXISTS "${t.name}"`)),
  ]);
}

describe("migrations on an existing local state", () => {
  it("every later migration applies over data written after 0002 (accounts, clients, items)", async () => {
    await emptyDatabase();
    const all = env.TEST_MIGRATIONS;
    const upTo = all.findIndex((m) => m.name.startsWith("0003"));
    expect(upTo).toBeGreaterThan(0);
    await applyD1Migrations(env.DB, all.slice(0, upTo));
    await env.DB.batch([
      env.DB.prepare("INSERT INTO accounts (id, name, created) VALUES ('old', 'old account', '2026-11-01T00:00:00Z')"),
      env.DB.prepare(
        "INSERT INTO oauth_clients (client_id, secret_hash, account_id, name, created) VALUES ('c1', 'x$y', 'old', 'old client', '2026-11-01T00:00:00Z')",
      ),
    ]);
    await applyD1Migrations(env.DB, all);
    const row = await env.DB.prepare("SELECT plan FROM accounts WHERE id = 'old'").first<{ plan: string }>();
    expect(row?.plan).toBe("enterprise");
    const applied = await env.DB.prepare("SELECT COUNT(*) AS n FROM d1_migrations").first<{ n: number }>();
    expect(applied?.n).toBe(all.length);
  });
});
