// @ts-check
/**
 * The regular expressions of the sandbox (harden.js item 2, installed by it through {@link guardRegExp}):
 * RegExp.prototype.exec (which test, match, matchAll, replace, search and split call once exec is not the
 * original) refuses a catastrophic pattern (../compile/regex.ts regexShape, whose source sandbox.ts passes as the
 * module regex.js) and subjects longer than SANDBOX_LIMITS.regexSubject, or so long that n^(k+1) backtracking
 * steps (k quantifiers) could exceed SANDBOX_LIMITS.regexSteps; each run is charged n^(k+1) / 10 ticks (measured
 * ~3e9 steps/s, ~3 ns per tick). RegExp.prototype.compile checks its pattern too. The legacy RegExp statics
 * (RegExp.$1, lastMatch, ...) are deleted: they would carry a match from one request to the next.
 */
import { L } from "./limits.js";
import { regexShape } from "./regex.js";
import { charge, guardMethod, limit } from "./guards.js";

/** @type {Map<string, { hazard: string, repetitions: number }>} */
const shapes = new Map();
/**
 * The shape of a pattern (cached); a hazard stops the script.
 * @param {string} source
 */
function checkPattern(source) {
  let shape = shapes.get(source);
  if (shape === undefined) {
    shape = regexShape(source);
    if (shapes.size > 1000) shapes.clear();
    shapes.set(source, shape);
  }
  if (shape.hazard) limit("the regular expression /" + source.slice(0, 80) + "/ is refused: " + shape.hazard);
  return shape;
}
/** Installs the guards of the module docs (harden.js calls it once, before the realm is frozen). */
export function guardRegExp() {
  const RP = RegExp.prototype;
  /** @type {Record<string, unknown>} */
  const statics = /** @type {any} */ (RegExp);
  guardMethod(RP, "exec", (self, args) => {
    const source = String(self.source),
      k = checkPattern(source).repetitions;
    const n = String(args[0]).length,
      max = Math.min(L.regexSubject, Math.floor(L.regexSteps ** (1 / (k + 1))));
    if (n > max)
      limit(
        "a regular expression was run on " +
          n +
          " characters; the evalscript sandbox allows " +
          max +
          " for /" +
          source.slice(0, 80) +
          "/ (" +
          L.regexSubject +
          " at most, fewer the more quantifiers a pattern has: n^(k+1) <= " +
          L.regexSteps +
          " for k quantifiers)",
      );
    charge(n ** (k + 1), 10);
  });
  guardMethod(RP, "compile", (self, args) =>
    checkPattern(args[0] instanceof RegExp ? args[0].source : String(args[0] ?? "(?:)")),
  );

  for (const k of [
    "$1",
    "$2",
    "$3",
    "$4",
    "$5",
    "$6",
    "$7",
    "$8",
    "$9",
    "input",
    "$_",
    "lastMatch",
    "$&",
    "lastParen",
    "$+",
    "leftContext",
    "$\u0060",
    "rightContext",
    "$'",
  ]) {
    delete statics[k];
  }
}
