/**
 * Specialised evaluatePixel: the column function. When the host can prove, on the script's acorn AST, that
 * evaluatePixel's only contact with the pixel is reading `sample.<band>` values of its first parameter (or
 * destructuring band names from it), directly, through aliases or through helper functions it passes the sample
 * to (samplereads.ts), the compiled module gets an edited copy of evaluatePixel that takes the band values as
 * parameters (and copies of those helpers), and a `column` control object: `bind(arrays)` points it at one
 * block's band arrays (in `bands` order) and `loop` runs the block's pixels in the script's scope
 * (columnloop.ts). The sandbox (sandbox/pixels.js `pixels`) then skips
 * filling a sample object and the 5-argument call per pixel; budget ticks, the per-call budget reset, the total
 * and the output writes are the general loop's (pixels.js `generalLoop`) statement for statement, so results
 * (values, NaN, conversions, errors, budget stops) are those of the general path. Gain in workerd (A/B, two
 * wrangler dev servers, one forcing the general path, interleaved, eval stage p50 of 1024 x 1024 over 29RKH):
 * NDVI FLOAT32 17 against 38 ms, true colour FLOAT32 26 against 57 ms, NDVI PNG 53 against 89 ms; real scripts
 * whose cost is their own code gain little (ndvi 95 against 109 ms, ndwi (eob) 136 against 137 ms).
 *
 * Refused (the general path runs; `reason` says why): evaluatePixel not declared exactly once as a top-level
 * function (or assigned), async / generator, `this`, `arguments`, `new.target`, `with`, a reference to
 * evaluatePixel itself, a second parameter that is used (scenes, inputMetadata, customData, outputMetadata), a
 * read of any function's `caller` / `arguments` property anywhere in the script, the sample used other than
 * samplereads.ts allows (stored, written, deleted, called, iterated, captured by a nested function, redeclared,
 * read through a computed key, passed to anything but a provable helper), names that live on Object.prototype,
 * and destructuring with defaults, nesting, computed keys or rest. Whether a script qualifies at run time
 * (SIMPLE mosaicking, one scene, no data fusion) is decided by the sandbox.
 */
import type { Node } from "acorn";
import type { AnyNode } from "../compile/ast";
import { walk } from "../compile/ast";
import { returnRewrites } from "./returns";
import type { Copy } from "../compile/instrument";
import { columnCopy, type ColumnNames } from "./columnloop";
import { checkShape, destructured, memberName, referenceOf, Refused, refuse } from "./samplecheck";
import { bindingCounts, SampleReads } from "./samplereads";

export type { ColumnNames } from "./columnloop";

/**
 * The column function of a script: the band names its parameters take, the copy of evaluatePixel and the
 * copies of the helpers it passes the sample to (samplereads.ts), all emitted by instrument().
 */
export interface ColumnPlan {
  bands: string[];
  copy: Copy;
  helpers: Copy[];
}


/**
 * The top-level `function evaluatePixel` when it is the only binding and never assigned (the program's bindings
 * and assignments as `analysis` scanned them); refuses otherwise.
 */
function findEvaluatePixel(program: AnyNode, analysis: SampleReads): AnyNode {
  const top = (program.body as AnyNode[]).filter((s) => s.type === "FunctionDeclaration" && (s.id as AnyNode).name === "evaluatePixel");
  if (top.length !== 1) refuse(top.length ? "evaluatePixel is declared more than once" : "evaluatePixel is not a top-level function declaration");
  if (analysis.assigned.has("evaluatePixel")) refuse("evaluatePixel is assigned");
  if (analysis.bound.get("evaluatePixel") !== 1) refuse("evaluatePixel is declared more than once");
  const fn = top[0]!;
  if (fn.async || fn.generator) refuse("evaluatePixel is async or a generator");
  return fn;
}

/**
 * Refuses `this`, `arguments`, `new.target`, `with` and references to evaluatePixel in the body, and anywhere
 * in the script a read of a function's `caller` or `arguments` property (through which a function called from
 * a copy would see the copy and its band arguments instead of the sample).
 * @returns the references of evaluatePixel's other parameters (scenes, metadata, ...), to be dropped or refused
 *   ({@link extraUses}), and the names of those the body does not redeclare (droppable).
 */
function checkBody(program: AnyNode, fn: AnyNode): { uses: AnyNode[]; droppable: Set<string> } {
  checkShape(fn, "evaluatePixel", new Set(["evaluatePixel"]));
  const extra = new Set((fn.params as AnyNode[]).slice(1).map((p) => (p.type === "Identifier" ? (p.name as string) : refuse("evaluatePixel has a destructured second parameter"))));
  const uses: AnyNode[] = [];
  walk(fn, (n, parent, key) => {
    if (n.type === "Identifier" && referenceOf(parent, key) && parent !== fn && extra.has(n.name as string)) uses.push(n);
  });
  walk(program, (n) => {
    const name = n.type === "MemberExpression" ? memberName(n) : undefined;
    if (name === "caller" || name === "arguments") refuse(`the script reads a function's ${name} property`);
  });
  const counts = bindingCounts(fn);
  return { uses, droppable: new Set([...extra].filter((name) => counts.get(name) === 1)) };
}

/** Refuses a use of evaluatePixel's other parameters that the copy did not drop (samplereads.ts `dropped`). */
function extraUses(uses: AnyNode[], dropped: ReadonlySet<AnyNode>): void {
  const kept = uses.find((n) => !dropped.has(n));
  if (kept) refuse(`evaluatePixel uses its parameter "${kept.name}" (scenes, metadata or outputMetadata)`);
}

/**
 * The column plan of a parsed script, or why there is none.
 * @param program the acorn Program of the user's script.
 * @param source the script's text.
 * @param names the reserved prefix for generated identifiers.
 * @returns `{plan}` (bands in parameter order and the copy to emit after the script) or `{reason}`.
 */
export function columnPlan(program: Node, source: string, names: ColumnNames): { plan?: ColumnPlan; reason?: string } {
  try {
    const analysis = new SampleReads(program, names.base);
    const fn = findEvaluatePixel(program as AnyNode, analysis);
    const params = fn.params as AnyNode[];
    if (params.length === 0) refuse("evaluatePixel takes no sample parameter");
    const extra = checkBody(program as AnyNode, fn);
    const first = params[0]!;
    const param = (k: number): string => `${names.base}b${k}`;
    let bands: string[];
    let replace: Copy["replace"] = [];
    let locals: string[];
    if (first.type === "Identifier") {
      ({ bands, replace } = analysis.reads(fn, first.name as string, "evaluatePixel", false, extra.droppable));
      locals = bands.map((_, k) => param(k));
    } else if (first.type === "ObjectPattern") {
      const pairs = destructured(first);
      bands = pairs.map(([b]) => b);
      locals = pairs.map(([, l]) => l);
    } else {
      return refuse("evaluatePixel's sample parameter has a default value or is an array pattern");
    }
    extraUses(extra.uses, analysis.dropped);
    const reuse = returnRewrites(fn, names.base, source);
    const body = fn.body as AnyNode;
    const copy = columnCopy(names, { start: body.start, end: body.end }, fn.start as number, [...locals, ...reuse.temps], bands, [...replace, ...reuse.replace], reuse.direct);
    copy.tail += reuse.decls;
    return { plan: { bands, copy, helpers: analysis.copies } };
  } catch (err) {
    if (err instanceof Refused) return { reason: err.message };
    throw err;
  }
}
