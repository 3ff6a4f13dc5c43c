// Preparing a local state folder (D1 migrations, sample data, demo client) for `npm start` and the benches:
// scripts/seed.ts does the work in one process; this module decides whether it is needed. A state seeded from
// the same inputs (the fingerprint below, kept in <state>/seed.json by the seed) is left alone, so a restart
// costs no migration check, no seed and no wrangler process before `wrangler dev`.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { wranglerEnv } from "./local.mjs";

/**
 * Everything the seeded state is made from: the migrations, the sample data, the Zarr sample store, the seed
 * scripts, and src/ (the seed runs the Worker's own ingestion and storage code, whose output lands in D1).
 */
const INPUTS = [
  "migrations",
  "data",
  "test/fixtures/zarr/westflanders.zarr",
  "src",
  "scripts/seed.ts",
  "scripts/seed-byoc.ts",
  "scripts/seed-zarr.ts",
  "scripts/seed-files.ts",
  "scripts/seed-s3-keys.ts",
  "scripts/lib/pool.mjs",
  "scripts/lib/regions.mjs",
  "wrangler.toml",
];

/** Files under path (a file or a folder, relative to the repository root), sorted; none when it does not exist. */
function files(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return stat ? [path] : [];
  return readdirSync(path, { withFileTypes: true })
    .flatMap((e) => files(join(path, e.name)))
    .sort();
}

/**
 * SHA-256 (hex) of the seed's inputs (names and contents of every file of INPUTS) and its options (none today):
 * equal fingerprints, equal seeded state. About 0.1 s for ~25 MB.
 */
export function seedFingerprint(options = []) {
  const h = createHash("sha256");
  h.update(JSON.stringify(options));
  for (const f of INPUTS.flatMap(files)) h.update(`\0${f}\0`).update(readFileSync(f));
  return h.digest("hex");
}

/** <state>/seed.json: `{ fingerprint, seeded }` of the last complete seed (written by scripts/seed.ts). */
export const seedMarker = (state) => join(state, "seed.json");

/**
 * True when state was seeded completely from the current inputs with `options`, its demo client file and
 * wrangler's storage folder (v3/) are there, and D1 holds the demo S3 key of <state>/demo-s3-keys.json (which
 * $S3_ACCESS_KEY_ID may have changed since).
 */
export function seededUpToDate(state, options = []) {
  try {
    const marker = JSON.parse(readFileSync(seedMarker(state), "utf8"));
    const s3 = JSON.parse(readFileSync(join(state, "demo-s3-keys.json"), "utf8"));
    return (
      existsSync(join(state, "demo-client.json")) &&
      existsSync(join(state, "v3")) &&
      marker.fingerprint === seedFingerprint(options) &&
      marker.s3AccessKeyId === s3.accessKeyId
    );
  } catch {
    return false;
  }
}

/**
 * Runs scripts/seed.ts on state (migrations, sample data, demo client; see there) with `options`, its output kept
 * and shown only when it fails. Returns the seed's last output line (its summary).
 * @throws Error holding the seed's whole output when it fails
 */
export function runSeed(state, options = []) {
  // tsx as a loader of this Node (not `npx tsx`: no npm and no tsx CLI process before the seed)
  const args = ["--import", "tsx", "--import", "./scripts/lib/wasm-register.mjs", "scripts/seed.ts", state, ...options];
  const r = spawnSync(process.execPath, args, { encoding: "utf8", env: wranglerEnv, maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0)
    throw new Error(`scripts/seed.ts ${state} failed (exit ${r.status ?? r.signal ?? r.error?.message}):\n${out}`);
  return out.trim().split("\n").at(-1) ?? "";
}

/**
 * Makes state ready to serve (migrations applied, sample data and demo client seeded), seeding only when it is not
 * up to date ({@link seededUpToDate}); `announce()` is called just before a seed. Returns { seeded: false } or
 * { seeded: true, summary }. @throws Error (see {@link runSeed})
 */
export function prepareState(state, options = [], announce = () => {}) {
  if (seededUpToDate(state, options)) return { seeded: false };
  announce();
  return { seeded: true, summary: runSeed(state, options) };
}

/** Marks state as not seeded, so that the next prepareState seeds it again (e.g. its demo client is gone from D1). */
export function forgetSeed(state) {
  rmSync(seedMarker(state), { force: true });
}
