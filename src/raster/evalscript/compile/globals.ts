/**
 * Which free names of a script the wrapper binds as locals. Why: workerd compiles CommonJS modules with a
 * scope extension object, so every global lookup in the script (Math, index, an implicit global) is a dynamic
 * lookup, 5-10x slower per access than a local (binding only the implicit globals, simple_water_bodies 1024²
 * took 1510 against 338 ms of eval: issue 39 A/B, interleaved, loaded machine). The wrapper declares, in a
 * function enclosing the script, `var Math = globals.Math, ...` for:
 * - builtins and library functions the script uses but never declares;
 * - implicit globals: every name the script assigns (sloppy mode would create a global; here the variable lives
 *   in the script instance instead, fresh for every call, initialised from the global). Also names declared
 *   somewhere (`let i` in one function) and assigned undeclared elsewhere (`i = 0` in another): a declaration
 *   shadows the wrapper's variable, and globalThis is frozen (sandbox/harden.ts), so a global would not be made.
 * Builtins declared in the script are left alone, as are unknown names that are only read (a V1 band variable
 * like `B04` must stay a ReferenceError).
 */
import type { Node } from "acorn";
import { walk, type AnyNode } from "./ast";

/** Standard globals worth binding (read often in per-pixel code). */
const BUILTINS = [
  "Math",
  "Date",
  "Array",
  "Object",
  "Number",
  "String",
  "Boolean",
  "JSON",
  "parseFloat",
  "parseInt",
  "isNaN",
  "isFinite",
  "Infinity",
  "NaN",
  "undefined",
  "Error",
  "TypeError",
  "RangeError",
  "Map",
  "Set",
  "WeakMap",
  "Symbol",
  "RegExp",
  "Reflect",
  "Float32Array",
  "Float64Array",
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "ArrayBuffer",
  "DataView",
  "BigInt",
  "console",
  "globalThis",
];

/** Never bound: special or reserved identifiers. */
const NEVER = new Set([
  "arguments",
  "eval",
  "let",
  "yield",
  "await",
  "static",
  "implements",
  "interface",
  "package",
  "private",
  "protected",
  "public",
]);

/** Identifiers bound by a declaration pattern (`a`, `{a, b: [c]}`, `...d`, `e = 1`), added to `out`. */
export function patternNames(p: AnyNode | null | undefined, out: { add(name: string): unknown }): void {
  if (!p) return;
  if (p.type === "Identifier") out.add(p.name as string);
  else if (p.type === "ObjectPattern")
    for (const prop of p.properties as AnyNode[]) patternNames((prop.value ?? prop.argument) as AnyNode, out);
  else if (p.type === "ArrayPattern") for (const el of p.elements as (AnyNode | null)[]) patternNames(el, out);
  else if (p.type === "RestElement") patternNames(p.argument as AnyNode, out);
  else if (p.type === "AssignmentPattern") patternNames(p.left as AnyNode, out);
}

/** Whether identifier `child` under `parent` (as `key`) is a reference (not a property name or label). */
function isReference(parent: AnyNode, key: string): boolean {
  if (
    (parent.type === "MemberExpression" ||
      parent.type === "PropertyDefinition" ||
      parent.type === "MethodDefinition") &&
    !parent.computed
  ) {
    return key !== "property" && key !== "key";
  }
  if (parent.type === "Property" && !parent.computed && key === "key") return false;
  return !["LabeledStatement", "BreakStatement", "ContinueStatement", "MetaProperty", "ExportSpecifier"].includes(
    parent.type,
  );
}

/** Names a program declares, reads and assigns (scope-agnostic); `members`: property names assigned (`o.x = ...`). */
export interface NameScan {
  declared: Set<string>;
  referenced: Set<string>;
  assigned: Set<string>;
  members: Set<string>;
}

/** Scans a program's identifiers. */
export function scanNames(program: Node): NameScan {
  const s: NameScan = { declared: new Set(), referenced: new Set(), assigned: new Set(), members: new Set() };
  walk(program, (n, parent, key) => {
    if (n.type === "Identifier" && parent && isReference(parent, key)) s.referenced.add(n.name as string);
    if (n.type === "VariableDeclarator") patternNames(n.id as AnyNode, s.declared);
    if (/^(Function|Class)(Declaration|Expression)$/.test(n.type) && n.id) patternNames(n.id as AnyNode, s.declared);
    if (Array.isArray(n.params)) for (const p of n.params as AnyNode[]) patternNames(p, s.declared);
    if (n.type === "CatchClause") patternNames(n.param as AnyNode, s.declared);
    if (n.type === "AssignmentExpression" || n.type === "ForInStatement" || n.type === "ForOfStatement")
      patternNames(n.left as AnyNode, s.assigned);
    if (n.type === "UpdateExpression") patternNames(n.argument as AnyNode, s.assigned);
    const left = n.left as AnyNode | undefined;
    if (n.type === "AssignmentExpression" && left?.type === "MemberExpression") {
      const prop = left.property as AnyNode;
      s.members.add(String(prop.name ?? prop.value));
    }
  });
  return s;
}

/**
 * Names to bind as locals for a scanned program: free builtins / `library` names it reads and implicit
 * globals it assigns. Sorted for a stable wrapper text.
 */
export function bindableGlobals(scan: NameScan, library: readonly string[]): string[] {
  const { declared, referenced, assigned } = scan;
  const known = new Set([...BUILTINS, ...library]);
  const names = new Set<string>();
  for (const name of referenced) if (known.has(name) && !declared.has(name)) names.add(name);
  for (const name of assigned) names.add(name);
  return [...names].filter((n) => !NEVER.has(n) && /^[A-Za-z_$][\w$]*$/.test(n)).sort();
}
