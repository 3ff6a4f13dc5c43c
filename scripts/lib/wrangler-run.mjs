// Running wrangler's commands from the deploy scripts (scripts/deploy.mjs): output captured (never shown unless a
// command fails), secrets passed on stdin (never in arguments, which other users of the machine can read), and a
// dry-run mode that prints the commands acting on the Cloudflare account instead of running them.
import { spawn } from "node:child_process";
import { wrangler, wranglerEnv } from "./local.mjs";

/** wrangler's environment for these commands: no colours in the output the scripts parse. */
const env = { ...wranglerEnv, FORCE_COLOR: "0", NO_COLOR: "1" };

/**
 * Runs `wrangler <args>` and resolves to { code, out } (stdout then stderr). `input` is written to its stdin, then
 * closed (wrangler's prompts read it; `secret put` reads the secret from it when stdin is not a terminal).
 * @param {string[]} args @param {{ input?: string }} [options]
 * @returns {Promise<{ code: number, out: string }>}
 */
export function runWrangler(args, { input, extraEnv = {} } = {}) {
  return new Promise((done, fail) => {
    const [cmd, argv] = wrangler(args);
    const child = spawn(cmd, argv, { env: { ...env, ...extraEnv }, stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => err.push(b));
    child.on("error", fail);
    child.on("close", (code) =>
      done({ code: code ?? 1, out: Buffer.concat(out).toString() + Buffer.concat(err).toString() }),
    );
    child.stdin.on("error", () => {}); // wrangler may exit before reading
    child.stdin.end(input ?? "");
  });
}

/** `wrangler <args>` as a shell would show it (secrets never appear in args). */
export const shown = (args) =>
  `npx wrangler ${args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(" ")}`;

/**
 * A runner of wrangler commands for a deployment. `dryRun`: commands that act on (or read) the Cloudflare account
 * are printed with `would run:` and answer `{ code: 0, out: "" }`; local commands (`local: true`) still run.
 * `must(args)` throws an Error holding the command's output when it fails. `env`: variables added to every
 * command's environment (e.g. CLOUDFLARE_ACCOUNT_ID once the preflight chose the account), changeable later.
 * @param {{ dryRun?: boolean, log?: (line: string) => void }} options
 */
export function wranglerRunner({ dryRun = false, log = console.log } = {}) {
  /** @type {Record<string, string>} */
  const extraEnv = {};
  /** @param {string[]} args @param {{ input?: string, local?: boolean }} [o] */
  const run = async (args, o = {}) => {
    if (dryRun && !o.local) {
      log(`  would run: ${shown(args)}${o.input !== undefined ? " (value on stdin)" : ""}`);
      return { code: 0, out: "" };
    }
    return runWrangler(args, { ...o, extraEnv });
  };
  /** @param {string[]} args @param {{ input?: string, local?: boolean }} [o] */
  const must = async (args, o = {}) => {
    const r = await run(args, o);
    if (r.code !== 0) throw new Error(`${shown(args)} failed (exit ${r.code}):\n${r.out.trim()}`);
    return r.out;
  };
  return { run, must, dryRun, env: extraEnv };
}
