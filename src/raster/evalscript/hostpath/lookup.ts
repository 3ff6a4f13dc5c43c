/**
 * A superinstruction of column programs (./fuse.ts): a chain of choices on strict equality with small integer
 * constants, as a `switch` over a class band writes it (`switch (s.SCL) { case 4: return [0, 0.6, 0]; ... }`,
 * or `x === 4 ? 0.6 : x === 5 ? 1 : ...`), each case a constant, becomes one table lookup (LOOKUP) instead of
 * a comparison and a choice per case (scene-classification: 48 loops over a block became 3).
 * Exactly the JavaScript: x === K for an integer K in [0, 255] holds for x = K and for x = -0 when K = 0, never
 * for NaN; the kernel takes j = x | 0 and table[j] when j === x and 0 <= j <= 255, the chain's last value else.
 */
import { OP, type Operation } from "./ops";

/** Table entries: 256 keys, then the value when no key matches. */
export const LOOKUP_SIZE = 257;

/**
 * Rewrites in `ops` each SELECT chain of at least `min` cases of constant keys in [0, 255] and constant values
 * into LOOKUP (same destination; the chain's other operations are left for the dead-code pass).
 * @param def each virtual register's defining operation; known the constant registers.
 */
export function lookups(ops: Operation[], def: Map<number, Operation>, known: Map<number, number>, min = 3): void {
  /** The case of a SELECT: its compared register, key and value; undefined when it is not one. */
  const caseOf = (o: Operation | undefined) => {
    if (o?.code !== OP.SELECT || !known.has(o.b)) return undefined;
    const t = def.get(o.a);
    if (t?.code !== OP.SEQ) return undefined;
    const [x, key] = known.has(t.b) ? [t.a, known.get(t.b)!] : [t.b, known.get(t.a)];
    if (key === undefined || known.has(x) || !Number.isInteger(key) || key < 0 || key > 255) return undefined;
    return { x, key: key === 0 ? 0 : key, value: known.get(o.b)!, next: o.c };
  };
  ops.forEach((o, i) => {
    const first = caseOf(o);
    if (!first) return;
    const cases = [first];
    let end = first.next;
    for (let c = caseOf(def.get(end)); c && c.x === first.x; c = caseOf(def.get(end))) {
      cases.push(c);
      end = c.next;
    }
    if (cases.length < min || !known.has(end)) return;
    const table = new Float64Array(LOOKUP_SIZE).fill(known.get(end)!);
    for (let k = cases.length - 1; k >= 0; k--) table[cases[k]!.key] = cases[k]!.value; // the first case wins
    ops[i] = { ...o, code: OP.LOOKUP, a: first.x, b: -1, c: -1, table };
  });
}
