// A console run timed against the same request sent by curl, by Node's fetch and by a bare fetch in the page (the
// browser checks' figure for the console's target "a run within 1.2x of the same request by curl"; reported, not
// asserted: timings on a shared machine are noisy). Each side is timed from the request's start to the image being
// available:
//  - console: in the page, from the click on Run to the result decoded and on the map (runner.js's mark run:drawn;
//    the run's end, its status written and the file offered, is reported too), without the driver's round trips;
//  - curl: its own %{time_total} (connect, send, wait, read the bytes; not its process start), the body from a file;
//  - Node: fetch, from the call to the last byte read (a kept-alive connection, as the browser's);
//  - browser: fetch in the page and createImageBitmap of the body, no console code (what no console can beat).
// The same request body (the builder's own), the same server; the four rotate their order in each round (no side
// always first after a pause) and the figures are medians of ROUNDS rounds after one warm-up round of each. The
// console's own time (click to the request sent, plus last byte to the image on the map) is reported apart: on a
// loaded machine the server's time swamps the ratio, not that figure.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const ROUNDS = 15;
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

/**
 * One run of the builder in `page` (its request ready to run), timed in the page: resolves to {ms (click to the
 * image on the map), end (click to the run's end), stages} where stages are the run's stages in ms (runner.js's
 * performance marks and the request's resource timing): ui (click to the request sent), wait (sent to the answer's
 * first byte: the server), read (first to last byte), body (last byte to the body in hand), draw (body to the image
 * on the map) and rest (to the run's end: status, file offered).
 */
function consoleRun(page) {
  return page.evaluate(
    () =>
      new Promise((done) => {
        delete document.body.dataset.runEnded;
        performance.clearMarks();
        performance.clearResourceTimings();
        const t0 = performance.now();
        new MutationObserver((_, o) => {
          if (!document.body.dataset.runEnded) return;
          o.disconnect();
          const end = performance.now();
          const mark = (name) => performance.getEntriesByName(name, "mark")[0]?.startTime ?? Number.NaN;
          const r = performance.getEntriesByType("resource").findLast((e) => e.name.endsWith("/api/v1/process"));
          done({
            ms: mark("run:drawn") - t0,
            end: end - t0,
            stages: {
              ui: r.requestStart - t0,
              wait: r.responseStart - r.requestStart,
              read: r.responseEnd - r.responseStart,
              body: mark("run:body") - r.responseEnd,
              draw: mark("run:drawn") - mark("run:body"),
              rest: end - mark("run:drawn"),
            },
          });
        }).observe(document.body, { attributes: true });
        document.getElementById("run").click();
      }),
  );
}

/**
 * Times the builder's run in `page` (set up to run, and warm) against the same request by curl and by Node's
 * fetch at `base` with `token`; resolves to the INFO line (medians, ratios, the console's stages).
 */
export async function timeConsoleRun(page, base, token) {
  const body = JSON.stringify(await page.evaluate(() => window.eoConsole.request().body));
  const dir = mkdtempSync(join(tmpdir(), "eo-timing-"));
  try {
    writeFileSync(join(dir, "body.json"), body);
    // the token in a header file, not on the command line
    writeFileSync(join(dir, "headers"), `authorization: Bearer ${token}\ncontent-type: application/json\n`);
    const curlArgs = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H", `@${join(dir, "headers")}`];
    const curl = async () => {
      const args = [...curlArgs, "--data-binary", `@${join(dir, "body.json")}`, `${base}/api/v1/process`];
      const { stdout } = await promisify(execFile)("curl", args);
      const [status, seconds] = stdout.split(" ");
      if (status !== "200") throw new Error(`curl: HTTP ${status}`);
      return Number(seconds) * 1000;
    };
    const node = async () => {
      const t = performance.now();
      const r = await fetch(`${base}/api/v1/process`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`fetch: HTTP ${r.status}`);
      return performance.now() - t;
    };
    // the browser's floor: the same request by a bare fetch in the page, its body decoded (no console code)
    const browser = () =>
      page.evaluate(async (text) => {
        const t = performance.now();
        const headers = { authorization: `Bearer ${sessionStorage.getItem("eo-edge-token")}` };
        headers["content-type"] = "application/json";
        const r = await fetch("/api/v1/process", { method: "POST", headers, body: text });
        (await createImageBitmap(await r.blob())).close();
        return performance.now() - t;
      }, body);
    const sides = { console: [], curl: [], node: [], browser: [] };
    const [stages, ends] = [[], []];
    const time = {
      console: async () => {
        const r = await consoleRun(page);
        return (stages.push(r.stages), ends.push(r.end), r.ms);
      },
      curl,
      node,
      browser,
    };
    const names = Object.keys(time);
    for (const name of names) await time[name](); // warm-up: connections, caches, the isolate
    [stages.length, ends.length] = [0, 0];
    for (let i = 0; i < ROUNDS; i++)
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        sides[name].push(await time[name]());
      }
    const [c, u, n, b] = ["console", "curl", "node", "browser"].map((side) => median(sides[side]));
    const f = (x) => x.toFixed(1);
    const parts = Object.keys(stages[0]).map((s) => `${s} ${f(median(stages.map((x) => x[s])))}`);
    // the console's own time, outside its request (which the server's load makes noisy): the figure to cut
    const own = median(stages.map((x) => x.ui + x.body + x.draw));
    return (
      `console run vs the same request: medians console ${f(c)} ms, curl ${f(u)} ms (${(c / u).toFixed(2)}x), ` +
      `Node fetch ${f(n)} ms (${(c / n).toFixed(2)}x), ${ROUNDS} rounds; to the run's end ${f(median(ends))} ms ` +
      `(${(median(ends) / u).toFixed(2)}x curl); the console's own time (to the image, outside the request) ` +
      `${f(own)} ms; a bare fetch and decode in the page ${f(b)} ms (${(b / u).toFixed(2)}x curl, the browser's ` +
      `floor); the console's stages (medians, ms): ` +
      `${parts.join(", ")}; console ${sides.console.map(f).join(", ")}; curl ${sides.curl.map(f).join(", ")}`
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
