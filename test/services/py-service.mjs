// The Python services of the tests (vitest.config.ts binds PY_DECODE, PY_S3 and PY_ZARR to them): POST http://py/
// with a service script's JSON request; answers its JSON, 503 with the reason when python3 or one of the script's
// modules is missing (the script exits 3 on import; tests then skip), 500 with the traceback when it failed.
// Each script is served by long-lived python3 processes (test/services/py_serve.py), each answering one request at
// a time and many in turn, so GDAL, Pillow, numpy or botocore are imported once per process rather than once per
// request (0.3-0.4 s of CPU each); a process is started when a request finds none idle.
import { spawn } from "node:child_process";
import { resolve } from "node:path";

/** Debian's python3 with Pillow, tifffile, numpy, GDAL, botocore and zarr (see the scripts). */
const PYTHON = "/usr/bin/python3";
const SERVE = resolve("test/services/py_serve.py");

/**
 * One python3 process serving `script` (frames of test/services/py_serve.py): `ask(body)` resolves to its answer
 * frame as {answer: JSON text} or {error: traceback}; `started` to {ready} or {unavailable: reason}.
 */
function serveProcess(script) {
  const child = spawn(PYTHON, [SERVE, script], { stdio: ["pipe", "pipe", "pipe"] });
  // an idle process never keeps vitest alive (it exits on end of input when vitest does); one answering does
  const hold = (on) => {
    for (const s of [child, child.stdin, child.stdout, child.stderr]) on ? s.ref?.() : s.unref?.();
  };
  // frames in: chunks are kept until a frame is whole (answers run to tens of MB: no copy per chunk)
  let chunks = [];
  let have = 0;
  let need = -1; // the pending frame's total length (its length line included), -1 before its line is whole
  const waiting = []; // resolvers of the frames to come, in order
  const stderr = [];
  const settle = (frame) => {
    waiting.shift()?.(frame);
    if (!waiting.length) hold(false);
  };
  child.stdout.on("data", (chunk) => {
    chunks.push(chunk);
    have += chunk.length;
    for (;;) {
      if (need < 0) {
        const head = chunks.length > 1 ? Buffer.concat(chunks) : chunks[0];
        chunks = [head];
        const eol = head.indexOf(10);
        if (eol < 0) return;
        need = eol + 1 + Number.parseInt(head.subarray(0, eol).toString());
      }
      if (have < need) return;
      const all = chunks.length > 1 ? Buffer.concat(chunks) : chunks[0];
      const eol = all.indexOf(10);
      const kind = all.subarray(0, eol).toString().split(" ")[1];
      const text = all.subarray(eol + 1, need).toString();
      const rest = all.subarray(need);
      chunks = rest.length ? [rest] : [];
      have = rest.length;
      need = -1;
      settle({ [kind]: text });
      if (!have) return;
    }
  });
  child.stderr.on("data", (b) => stderr.push(b) > 50 && stderr.shift());
  // python3 missing answers every request as unavailable; a process that died answers its requests with an error
  const ended = (frame) => {
    proc.dead = true;
    while (waiting.length) settle(frame);
  };
  child.on("error", (e) => ended({ unavailable: `${PYTHON} cannot run: ${e.message}` }));
  child.on("close", (code, signal) =>
    ended({ error: `${PYTHON} ${script} exited (${signal ?? code})\n${Buffer.concat(stderr).toString()}` }),
  );
  child.stdin.on("error", () => {}); // reported on close
  const next = () => (hold(true), new Promise((done) => waiting.push(done)));
  const proc = {
    dead: false,
    started: next(),
    ask(body) {
      const answer = next();
      child.stdin.write(`${body.length} request\n`);
      child.stdin.write(body);
      return answer;
    },
  };
  return proc;
}

/** The fetch handler of the service binding for `script` (a file name under test/services). */
export function pyService(script) {
  const path = resolve("test/services", script);
  const idle = [];
  return async (request) => {
    const body = Buffer.from(await request.arrayBuffer());
    const proc = idle.pop() ?? serveProcess(path);
    const start = await proc.started;
    if (start.unavailable) return (proc.dead || idle.push(proc), new Response(start.unavailable, { status: 503 }));
    if (start.error) return new Response(start.error, { status: 500 });
    const frame = await proc.ask(body);
    if (!proc.dead) idle.push(proc);
    if (frame.error) return new Response(frame.error, { status: 500 });
    return new Response(frame.answer, { headers: { "content-type": "application/json" } });
  };
}
