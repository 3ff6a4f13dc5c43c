/**
 * AST predicates of the column-function proof (specialize.ts, samplereads.ts): what kind of identifier
 * occurrence a node is, whether a `sample.<band>` read is used as a plain value, and the refusal exception.
 */
import { walk, type AnyNode } from "../compile/ast";

/** Property names of Object.prototype: a sample read of these would find the prototype's value. */
export const PROTO = new Set(Object.getOwnPropertyNames(Object.prototype));

export const FUNCTION_TYPES = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** A refusal: thrown inside the analysis, caught by specialize.ts `columnPlan` (its message is the reason). */
export class Refused extends Error {}

/** Throws {@link Refused} with the reason `why`. */
export const refuse = (why: string): never => {
  throw new Refused(why);
};

/** The band name a member expression `sample.<name>` / `sample["name"]` reads, or undefined. */
export function memberName(m: AnyNode): string | undefined {
  const prop = m.property as AnyNode;
  if (!m.computed && prop.type === "Identifier") return prop.name as string;
  if (m.computed && prop.type === "Literal" && typeof prop.value === "string") return prop.value;
  return undefined;
}

/** A node and the key it sits under in its parent. */
export type Step = [AnyNode, string];

/**
 * Whether the member read `m` (path: `up[0]` its parent, `up[1]` the grandparent, each with the key of the
 * node below) is used as a value only: never written, deleted, called, iterated, spread or destructured.
 */
export function readOnly(m: Step, up: (Step | undefined)[]): boolean {
  const [, key] = m;
  const [parent] = up[0] ?? [];
  if (!parent) return true;
  const t = parent.type;
  if ((t === "AssignmentExpression" && key === "left") || t === "UpdateExpression" || (t === "UnaryExpression" && parent.operator === "delete")) return false;
  if (t.endsWith("Pattern") || t === "RestElement" || t === "Property" || t === "TaggedTemplateExpression" || t === "SpreadElement" || t === "ChainExpression") {
    return t === "Property" && key === "value" && up[1]?.[0].type === "ObjectExpression";
  }
  if ((t === "CallExpression" || t === "NewExpression") && key === "callee") return false;
  if ((t === "ForInStatement" || t === "ForOfStatement") && key !== "body") return false;
  if (t === "VariableDeclarator" && (parent.id as AnyNode).type !== "Identifier") return false;
  if (t === "AssignmentExpression" && (parent.left as AnyNode).type.endsWith("Pattern")) return false;
  // `sample.B04.foo()`: V8 quotes the callee's text in "... is not a function"
  const [grand] = up[1] ?? [];
  const called = grand && (grand.type === "CallExpression" || grand.type === "NewExpression") && up[0]![1] === "callee";
  return !(t === "MemberExpression" && key === "object" && (called || grand?.type === "TaggedTemplateExpression"));
}

/** Whether identifier child `key` of `parent` declares a binding (variable, function, class, parameter, catch). */
export function declaresName(parent: AnyNode | null, key: string): boolean {
  if (!parent) return false;
  if (parent.type === "VariableDeclarator" && key === "id") return true;
  if ((FUNCTION_TYPES.has(parent.type) || parent.type.startsWith("Class")) && (key === "id" || key === "params")) return true;
  return parent.type === "CatchClause" && key === "param";
}

/** Whether identifier child `key` of `parent` is a variable reference (not a property name, label or key). */
export function referenceOf(parent: AnyNode | null, key: string): boolean {
  if (!parent) return true;
  if (parent.type === "MemberExpression" && !parent.computed && key === "property") return false;
  if ((parent.type === "Property" || parent.type === "PropertyDefinition" || parent.type === "MethodDefinition") && key === "key" && !parent.computed) {
    return parent.type === "Property" && parent.shorthand === true;
  }
  return !["LabeledStatement", "BreakStatement", "ContinueStatement", "MetaProperty"].includes(parent.type);
}

/** Band names of a destructured sample `{B04, B08: nir}`: [band, local] pairs; refuses other shapes. */
export function destructured(p: AnyNode): [string, string][] {
  const out: [string, string][] = [];
  for (const prop of p.properties as AnyNode[]) {
    if (prop.type !== "Property" || prop.computed) refuse("evaluatePixel destructures its sample with rest or computed keys");
    const key = prop.key as AnyNode;
    const band = key.type === "Identifier" ? (key.name as string) : typeof key.value === "string" ? key.value : undefined;
    const value = prop.value as AnyNode;
    if (band === undefined || value.type !== "Identifier") refuse("evaluatePixel destructures its sample with defaults or nested patterns");
    if (PROTO.has(band!)) refuse(`evaluatePixel reads sample.${band}, a name of Object.prototype`);
    if (out.some(([, local]) => local === value.name)) refuse("evaluatePixel destructures a name twice");
    out.push([band!, value.name as string]);
  }
  return out;
}

/**
 * Refuses, anywhere in `fn` (nested functions included), `this`, `new.target`, `with`, `arguments` and
 * references to the names in `banned` (`what` names the function in the reason).
 */
export function checkShape(fn: AnyNode, what: string, banned: Set<string>): void {
  walk(fn, (n, parent, key) => {
    if (n.type === "ThisExpression") refuse(`${what} uses this`);
    if (n.type === "MetaProperty") refuse(`${what} uses new.target`);
    if (n.type === "WithStatement") refuse(`${what} uses with`);
    if (n.type !== "Identifier" || !referenceOf(parent, key) || (parent === fn && (key === "params" || key === "id"))) return;
    if (n.name === "arguments") refuse(`${what} uses arguments`);
    if (banned.has(n.name as string)) refuse(`${what} refers to ${n.name === "evaluatePixel" && what === "evaluatePixel" ? "itself" : n.name}`);
  });
}
