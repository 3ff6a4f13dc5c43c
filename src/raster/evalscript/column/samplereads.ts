/**
 * Where a function's sample goes (the proof behind the column function, specialize.ts). The sample may only be:
 * - read as `sample.<band>` / `sample["band"]` values: each read becomes the band's parameter;
 * - aliased by `var|let|const p = sample` as a direct statement of the function's body, the alias then used
 *   the same way after its declaration (the declarator's value becomes `void 0`);
 * - destructured by `var|let|const {B04, B08: nir} = sample` (anywhere in the function): the declarator becomes
 *   `B04=<param>,nir=<param>`;
 * - passed as one argument to a helper, alone or as the only element of an array literal (`[sample]`, the
 *   wrapper Sentinel Hub's V2-to-V3 conversion writes: `evaluatePixelOrig([sample], [scene], metadata, ...)`):
 *   a top-level function declaration (or top-level `var|let|const name = function / arrow`),
 *   bound once in the whole script, never assigned and named only as a callee, with plain identifier parameters, no `this` / `arguments` / `new.target` / `with` and no reference
 *   to evaluatePixel or to itself (in the copy its name would be the copy's), whose parameter at that position
 *   obeys these same rules (transitively; for `[sample]` it may only be read as `p[0]`, which then stands for
 *   the sample). The helper gets an edited copy taking the band values it needs in place of that parameter,
 *   `var <id>=function <name>(...)` emitted after the script, and the call names the copy. The original stays
 *   for every other caller. The sample coming back to a helper whose analysis is under way (recursion through
 *   other helpers) is refused. Arguments past the helper's parameters that are a droppable name (evaluatePixel's
 *   scenes / metadata parameters) or `[name]` become `0` in the copy: the helper cannot see them (no
 *   `arguments`) and reading a parameter has no effect.
 * Anything else (passed on elsewhere, stored, written, called, captured by a nested function, redeclared, read
 * through a computed key) refuses the column function with a reason.
 */
import type { Node } from "acorn";
import { forEachChild, walk, type AnyNode } from "../compile/ast";
import { patternNames, scanNames } from "../compile/globals";
import type { Copy } from "../compile/instrument";
import { checkShape, declaresName, destructured, FUNCTION_TYPES, memberName, PROTO, readOnly, referenceOf, refuse, type Step } from "./samplecheck";

/** Band reads of one function: the band names in parameter order and the source replacements of its copy. */
export interface Reads {
  bands: string[];
  replace: Copy["replace"];
}

/** A helper's copy: its generated variable name, the bands it takes in place of the sample, its arity. */
interface Helper {
  id: string;
  bands: string[];
  arity: number;
}

/** One function under analysis: its sample's names and what the analysis collects for its copy. */
interface Scope {
  fn: AnyNode;
  /** Names the function in reasons ("evaluatePixel", "helper isCloud"). */
  what: string;
  out: Reads;
  /** The sample's names: its parameter (declarator null) and its aliases (their declarator). */
  aliases: Map<string, AnyNode | null>;
  /** The parameter when it holds `[sample]`: only `<name>[0]` stands for the sample. */
  wrapped?: string;
  /** Names whose references may be dropped as arguments past a helper's parameters. */
  droppable: ReadonlySet<string>;
}

/** Whether `m` is `<name>[0]`. */
const firstOf = (m: AnyNode | null | undefined, name: string | undefined): boolean =>
  m?.type === "MemberExpression" && m.computed === true && (m.object as AnyNode).type === "Identifier" && (m.object as AnyNode).name === name && (m.property as AnyNode).type === "Literal" && (m.property as AnyNode).value === 0;

/** How many times each name is bound (variables, functions, classes, parameters, catch) in a program. */
export function bindingCounts(program: Node): Map<string, number> {
  const counts = new Map<string, number>();
  const add = { add: (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1) };
  walk(program, (n) => {
    if (n.type === "VariableDeclarator") patternNames(n.id as AnyNode, add);
    if ((FUNCTION_TYPES.has(n.type) || n.type.startsWith("Class")) && n.id) patternNames(n.id as AnyNode, add);
    if (Array.isArray(n.params)) for (const p of n.params as AnyNode[]) patternNames(p, add);
    if (n.type === "CatchClause") patternNames(n.param as AnyNode, add);
  });
  return counts;
}

/**
 * The sample's names in `fn`: its parameter `sample` (declarator null, unless `wrapped`) and the aliases
 * `var|let|const p = <name>` (or `= sample[0]` when wrapped) declared by direct statements of its body.
 */
function sampleAliases(fn: AnyNode, sample: string, wrapped: boolean): Map<string, AnyNode | null> {
  const out = new Map<string, AnyNode | null>(wrapped ? [] : [[sample, null]]);
  const params = new Set((fn.params as AnyNode[]).map((p) => p.name));
  const body = fn.body as AnyNode;
  for (const st of body.type === "BlockStatement" ? (body.body as AnyNode[]) : []) {
    if (st.type !== "VariableDeclaration") continue;
    for (const d of st.declarations as AnyNode[]) {
      const [id, init] = [d.id as AnyNode, d.init as AnyNode | null];
      const ofSample = init?.type === "Identifier" ? out.has(init.name as string) : wrapped && firstOf(init, sample);
      if (id.type === "Identifier" && ofSample && !params.has(id.name) && !out.has(id.name as string) && id.name !== sample) out.set(id.name as string, d);
    }
  }
  return out;
}

/**
 * The copy of helper `fn` under `head` (`var <id>=function <name>(<params>)`). An arrow's expression body
 * becomes `{return <body>}`: the copied range keeps the tick instrument() opens at its start
 * (`(<tick>,`) and the tail closes it, as the range leaves out insertions at its end; refused when a nested
 * arrow's body ends there too (its closing would be left out as well).
 */
function helperCopy(fn: AnyNode, head: string, replace: Copy["replace"]): Copy {
  const body = fn.body as AnyNode;
  if (body.type === "BlockStatement") return { from: body.start, to: body.end, anchor: fn.start, head, tail: ";", replace };
  walk(body, (n) => {
    if (n.type === "ArrowFunctionExpression" && (n.body as AnyNode).type !== "BlockStatement" && n.end === body.end) refuse("a helper's arrow body ends with another arrow's body");
  });
  return { from: body.start, to: body.end, anchor: fn.start, head: `${head}{return `, tail: ")};", replace };
}

/** The analysis of one script: the helper declarations it may copy and the copies made so far. */
export class SampleReads {
  /** The helper copies to emit after the script (instrument.ts), callees before callers. */
  readonly copies: Copy[] = [];
  /** Identifiers of droppable names that became `0` (arguments past a helper's parameters). */
  readonly dropped = new Set<AnyNode>();
  private readonly helpers = new Map<string, Helper | "pending">();
  private readonly calls = new Set<AnyNode>();
  private readonly top = new Map<string, AnyNode>();
  /** How many times each name is bound in the program ({@link bindingCounts}). */
  readonly bound: Map<string, number>;
  /** Names the program assigns to (globals.ts scanNames). */
  readonly assigned: Set<string>;
  /** Names referenced other than as the callee of a call. */
  private readonly named = new Set<string>();

  /** @param base the reserved prefix of generated names (band parameters `<base>b<k>`, copies `<base>h<k>`). */
  constructor(program: Node, private readonly base: string) {
    for (const s of (program as AnyNode).body as AnyNode[]) {
      if (s.type === "FunctionDeclaration") this.top.set((s.id as AnyNode).name as string, s);
      for (const d of s.type === "VariableDeclaration" ? (s.declarations as AnyNode[]) : []) {
        const init = d.init as AnyNode | null;
        if ((d.id as AnyNode).type === "Identifier" && init && FUNCTION_TYPES.has(init.type)) this.top.set((d.id as AnyNode).name as string, init);
      }
    }
    this.bound = bindingCounts(program);
    this.assigned = scanNames(program).assigned;
    walk(program, (n, parent, key) => {
      if (n.type !== "Identifier" || !referenceOf(parent, key) || declaresName(parent, key)) return;
      if (!(parent?.type === "CallExpression" && key === "callee")) this.named.add(n.name as string);
    });
  }

  /**
   * The band reads of the sample held by parameter `sample` of `fn` (`wrapped`: as `[sample]`) and the
   * replacements that turn `fn`'s body into its copy's; helper copies it needs are added to {@link copies}.
   * `what` names `fn` in reasons; references of `droppable` names may become `0` (see {@link dropped}).
   * @throws Refused when the sample is used in any other way (module docstring).
   */
  reads(fn: AnyNode, sample: string, what: string, wrapped = false, droppable: ReadonlySet<string> = new Set()): Reads {
    const scope: Scope = { fn, what, out: { bands: [], replace: [] }, aliases: sampleAliases(fn, sample, wrapped), wrapped: wrapped ? sample : undefined, droppable };
    const path: Step[] = [];
    const go = (n: AnyNode, key: string, nested: boolean): void => {
      const parent = path[path.length - 1]?.[0] ?? null;
      const name = n.type === "Identifier" ? (n.name as string) : "";
      if ((scope.aliases.has(name) || name === scope.wrapped) && parent !== fn) {
        const decl = scope.aliases.get(name);
        if (declaresName(parent, key)) {
          if (parent !== decl) refuse(`${what} redeclares its sample "${name}"`);
        } else if (referenceOf(parent, key)) {
          if (nested) refuse(`a function inside ${what} captures the sample "${name}"`);
          if (decl && n.start < decl.end) refuse(`${what} uses the sample's alias "${name}" before its declaration`);
          if (name !== scope.wrapped) this.use(n, key, path, scope);
          else if (firstOf(parent, name) && key === "object") this.use(parent!, path[path.length - 1]![1], path.slice(0, -1), scope);
          else refuse(`${what} uses its sample list "${name}" other than as ${name}[0]`);
        }
      }
      path.push([n, key]);
      const inner = nested || (n !== fn && FUNCTION_TYPES.has(n.type));
      forEachChild(n, (c, k) => go(c, k, inner));
      path.pop();
    };
    go(fn, "", false);
    return scope.out;
  }

  /**
   * One reference `n` of the sample (under `key` in its parent; path: its ancestors with their keys): a band
   * read, an alias's or a destructuring declarator, or a helper call (`n` or `[n]` an argument).
   */
  private use(n: AnyNode, key: string, path: Step[], scope: Scope): void {
    const { what, out } = scope;
    const [parent, grand] = [path[path.length - 1]![0], path[path.length - 2]?.[0]];
    const label = n.type === "Identifier" ? (n.name as string) : `${((n.object as AnyNode).name as string)}[0]`;
    const band = parent.type === "MemberExpression" && key === "object" ? memberName(parent) : undefined;
    const listed = parent.type === "ArrayExpression" && (parent.elements as AnyNode[]).length === 1 && grand?.type === "CallExpression";
    if (band !== undefined && readOnly(path[path.length - 1]!, [path[path.length - 2], path[path.length - 3]])) {
      out.replace.push({ start: parent.start, end: parent.end, text: this.local(band, scope) });
    } else if (parent.type === "CallExpression" && key === "arguments") {
      this.call(parent, n, scope, false);
    } else if (listed && (grand!.arguments as AnyNode[]).includes(parent)) {
      this.call(grand!, parent, scope, true);
    } else if (parent.type === "VariableDeclarator" && parent.init === n && scope.aliases.get((parent.id as AnyNode).name as string) === parent) {
      out.replace.push({ start: n.start, end: n.end, text: "void 0" });
    } else if (parent.type === "VariableDeclarator" && parent.init === n && (parent.id as AnyNode).type === "ObjectPattern") {
      const pairs = destructured(parent.id as AnyNode);
      if (!pairs.length) refuse(`${what} destructures nothing from its sample`);
      out.replace.push({ start: parent.start, end: parent.end, text: pairs.map(([b, l]) => `${l}=${this.local(b, scope)}`).join(",") });
    } else if (parent.type === "MemberExpression" && key === "object" && parent.computed && band === undefined) {
      refuse(`${what} reads the sample "${label}" through a computed key (an ORBIT / TILE sample list, or a band chosen at run time)`);
    } else {
      refuse(`${what} uses the sample "${label}" other than reading sample.<band>`);
    }
  }

  /** The parameter of `band` in the scope's copy (added to its bands when new). */
  private local(band: string, scope: Scope): string {
    if (PROTO.has(band)) refuse(`${scope.what} reads sample.${band}, a name of Object.prototype`);
    const k = scope.out.bands.indexOf(band);
    return `${this.base}b${k < 0 ? scope.out.bands.push(band) - 1 : k}`;
  }

  /**
   * A call passing the sample as argument `arg` (`[sample]` when `wrapped`): the callee becomes the helper's
   * copy, the argument the bands it takes, droppable arguments past its parameters `0`.
   */
  private call(call: AnyNode, arg: AnyNode, scope: Scope, wrapped: boolean): void {
    const callee = call.callee as AnyNode;
    const args = call.arguments as AnyNode[];
    const { what, out } = scope;
    if (callee.type !== "Identifier" || call.optional) refuse(`${what} passes the sample to something other than a named function`);
    if (args.some((a) => a.type === "SpreadElement")) refuse(`${what} passes the sample in a call with a spread argument`);
    if (this.calls.has(call)) refuse(`${what} passes the sample twice to ${callee.name}`);
    this.calls.add(call);
    const helper = this.helper(callee.name as string, args.indexOf(arg), wrapped);
    out.replace.push({ start: callee.start, end: callee.end, text: helper.id });
    out.replace.push({ start: arg.start, end: arg.end, text: helper.bands.length ? helper.bands.map((b) => this.local(b, scope)).join(",") : "0" });
    for (const a of args.slice(helper.arity)) {
      const id = a.type === "ArrayExpression" && (a.elements as AnyNode[]).length === 1 ? (a.elements as AnyNode[])[0] : a;
      if (id?.type !== "Identifier" || !scope.droppable.has(id.name as string)) continue;
      out.replace.push({ start: a.start, end: a.end, text: "0" });
      this.dropped.add(id);
    }
  }

  /** The copy of helper `name` taking band values in place of its parameter `index` (made once, memoised). */
  private helper(name: string, index: number, wrapped: boolean): Helper {
    const key = `${name}/${index}/${wrapped}`;
    const known = this.helpers.get(key);
    if (known === "pending") refuse(`the sample comes back to helper ${name} (recursion)`);
    if (known) return known as Helper;
    const fn = this.top.get(name);
    if (!fn || name === "evaluatePixel" || this.bound.get(name) !== 1 || this.assigned.has(name)) {
      refuse(`the sample is passed to ${name}, which is not a top-level function declared once and never assigned`);
    }
    if (this.named.has(name)) refuse(`helper ${name} is used other than called`);
    if (fn!.async || fn!.generator) refuse(`helper ${name} is async or a generator`);
    const params = fn!.params as AnyNode[];
    if (params.some((p) => p.type !== "Identifier")) refuse(`helper ${name} has a parameter with a default, pattern or rest`);
    if (index >= params.length) refuse(`the sample is passed to ${name} beyond its parameters`);
    const sample = params[index]!.name as string;
    if (params.filter((p) => p.name === sample).length > 1) refuse(`helper ${name} declares its parameter "${sample}" twice`);
    // inside the copy (a named function expression) its own name would mean the copy, not the original
    const own = ((fn!.id as AnyNode | null)?.name as string | undefined) ?? name;
    checkShape(fn!, `helper ${name}`, new Set(["evaluatePixel", name, own]));
    this.helpers.set(key, "pending");
    const { bands, replace } = this.reads(fn!, sample, `helper ${name}`, wrapped);
    const id = `${this.base}h${this.copies.length}`;
    const swapped = bands.length ? bands.map((_, k) => `${this.base}b${k}`).join(",") : `${this.base}z`;
    const list = params.map((p, k) => (k === index ? swapped : (p.name as string))).join(",");
    this.copies.push(helperCopy(fn!, `\n;var ${id}=function ${own}(${list})`, replace));
    const helper = { id, bands, arity: params.length };
    this.helpers.set(key, helper);
    return helper;
  }
}
