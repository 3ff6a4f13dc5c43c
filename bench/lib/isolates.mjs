// The JS memory of every isolate of a `wrangler dev` server, through workerd's own inspector (not wrangler's proxy,
// which shows the Worker only): the Worker Loader's evalscript sandboxes ("LOADER:evalscript:...") included.
// Linux only (/proc). Used by bench/bench-memory.mjs.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { groupPids } from "../../scripts/lib/bench.mjs";

/** TCP ports process pid listens on (IPv4): its socket inodes matched against /proc/<pid>/net/tcp's LISTEN rows. */
function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* fd closed */
    }
  }
  const ports = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === "0A" && inodes.has(f[9])) ports.push(parseInt(f[1].split(":")[1], 16));
  }
  return ports;
}

/** Heap used + ArrayBuffer backing stores (MiB) of the isolate behind DevTools websocket url; null on no answer. */
async function isolateMiB(url) {
  const ws = new WebSocket(url);
  try {
    await new Promise((ok, fail) => ((ws.onopen = ok), (ws.onerror = fail)));
    const answer = new Promise((ok) => (ws.onmessage = (e) => ok(JSON.parse(e.data).result)));
    ws.send(JSON.stringify({ id: 1, method: "Runtime.getHeapUsage" }));
    const u = await Promise.race([answer, new Promise((ok) => setTimeout(() => ok(null), 3000))]);
    return u ? (u.usedSize + (u.backingStorageSize ?? 0)) / 1048576 : null;
  } catch {
    return null;
  } finally {
    ws.close();
  }
}

/**
 * JS memory (MiB, garbage included) of the isolates of the server in process group pgid whose inspector id starts
 * with `prefix` (default: the evalscript sandboxes): { count, mib }.
 */
export async function isolatesMiB(pgid, prefix = "LOADER:evalscript:") {
  let count = 0;
  let mib = 0;
  for (const pid of groupPids(pgid, (p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("--inspector-addr"))) {
    for (const port of listeningPorts(pid)) {
      let targets;
      try {
        targets = await (await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(1000) })).json();
      } catch {
        continue;
      }
      if (!Array.isArray(targets)) continue;
      for (const t of targets.filter((t) => t.id?.startsWith(prefix))) {
        const m = await isolateMiB(t.webSocketDebuggerUrl);
        if (m === null) continue;
        count++;
        mib += m;
      }
    }
  }
  return { count, mib };
}
