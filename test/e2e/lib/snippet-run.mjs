// Runs the console's snippets as a user would paste them, each in its own scratch folder inside the repository
// (so sentinelhub-js resolves from its node_modules), with the demo client's credentials in CLIENT_ID /
// CLIENT_SECRET. A client this machine lacks is a clear SKIP line, never a pass:
//  curl             bash + curl on PATH;
//  sentinelhub-py   importable (version 3.11.5) from $SHPY_PATH (default /tmp/shpy/pylib; recipe in
//                   /work/shared/docs/clients.md and docs/console.md);
//  sentinelhub-js   @sentinel-hub/sentinelhub-js resolvable from the repository (a devDependency);
//  pystac-client    importable (0.9.0, with pystac) from $PYSTAC_PATH (default /tmp/pystac/pylib; docs/console.md).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const PYLIB = process.env.SHPY_PATH ?? "/tmp/shpy/pylib";
const PYSTAC = process.env.PYSTAC_PATH ?? "/tmp/pystac/pylib";

/** Why Python module check `code` fails with PYTHONPATH `path`, or null when it passes. */
function pythonMissing(path, code, what) {
  const r = spawnSync("/usr/bin/python3", ["-c", code], {
    env: { ...process.env, PYTHONPATH: path },
    encoding: "utf8",
  });
  return r.status === 0 ? null : `${what} not importable from ${path}: ${r.stderr.trim().split("\n").at(-1)}`;
}

/** Why client `name` ("curl", "py", "js", "pystac") cannot run here, or null when it can. */
export function missing(name) {
  if (name === "curl") return spawnSync("curl", ["--version"]).status === 0 ? null : "curl is not on PATH";
  if (name === "py")
    return pythonMissing(
      PYLIB,
      "import sentinelhub; assert sentinelhub.__version__ == '3.11.5'",
      "sentinelhub-py 3.11.5",
    );
  if (name === "pystac") return pythonMissing(PYSTAC, "import pystac_client", "pystac-client");
  try {
    createRequire(join(resolve("."), "package.json")).resolve("@sentinel-hub/sentinelhub-js");
    return null;
  } catch {
    return "@sentinel-hub/sentinelhub-js is not installed (npm install)";
  }
}

/** How each client's snippet runs: its label, file name and command. */
const CLIENTS = {
  curl: { label: "curl", file: "run.sh", cmd: ["bash", ["run.sh"]] },
  py: { label: "sentinelhub-py", file: "run.py", cmd: ["/usr/bin/python3", ["run.py"]] },
  js: { label: "sentinelhub-js", file: "run.mjs", cmd: [process.execPath, ["run.mjs"]] },
  pystac: { label: "pystac-client", file: "run.py", cmd: ["/usr/bin/python3", ["run.py"]] },
};

/**
 * Runs snippet `code` of client `name` (CLIENTS) verbatim in a scratch folder with the demo `client`'s credentials;
 * {label, skip: reason} when the client is missing here, else {label, status, got (the bytes of `out`; empty when
 * none), stderr}.
 */
export function runClient(name, code, { out, client }) {
  const c = CLIENTS[name];
  const why = missing(name);
  if (why) return { label: c.label, skip: why };
  const env = {
    ...process.env,
    CLIENT_ID: client.client_id,
    CLIENT_SECRET: client.client_secret,
    PYTHONPATH: name === "pystac" ? PYSTAC : PYLIB,
    OAUTHLIB_INSECURE_TRANSPORT: "1",
  };
  const dir = mkdtempSync(join(resolve("."), ".snippet-"));
  try {
    writeFileSync(join(dir, c.file), code);
    const r = spawnSync(c.cmd[0], c.cmd[1], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
    const got = existsSync(join(dir, out)) ? readFileSync(join(dir, out)) : Buffer.alloc(0);
    return { label: c.label, status: r.status, got, stderr: (r.stderr || r.stdout || "").trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
 * Runs the request builder's curl, sentinelhub-py and sentinelhub-js snippets for request `what` (the page has run
 * it: its download is the reference; the snippets write `out`, e.g. "result.tif"); reports each through
 * `check(ok, text)`, a SKIP line for a missing client. Resolves to the names of the clients that ran.
 */
export async function runSnippets(page, { what, out, client, check }) {
  const want = await downloadBytes(page);
  const ran = [];
  for (const [name, id] of [
    ["curl", "#snippetCurl"],
    ["py", "#snippetPy"],
    ["js", "#snippetJs"],
  ]) {
    const r = runClient(name, await page.textContent(id), { out, client });
    if (r.skip) {
      console.log(`SKIP ${r.label} snippet (${what}): ${r.skip}`);
      continue;
    }
    const same = r.got.length > 0 && Buffer.compare(r.got, want) === 0;
    check(
      r.status === 0 && same,
      `${r.label} snippet (${what}), run verbatim: exit ${r.status}, ${out} ${r.got.length} bytes, console download ${want.length} bytes, identical: ${same}${r.status ? ` ${r.stderr.split("\n").slice(-2).join(" ")}` : ""}`,
    );
    ran.push(name);
  }
  return ran;
}
