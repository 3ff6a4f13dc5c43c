// The output of `wrangler dev` as `npm start` shows it (scripts/start.mjs): line by line, with workerd's report of
// an aborted isolate turned into one line.
//
// The evalscript sandbox recycles its isolates by calling `abortIsolate` inside them (src/raster/evalscript/
// sandbox.ts, Recycler). workerd terminates the isolate's JavaScript and, finding no abort reason on that path,
// logs its internal assertion "script terminated for unknown reasons" at error level with a native stack of about
// 20 addresses (io-context.c++), which wrangler prints as a red [ERROR] block. Nothing failed: the request that
// released the isolate has its answer. The block is replaced by one line saying what happened.

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const TERMINATED = /script terminated for unknown reasons/;
/** The lines wrangler prints after the [ERROR] line of a workerd error: blank, or the native stack. */
const TRAILER = /^\s*(stack:.*)?$/;

/** The one line printed instead of workerd's block. */
export const ABORTED_ISOLATE_LINE =
  '[eo-edge] an evalscript sandbox isolate was recycled after its memory budget (workerd: "script terminated for unknown reasons"; no request failed)';

/**
 * A line filter for wrangler dev's output: `push(line, show = true)` (a line without its newline) calls
 * `write(line)` for every line to show, in order; the lines of a "script terminated for unknown reasons" block
 * become ABORTED_ISOLATE_LINE. `swallow(pattern)`: the next line matching the RegExp `pattern` (the request log of
 * a request `npm start` made itself) is dropped, once, even when pushed with `show` false.
 */
export function devLog(write) {
  let inBlock = false;
  const swallowed = [];
  return {
    swallow: (pattern) => swallowed.push(pattern),
    push(line, show = true) {
      const plain = line.replace(ANSI, "");
      if (inBlock && TRAILER.test(plain)) return;
      inBlock = false;
      if (TERMINATED.test(plain)) {
        inBlock = true;
        write(ABORTED_ISOLATE_LINE);
        return;
      }
      const i = swallowed.findIndex((p) => p.test(plain));
      if (i >= 0) swallowed.splice(i, 1);
      else if (show) write(line);
    },
  };
}

/** Calls `onLine(line)` for every complete line of the readable stream (a child's stdout or stderr). */
export function eachLine(stream, onLine) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) onLine(l.replace(/\r$/, ""));
  });
  stream.on("end", () => rest && onLine(rest));
}
