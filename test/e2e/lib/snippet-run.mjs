// Runs the request builder's three snippets (curl, sentinelhub-py 3.11.5, sentinelhub-js) as a user would paste
// them, each in its own scratch folder inside the repository (so sentinelhub-js resolves from its node_modules),
// with the demo client's credentials in CLIENT_ID / CLIENT_SECRET, and compares the file each writes with the
// console's own download. A client this machine lacks is a clear SKIP line, never a pass:
//  curl             bash + curl on PATH;
//  sentinelhub-py   importable (version 3.11.5) from $SHPY_PATH (default /tmp/shpy/pylib; recipe in
//                   /work/shared/docs/clients.md and docs/console.md);
//  sentinelhub-js   @sentinel-hub/sentinelhub-js resolvable from the repository (a devDependency).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const PYLIB = process.env.SHPY_PATH ?? "/tmp/shpy/pylib";

/** Why client `name` cannot run here, or null when it can. */
function missing(name) {
  if (name === "curl") {
    const r = spawnSync("curl", ["--version"], { encoding: "utf8" });
    return r.status === 0 ? null : "curl is not on PATH";
  }
  if (name === "py") {
    const r = spawnSync("/usr/bin/python3", ["-c", "import sentinelhub; assert sentinelhub.__version__ == '3.11.5'"], {
      env: { ...process.env, PYTHONPATH: PYLIB },
      encoding: "utf8",
    });
    return r.status === 0
      ? null
      : `sentinelhub-py 3.11.5 not importable from ${PYLIB}: ${r.stderr.trim().split("\n").at(-1)}`;
  }
  try {
    createRequire(join(resolve("."), "package.json")).resolve("@sentinel-hub/sentinelhub-js");
    return null;
  } catch {
    return "@sentinel-hub/sentinelhub-js is not installed (npm install)";
  }
}

const CLIENTS = [
  { name: "curl", id: "#snippetCurl", file: "run.sh", cmd: () => ["bash", ["run.sh"]] },
  {
    name: "py",
    label: "sentinelhub-py",
    id: "#snippetPy",
    file: "run.py",
    cmd: () => ["/usr/bin/python3", ["run.py"]],
  },
  {
    name: "js",
    label: "sentinelhub-js",
    id: "#snippetJs",
    file: "run.mjs",
    cmd: () => [process.execPath, ["run.mjs"]],
  },
];

/** The bytes of the console's current download (#download's object URL), read in the page. */
export async function downloadBytes(page) {
  const b64 = await page.evaluate(async () => {
    const b = new Uint8Array(await (await fetch(document.querySelector("#download").href)).arrayBuffer());
    let text = ""; // in slices: a spread of a large file exceeds the call stack
    for (let i = 0; i < b.length; i += 0x8000) text += String.fromCharCode(...b.subarray(i, i + 0x8000));
    return btoa(text);
  });
  return Buffer.from(b64, "base64");
}

/**
 * Runs the page's three snippets for request `what` (the page has run it: its download is the reference; the
 * snippets write `out`, e.g. "result.tif"); reports each through `check(ok, text)`; SKIP lines for missing clients.
 * `client` = the demo client {client_id, client_secret}. Resolves to the names of the clients that ran.
 */
export async function runSnippets(page, { what, out, client, check }) {
  const want = await downloadBytes(page);
  const env = {
    ...process.env,
    CLIENT_ID: client.client_id,
    CLIENT_SECRET: client.client_secret,
    PYTHONPATH: PYLIB,
    OAUTHLIB_INSECURE_TRANSPORT: "1",
  };
  const ran = [];
  for (const c of CLIENTS) {
    const why = missing(c.name);
    const label = c.label ?? c.name;
    if (why) {
      console.log(`SKIP ${label} snippet (${what}): ${why}`);
      continue;
    }
    const dir = mkdtempSync(join(resolve("."), ".snippet-"));
    try {
      writeFileSync(join(dir, c.file), await page.textContent(c.id));
      const [cmd, args] = c.cmd();
      const r = spawnSync(cmd, args, { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
      const got = existsSync(join(dir, out)) ? readFileSync(join(dir, out)) : Buffer.alloc(0);
      const same = got.length > 0 && Buffer.compare(got, want) === 0;
      check(
        r.status === 0 && same,
        `${label} snippet (${what}), run verbatim: exit ${r.status}, ${out} ${got.length} bytes, console download ${want.length} bytes, identical: ${same}${r.status ? ` ${(r.stderr || r.stdout).trim().split("\n").slice(-2).join(" ")}` : ""}`,
      );
      ran.push(c.name);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return ran;
}
