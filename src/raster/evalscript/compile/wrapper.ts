/**
 * The CommonJS wrapper around an instrumented evalscript (compile.ts) and the control surface it gives the
 * sandbox (sandbox/entry.ts). Layout, with names `P…` unique per compile (P = "__eo$" + 16 random hex digits):
 *
 *   module.exports = function () {               // sloppy, no parameters: nothing for `caller.arguments`
 *     let Pk = -1, Ph = "", Po = null;           // budget counter (ticks left), stop cause, override reader
 *     const Pg = globalThis, Pe = Pg.Error;
 *     function Ps(m) {"use strict"; ...}         // stop: records the cause, exhausts the counter, throws
 *     const Pf = function () {                   // sloppy: the script instance
 *       var <bound globals> = Pg.<name>, ...;    // globals.ts
 *       return function () { <tick> Po = <reader>; <script> ; return {setup, evaluatePixel, ...}; }.call(this);
 *     };
 *     return { init, set, left, cause, stop, charge, override };   // all strict: no V8 CallSite hands them out
 *   };
 *
 * The reader `Po(name)` runs in the script's scope and returns the script's value of one of EO Browser's
 * override variables ({@link OVERRIDE_NAMES}, e.g. `var gainOverride = 2;`), or undefined; the utility library
 * reads them through `override` (in Sentinel Hub's runtime the script and the library share one global scope).
 *
 * Why it holds: the counter is a closure variable, never an object or parameter; script code cannot name it
 * (identifiers starting with {@link RESERVED_PREFIX} are rejected at compile time) and the sandbox has no eval,
 * so reading the instrumented text through Function.prototype.toString gives no access. A new instance made
 * from script code (through `arguments.callee.caller`) starts with the counter at -1 and stops at its first
 * tick. The control functions are strict, so `fn.caller` and stack-trace CallSites never return them.
 */

/** EO Browser's override variables that the utility library reads from the script (sandbox/library.ts). */
export const OVERRIDE_NAMES = ["gainOverride", "offsetOverride", "gammaOverride", "rangeOverrides"] as const;

/** Identifier prefix reserved for the wrapper: a script using it is rejected (compile.ts). */
export const RESERVED_PREFIX = "__eo$";

/** The per-compile names of the wrapper's variables. */
export interface WrapperNames {
  counter: string;
  cause: string;
  global: string;
  error: string;
  stop: string;
  factory: string;
  override: string;
}

/** Fresh names: the reserved prefix, 16 random hex digits (crypto.getRandomValues) and a role letter. */
export function wrapperNames(): WrapperNames {
  const id = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const n = (role: string): string => `${RESERVED_PREFIX}${id}${role}`;
  return {
    counter: n("k"),
    cause: n("h"),
    global: n("g"),
    error: n("e"),
    stop: n("s"),
    factory: n("f"),
    override: n("o"),
  };
}

/**
 * Text before the script (one line): everything up to the script's first character, ending with a tick so an
 * instance without budget stops before any script code runs.
 * @param bound names bound as locals of the instance (globals.ts `bindableGlobals`).
 * @param tick the statement tick for `names` (instrument.ts `ticks`).
 */
export function wrapperPrefix(names: WrapperNames, bound: string[], tick: string): string {
  const { counter: k, cause: h, global: g, error: e, stop: s, factory: f, override: o } = names;
  const locals = bound.length ? `var ${bound.map((b) => `${b}=${g}.${b}`).join(",")};` : "";
  // typeof never throws for an undeclared name; a let/const read before its declaration (TDZ) does: undefined.
  const reads = OVERRIDE_NAMES.map((n) => `n===${JSON.stringify(n)}?(typeof ${n}!=="undefined"?${n}:void 0):`).join("");
  return (
    `module.exports=function(){let ${k}=-1,${h}="",${o}=null;const ${g}=globalThis,${e}=${g}.Error;` +
    `function ${s}(m){"use strict";if(!${h})${h}=m||"budget";${k}=-1;throw new ${e}(${h});}` +
    `const ${f}=function(){${locals}return function(){${tick}` +
    `${o}=function(n){"use strict";try{return ${reads}void 0;}catch(x){return void 0;}};`
  );
}

/** Text after the script: the exported script functions and the control surface (see the module docstring). */
export function wrapperSuffix(names: WrapperNames, functions: readonly string[]): string {
  const { counter: k, cause: h, global: g, stop: s, factory: f, override: o } = names;
  const exported = functions.map((fn) => `${fn}:typeof ${fn}==="function"?${fn}:void 0`).join(",");
  const strict = (params: string, body: string): string => `function(${params}){"use strict";${body}}`;
  const control = [
    `init:${strict("", `return ${f}.call(${g});`)}`,
    `set:${strict("n", `if(!${h})${k}=n;`)}`,
    `left:${strict("", `return ${k};`)}`,
    `cause:${strict("", `return ${h};`)}`,
    `stop:${s}`,
    `charge:${strict("n", `${k}-=n;if(${k}<0)${s}();`)}`,
    `override:${strict("n", `return ${o}?${o}(n):void 0;`)}`,
  ].join(",");
  return `\n;return{${exported}};}.call(this);};return{${control}};};\n`;
}
