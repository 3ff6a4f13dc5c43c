/**
 * The budget cannot be reached from script code, and work the loop counter does not see (allocations, native
 * array walks, regex backtracking) ends in a 400 naming the cause while a concurrent request is served.
 * Reproductions of runaway scripts (each answered 200 or stalled the runtime before).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { rendered, type RenderedEngineError } from "../../helpers/engine";
import { SANDBOX_LIMITS } from "../../../src/raster/evalscript/limits";
import type { EvalInput } from "../../../src/raster/evalscript";
import { f32, ones, rkhWindow, RKH_INFO, run } from "./helpers";

const W = 16;
let px: Record<string, Float32Array>;

beforeAll(async () => {
  px = await rkhWindow(["B02", "B03", "B04", "B08"], 100, 100, W, W);
});

/** A w x w input (1 x 1 for scripts that would stall the pre-fix runtime pixel after pixel). */
const input = (w = W): EvalInput => ({
  width: w,
  height: w,
  scenes: [
    {
      info: RKH_INFO,
      bands: Object.fromEntries(Object.entries(px).map(([k, v]) => [k, v.slice(0, w * w)])),
      dataMask: ones(w * w),
    },
  ],
});

const script = (body: string, extra = "") => `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: { bands: 1, sampleType: "FLOAT32" } }; }
${extra}
function evaluatePixel(s) { ${body} }`;

/** Runs `src` on one pixel while a true-colour request runs; the script must fail with a 400, the other not. */
async function refusedWhileServing(src: string, w = 1): Promise<RenderedEngineError> {
  const [bad, good] = await Promise.allSettled([run(src, input(w)), run("sentinel-2__true_color__script.js", input())]);
  expect(good.status === "fulfilled" && good.value.outputs.default!.values[0]).toBe(f32(2.5 * px.B04![0]!));
  expect(bad.status).toBe("rejected");
  const e = rendered((bad as PromiseRejectedResult).reason);
  expect(e.status).toBe(400);
  return e;
}

const LOOP = "var n = 0; for (var k = 0; k < 3e7; k++) n++; return [n];";

describe("the budget is out of the script's reach", () => {
  it("the old guard name __eo$ (and any name with that prefix, escaped or not) is refused at compile time", async () => {
    for (const src of [script("__eo$.b = Infinity; " + LOOP), script("return [1];", "var \\u005f_eo$x = 1;")]) {
      const e = await refusedWhileServing(src);
      expect(e.message).toMatch(/starts with "__eo\$", which is reserved for the runtime/);
    }
  });

  it("arguments.callee.caller.arguments gives no guard object to switch off", async () => {
    const top = "var args = []; try { args = arguments.callee.caller.arguments; } catch (e) {}";
    const body =
      "for (var j = 0; j < args.length; j++) if (args[j] && typeof args[j] === 'object') args[j].b = Infinity; " + LOOP;
    const e = await refusedWhileServing(script(body, top));
    expect(e.message).toMatch(/one call ran more than 20000000 loop iterations/);
  });

  it("the instance factory reached through arguments.callee.caller shares the budget", async () => {
    const e = await refusedWhileServing(
      script("return [f().evaluatePixel(s)[0]];", "var f = arguments.callee.caller;"),
    );
    expect(e.message).toMatch(/one call ran more than \d+ loop iterations|endless recursion/);
  });

  it("nothing above the instance factory is reachable (its caller is strict: null)", async () => {
    const r = await run(script("return [up === null ? 7 : 0];", "var up = arguments.callee.caller.caller;"), input(1));
    expect(r.outputs.default!.values[0]).toBe(7);
  });
});

describe("work the loop counter does not see", () => {
  const bytes = `the evalscript sandbox allows ${SANDBOX_LIMITS.allocationBytes} bytes`;
  const elements = `the evalscript sandbox allows ${SANDBOX_LIMITS.arrayLength} elements`;
  it.each([
    ["new ArrayBuffer(2 ** 34)", `new ArrayBuffer(17179869184) would allocate 17179869184 bytes; ${bytes}`],
    ["new Float64Array(2 ** 27)", `new Float64Array(134217728) would allocate 1073741824 bytes; ${bytes}`],
    ["new Uint8Array({ length: 2 ** 30 })", `would allocate 1073741824 bytes; ${bytes}`],
    ["new SharedArrayBuffer(2 ** 30)", `new SharedArrayBuffer(1073741824) would allocate 1073741824 bytes; ${bytes}`],
    ["new ArrayBuffer(8, { maxByteLength: 2 ** 40 })", `would allocate 1099511627776 bytes; ${bytes}`],
    [
      "new ArrayBuffer(8).transfer(2 ** 30)",
      `ArrayBuffer.prototype.transfer(1073741824) would allocate 1073741824 bytes; ${bytes}`,
    ],
    ["Float32Array.from({ length: 2 ** 30 })", `would allocate 4294967296 bytes; ${bytes}`],
    ["Array(2 ** 26).fill(0)", `Array(67108864) has 67108864 elements; ${elements}`],
    ["var a = []; a.length = 2 ** 26; a.fill(0)", `Array.prototype.fill range has 67108864 elements; ${elements}`],
    [
      "var a = []; a.length = 2 ** 30; a.includes(1)",
      `the receiver of Array.prototype.includes has 1073741824 elements; ${elements}`,
    ],
    [
      "var a = [1]; for (var k = 0; k < 24; k++) a = [a, a]; a.flat(Infinity)",
      `the result of Array.prototype.flat has`,
    ],
    ["Array.from({ length: 2 ** 26 })", `Array.from(...) has 67108864 elements; ${elements}`],
    [
      "'x'.repeat(2 ** 28)",
      `String.prototype.repeat would make 268435456 characters; the evalscript sandbox allows ${SANDBOX_LIMITS.stringLength}`,
    ],
    ["''.padStart(2 ** 28)", `String.prototype.padStart(268435456) would make 268435456 characters`],
  ])("%s -> 400 naming the limit", async (code, message) => {
    const e = await refusedWhileServing(script(`var r = ${code}; return [1];`.replace("var r = var", "var")));
    expect(e.message).toContain(message);
    expect(e.message).toMatch(
      /^Failed to evaluate script! The evalscript was stopped at line 4, column \d+ \(evaluatePixel/,
    );
  });

  it("a limit breach the script catches still ends the call", async () => {
    const e = await refusedWhileServing(script("try { new ArrayBuffer(2 ** 33); } catch (e) {} return [1];"));
    expect(e.message).toContain("new ArrayBuffer(8589934592) would allocate");
  });

  it("allocations under the cap are charged to the budget: an allocation loop ends", async () => {
    const e = await refusedWhileServing(script("for (;;) new Float64Array(2 ** 22);"));
    expect(e.message).toMatch(/one call ran more than 20000000 loop iterations, function calls and allocation units/);
  });

  it.each([
    [
      "copying a 16 MiB typed array",
      "var a = new Float32Array(2 ** 22), b = new Float32Array(2 ** 22); for (;;) b.set(a);",
    ],
    ["searching a 16M-character string", "var t = 'x'.repeat(2 ** 24); for (;;) t.indexOf('y');"],
    ["JSON of a 4M-element array", "var a = Array(2 ** 22).fill(0); for (;;) JSON.stringify(a);"],
    ["logging a 16M-character string (console is a no-op)", "var t = 'x'.repeat(2 ** 24); for (;;) console.log(t);"],
  ])("linear native work in a loop is charged: %s ends", async (what, body) => {
    const e = await refusedWhileServing(script(body));
    expect(e.message).toMatch(/one call ran more than 20000000 loop iterations, function calls and allocation units/);
  });

  it("WebAssembly is gone (WebAssembly.Memory allocated gigabytes outside any typed array)", async () => {
    const e = await refusedWhileServing(script("new WebAssembly.Memory({ initial: 16384 }); return [1];"));
    expect(e.message).toMatch(/ReferenceError: WebAssembly is not defined at line 4/);
  });

  it("a backtracking regex literal is refused at compile time with its position", async () => {
    const e = await refusedWhileServing(script("return [/(a+)+$/.test('a'.repeat(26) + '!') ? 1 : 0];"));
    expect(e.message).toMatch(
      /the regular expression \/\(a\+\)\+\$\/ at line 4, column 37 is refused: a quantified group contains a quantifier/,
    );
  });

  it.each([
    ["new RegExp('(a+)+$').test(t)"],
    ["RegExp('(x|x)*y').test(t)"],
    ["t.match('(a+)+$')"],
    ["t.search('(a*)*$')"],
    ["/b/.compile('(a+)+$')"],
    ["t.replace(new RegExp('(\\\\w+\\\\s?)*$'), '')"],
  ])("%s -> 400 at run time", async (code) => {
    const e = await refusedWhileServing(script(`var t = 'a'.repeat(26) + '!'; ${code}; return [1];`));
    expect(e.message).toMatch(/is refused: a quantified group contains a quantifier or an alternation/);
  });

  it("a regex on a subject over the cap is refused; ordinary regexes work", async () => {
    const e = await refusedWhileServing(
      script(`return [/a/.test('b'.repeat(${SANDBOX_LIMITS.regexSubject + 1})) ? 1 : 0];`),
    );
    expect(e.message).toContain(`a regular expression was run on ${SANDBOX_LIMITS.regexSubject + 1} characters`);
    const ok = await run(
      script(
        "var m = /^(\\d+)-(\\d+)$/.exec('12-345'); return [Number(m[2]) + 'a,b;c'.split(/[,;]/).length + 'x1y2'.replace(/\\d/g, '').length];",
      ),
      input(1),
    );
    expect(ok.outputs.default!.values[0]).toBe(345 + 3 + 2);
  });

  it("a pattern with more quantifiers runs on shorter subjects only (/a*a*b/ on 10000 characters took 57 s)", async () => {
    const e = await refusedWhileServing(script("return [/a*a*b/.test('a'.repeat(10000)) ? 1 : 0];"));
    expect(e.message).toContain(
      "a regular expression was run on 10000 characters; the evalscript sandbox allows 464 for /a*a*b/",
    );
    const ok = await run(script("return [/a*a*b/.test('a'.repeat(400)) ? 1 : 0];"), input(1));
    expect(ok.outputs.default!.values[0]).toBe(0);
  });

  it("locale formatting is charged (~6 us per call): 20000 Intl constructions exceed one call's budget", async () => {
    const e = await refusedWhileServing(
      script("for (var k = 0; k < 20000; k++) new Intl.NumberFormat('en'); return [1];"),
    );
    expect(e.message).toMatch(/one call ran more than 20000000 loop iterations, function calls and allocation units/);
  });

  it("a getter that loops, and a thrown value whose toString loops, end as 400s", async () => {
    const getter = await refusedWhileServing(script("var o = { get x() { while (true) {} } }; return [o.x];"));
    expect(getter.message).toMatch(/stopped at line 4, column 49 \(evaluatePixel, in get x/);
    const thrown = await refusedWhileServing(script("throw { toString: function () { while (true) {} } };"));
    expect(thrown.message).toBe(
      "Failed to evaluate script! Error: (the thrown value could not be read) (evaluatePixel, output pixel column 0, row 0).",
    );
  });
});

describe("the per-call budget is the script's own", () => {
  it("every call may use its whole per-call budget, in every row block (the sandbox's band lookup is not charged to it)", async () => {
    const src = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "B08"], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { var x = 0; for (var j = 0; j < 8; j++) x += s.B04; return [x + s.B02 + s.B03 + s.B08]; }`;
    // the smallest per-call budget the whole image runs with in one block: what one call uses (ticks, by trying)
    let perCall = 1;
    while (
      perCall < 100 &&
      !(await run(src, input(), { perCall }).then(
        () => true,
        () => false,
      ))
    )
      perCall++;
    expect(perCall).toBeGreaterThan(8);
    expect(perCall).toBeLessThan(100);
    const whole = await run(src, input(), { perCall });
    // rows of ~1 KiB: several blocks, each starting with the counter its previous block's last call left (0 ticks)
    const blocks = await run(src, input(), { perCall, blockBytes: 1024 });
    expect(Array.from(blocks.outputs.default!.values)).toEqual(Array.from(whole.outputs.default!.values));
    expect(whole.outputs.default!.values[5]).toBe(f32(8 * px.B04![5]! + px.B02![5]! + px.B03![5]! + px.B08![5]!));
  });
});
