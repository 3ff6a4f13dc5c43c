/**
 * Catastrophic-backtracking check of regular expression patterns, used at compile time for regex literals
 * (compile.ts) and, as embedded source text, at run time in the sandbox (sandbox/harden.ts). It must stay
 * self-contained (no imports, no helpers): its source is copied into the sandbox with Function.prototype.toString.
 */
/**
 * Backtracking shape of a regex pattern:
 * - `hazard`: why it can backtrack exponentially, or "" if it cannot by this check: a quantifier (*, +, ? or
 *   {n,m}) applied to a group that itself contains a quantifier (star height 2, e.g. (a+)+) or an alternation
 *   (e.g. (a|a)*). Stricter than needed (it also refuses benign (ab+)?), as safe-regex's star-height check
 *   (github.com/davisjam/safe-regex) on which it is modelled, plus the alternation case;
 * - `repetitions`: the number of quantifiers k. Without a hazard, backtracking over a subject of n characters
 *   takes at most about n^(k+1) steps (each quantifier picks a split point, plus the start position): /a*a*b/
 *   on 10,000 characters (k = 2) measured 57 s in workerd, so the sandbox bounds n^(k+1) (sandbox/harden.ts).
 */
export function regexShape(source: string): { hazard: string; repetitions: number } {
  let repetitions = 0;
  const stack: { risky: boolean }[] = [{ risky: false }];
  let last: { risky: boolean } | null = null;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      last = { risky: false };
      continue;
    }
    if (c === "[") {
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      last = { risky: false };
      continue;
    }
    if (c === "(") {
      stack.push({ risky: false });
      last = null;
      const named = source[i + 2] === "<" && source[i + 3] !== "=" && source[i + 3] !== "!";
      if (source[i + 1] === "?")
        i = named ? (source.indexOf(">", i) + 1 || source.length) - 1 : i + (source[i + 2] === "<" ? 3 : 2);
      continue;
    }
    if (c === ")") {
      last = stack.length > 1 ? stack.pop()! : { risky: false };
      stack[stack.length - 1]!.risky ||= last.risky;
      continue;
    }
    if (c === "|") {
      stack[stack.length - 1]!.risky = true;
      last = null;
      continue;
    }
    const quant = c === "*" || c === "+" || c === "?" || (c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 24)));
    if (!quant) {
      last = { risky: false };
      continue;
    }
    if (c === "{") i = source.indexOf("}", i);
    if (source[i + 1] === "?") i++;
    if (last && last.risky)
      return {
        hazard:
          "a quantified group contains a quantifier or an alternation (nested repetition can backtrack exponentially)",
        repetitions,
      };
    stack[stack.length - 1]!.risky = true;
    repetitions++;
    last = { risky: false };
  }
  return { hazard: "", repetitions };
}
