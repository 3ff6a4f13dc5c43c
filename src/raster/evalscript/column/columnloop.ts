/**
 * The generated code of a column function (specialize.ts): the edited copy of evaluatePixel, its band array
 * variables and the control object, emitted in the script's own scope (wrapper.ts) so the pixel loop reads and
 * resets the budget counter directly instead of calling the instance's control functions per pixel.
 *
 * Control object `Pc` (strict functions, ours; the script cannot name it):
 * - `names`: the band names of the parameters; `bind(arrays)`: the block's band arrays in `names` order;
 * - `loop(S, n, P, V, B, W)`: pixels S.at .. n-1 of the bound block, per pixel exactly what the sandbox's
 *   general loop (sandbox/pixels.js) does: the counter reset to P ticks unless stopped, the call, a stop when the
 *   counter went below 0, S.left (the request's total) charged with the ticks used and S.over() (throws) when
 *   it goes below 0, then the value written: a number into V[i] when B is 1, an array-like of length B into
 *   V[i*B .. i*B+B-1], anything else handed to W(r, i) (the generic writer, which also throws for a mismatch).
 *   B is 0 when there are several outputs (W writes everything). With direct writes (returns.ts) the loop first
 *   calls `u(S, V, B)` (which literals fit the outputs), sets the pixel index `i` before each call, skips the
 *   write when the copy gave the sentinel `T` (it wrote the values itself) and drops the output references on exit. S.at and S.left are written back on exit,
 *   also when the loop throws. Its name has the reserved prefix, so error positions skip its stack frame
 *   (errors.ts `userFrame`): an error of the writer or of the total budget names no script line, as on the
 *   general path, whose loop is not script code.
 */
import type { Copy } from "../compile/instrument";

/** Reserved names the generated code uses (wrapper.ts `WrapperNames`). */
export interface ColumnNames {
  /** Prefix for generated identifiers (reserved: scripts cannot name them). */
  base: string;
  /** The wrapper's budget counter, stop cause and stop function (wrapper.ts). */
  counter: string;
  cause: string;
  stop: string;
}

/** The control object's `loop` method (see the module docstring); `call` is the column call for pixel `i`. */
function loopMethod(names: ColumnNames, call: string, direct: boolean): string {
  const { counter: k, cause: h, stop: s, base: b } = names;
  const write =
    (direct ? `if(r===${b}T);else ` : "") +
    `if(typeof r==="number"&&B===1)V[i]=r;` +
    `else if(B>0&&typeof r==="object"&&r!==null&&r.length===B){o=i*B;for(j=0;j<B;j++)V[o+j]=r[j];}` +
    `else W(r,i);`;
  const pixel = (bookkeeping: string) => `${bookkeeping}${direct ? `${b}i=i;` : ""}r=${call};`;
  return (
    `loop:function ${b}l(S,n,P,V,B,W){"use strict";var i=S.at,L=S.left,r,q,j,o;${direct ? `${b}u(S,V,B);` : ""}try{for(;i<n;i++){` +
    `${pixel(`if(!${h})${k}=P;`)}q=${k};if(q<0)${s}();L-=P-q;if(L<0)S.over();` +
    write +
    `}}finally{S.at=i;S.left=L;${direct ? `${b}w();` : ""}}}`
  );
}

/**
 * The copy: `var Pp=function evaluatePixel(<locals>){<body>};` then the band array variables and the control
 * object `Pc = {names, bind(arrays), loop(...)}`, all in the script's scope.
 * @param body the [start, end) source offsets of evaluatePixel's body block; `anchor` its start (errors map there).
 */
export function columnCopy(names: ColumnNames, body: { start: number; end: number }, anchor: number, locals: string[], bands: string[], replace: Copy["replace"], direct = false): Copy {
  const b = names.base;
  const arrays = Array.from({ length: bands.length }, (_, k) => `${b}a${k}`);
  const bind = arrays.map((a, k) => `${a}=A[${k}];`).join("");
  const args = arrays.map((a) => `${a}[i]`).join(",");
  const vars = arrays.length ? `var ${arrays.join(",")};` : "";
  return {
    from: body.start,
    to: body.end,
    anchor,
    head: `\n;var ${b}p=function evaluatePixel(${locals.join(",")})`,
    tail:
      `;${vars}var ${b}c={names:${JSON.stringify(bands)},bind:function(A){"use strict";${bind}},` +
      `${loopMethod(names, `${b}p(${args})`, direct)}};`,
    replace,
  };
}
