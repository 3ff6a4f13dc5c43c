// The examples of README.md and docs/*.md run verbatim against a running server (`npm run test:docs`, also one of
// the browser checks' steps): every fenced block of `sh`, `python` or `js` runs, in document order, in a scratch
// folder that links the repository's top-level entries (so `data/...`, `npm run -s credentials` and `npx` work as
// from the repository root, and the files the examples write stay out of the clone), with the variables of
// `npm run -s credentials -- --env` and the README's `TOKEN` in its environment. A block fails on a non-zero exit
// (the shell runs with `set -eo pipefail`; the examples' curl calls use -f) or after 3 minutes.
// A block preceded by `<!-- docs-check: skip (<reason>) -->` is not run (it needs a Cloudflare account, say); a
// Python block whose imports are missing here is reported as skipped with the module's name, as the tests skip
// without their Python decoders. docs/accounts.md runs last: its examples change the demo account's limits (and
// restore them). Server: $CONSOLE_BASE (someone else's `npm start` on the state $EO_EDGE_STATE), else one started
// here. FILES=README.md,docs/tasks.md runs some. Prints one line per block; exits 1 when any failed.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkServer } from "../../scripts/lib/serve.mjs";

const ROOT = resolve(".");
const RUNNERS = { sh: "bash", python: "/usr/bin/python3", js: "node" };
const SKIP = /^<!-- docs-check: skip \((.+)\) -->$/;

/** The runnable fenced blocks of one Markdown file: { file, line, lang, code, skip }. */
export function examples(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
    const lang = open[1];
    if (RUNNERS[lang])
      out.push({
        file,
        line: i + 1,
        lang,
        code: lines.slice(i + 1, end).join("\n") + "\n",
        skip: SKIP.exec(lines[i - 1] ?? "")?.[1],
      });
    i = end;
  }
  return out;
}

/** The Python modules a block imports (top-level names) that /usr/bin/python3 cannot import. */
function missingModules(code) {
  const names = new Set();
  for (const m of code.matchAll(/^(?:import\s+([\w., ]+)|from\s+(\w+)[\w.]*\s+import)/gm)) {
    for (const n of (m[1] ?? m[2]).split(",")) names.add(n.trim().split(/[.\s]/)[0]);
  }
  return [...names].filter((n) => spawnSync(RUNNERS.python, ["-c", `import ${n}`], { stdio: "ignore" }).status !== 0);
}

/**
 * A scratch folder whose entries link to the repository's top-level entries (but .git), and a `.bin/python3` that
 * is Debian's (the one the tests use, with GDAL, rasterio and boto3), put first on the examples' PATH.
 */
function scratchRoot() {
  const dir = mkdtempSync(join(tmpdir(), "eo-edge-docs-"));
  for (const name of readdirSync(ROOT)) if (name !== ".git") symlinkSync(join(ROOT, name), join(dir, name));
  mkdirSync(join(dir, ".bin"));
  symlinkSync(RUNNERS.python, join(dir, ".bin", "python3"));
  return dir;
}

/** The environment of the examples: the credentials' variables and TOKEN. */
async function exampleEnv(server, dir) {
  const creds = spawnSync("npm", ["run", "-s", "credentials"], { encoding: "utf8" });
  if (creds.status !== 0) throw new Error(`npm run -s credentials: ${creds.stderr}`);
  const vars = Object.fromEntries(
    Object.entries(JSON.parse(creds.stdout)).map(([k, v]) => [k.toUpperCase(), String(v)]),
  );
  if (vars.BASE_URL !== server.base)
    throw new Error(`npm run -s credentials answers ${vars.BASE_URL}, the server is ${server.base}`);
  return { ...process.env, ...vars, TOKEN: server.token, PATH: `${join(dir, ".bin")}:${process.env.PATH}` };
}

const files = process.env.FILES?.split(",") ?? [
  "README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
files.sort((a, b) => Number(a.endsWith("accounts.md")) - Number(b.endsWith("accounts.md")));
const blocks = files.flatMap(examples);
process.env.EO_EDGE_STATE = resolve(process.env.EO_EDGE_STATE ?? ".state"); // the state npm run -s credentials reads
const server = await checkServer();
const dir = scratchRoot();
const counts = { passed: 0, failed: 0, skipped: 0 };
try {
  const env = await exampleEnv(server, dir);
  for (const [n, b] of blocks.entries()) {
    const at = `${b.file}:${b.line} (${b.lang})`;
    const missing = b.lang === "python" && !b.skip ? missingModules(b.code) : [];
    if (b.skip || missing.length) {
      console.log(`SKIP ${at}: ${b.skip ?? `python module ${missing.join(", ")} missing`}`);
      counts.skipped++;
      continue;
    }
    const script = join(dir, `example-${n}.${{ sh: "sh", python: "py", js: "mjs" }[b.lang]}`);
    writeFileSync(script, b.lang === "sh" ? `set -eo pipefail\n${b.code}` : b.code);
    const t = Date.now();
    const run = spawnSync(RUNNERS[b.lang], [script], { cwd: dir, env, encoding: "utf8", timeout: 180_000 });
    const ok = run.status === 0;
    console.log(`${ok ? "OK  " : "FAIL"} ${at} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    if (!ok)
      console.log(
        `${run.error?.message ?? ""}${run.stdout.slice(-1500)}${run.stderr.slice(-1500)}`.replace(/^/gm, "     "),
      );
    counts[ok ? "passed" : "failed"]++;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.stop();
}
console.log(`docs examples: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(counts.failed ? 1 : 0);
