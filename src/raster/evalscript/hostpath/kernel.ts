/**
 * The shape of an interpreter kernel (./interpret.ts): one operation over the first n pixels of a block, from
 * registers a, b, c into register d (Float64Arrays of BLOCK values), with the operation's table index k.
 */
import type { RampTable } from "./program";

export type Kernel = (
  d: Float64Array,
  a: Float64Array,
  b: Float64Array,
  c: Float64Array,
  n: number,
  k: number,
  ramps: RampTable[],
) => void;
