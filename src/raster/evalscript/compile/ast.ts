/** Minimal ESTree traversal over acorn nodes (acorn-walk is not a dependency; this is all the runtime needs). */
import type { Node } from "acorn";

/** An acorn node with its fields reachable by name. */
export type AnyNode = Node & Record<string, unknown>;

/** Calls `fn(child, key)` for each direct child node of `node` (array members included), in source order. */
export function forEachChild(node: AnyNode, fn: (child: AnyNode, key: string) => void): void {
  for (const key of Object.keys(node)) {
    if (key === "loc") continue;
    const v = node[key];
    for (const c of Array.isArray(v) ? v : [v]) {
      if (c && typeof c === "object" && typeof (c as AnyNode).type === "string") fn(c as AnyNode, key);
    }
  }
}

/** Calls `visit(node, parent, key)` for every node of the tree, pre-order. */
export function walk(root: Node, visit: (node: AnyNode, parent: AnyNode | null, key: string) => void): void {
  const go = (node: AnyNode, parent: AnyNode | null, key: string): void => {
    visit(node, parent, key);
    forEachChild(node, (child, k) => go(child, node, k));
  };
  go(root as AnyNode, null, "");
}
