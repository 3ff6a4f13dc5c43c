/**
 * Constant-time comparison of secrets (digests, signatures), the same code in workerd and in Node (scripts/seed.ts
 * verifies the demo client under Node, where `crypto.subtle.timingSafeEqual`, a workerd extension, is undefined).
 */

const utf8 = new TextEncoder();

/**
 * True when `a` and `b` are the same string. The time taken depends only on the length of `a` (the expected value,
 * e.g. a stored digest of fixed length), never on where the strings differ nor on the content of `b`: every byte
 * of `a` is XORed with a byte of `b` (or 0 past its end) and the differences are ORed together, without branches.
 * A length mismatch is folded into the same accumulator. Compares UTF-8 bytes.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ (y[i] ?? 0);
  return diff === 0;
}
