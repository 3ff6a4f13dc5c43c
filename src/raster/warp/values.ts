/**
 * Value scales (ValueScale of ../types.ts: stored values to other units) applied by the warp: in place over a warped
 * band (applyScale), or, for the NEAREST gather from 8- and 16-bit blocks (blockmap.ts), as a table of every value
 * the stored type holds (valueTable), so that the gather converts as it copies and no pass over the band follows.
 * Both give the same Float32 numbers: the table holds scaled(v) for each v, applyScale computes it per sample.
 */
import { Lru } from "../lru";
import type { SampleType } from "../reader";
import type { ValueScale } from "../types";
import { VALUE_TABLE_BYTES } from "../memory";

/** v converted by `s`: max(min, v + offset) * scale + add, each step only when its field is given (see ValueScale). */
export function scaled(v: number, s: ValueScale): number {
  let x = s.offset === undefined ? v : v + s.offset;
  if (s.min !== undefined && x < s.min) x = s.min;
  x = x * s.scale;
  return s.add === undefined ? x : x + s.add;
}

/**
 * Converts a warped band in place: `data` gets scaled(v) where `valid` is 1 and 0 elsewhere (`data` must be 0
 * there, as readWarped leaves it). The loop tests the mask only when the conversion maps 0 to another value than +0
 * (an offset applied and not clamped away): 1.4 against 2.0 workerd CPU ms per 1024 x 1024 NDVI request (2 Mpx;
 * V8 CPU profiles of two wrangler dev servers, 4 alternating rounds of 10 requests). Branch-free variants (no mask,
 * the options hoisted) were slower in workerd, though faster in node.
 */
export function applyScale(data: Float32Array, valid: Uint8Array, s: ValueScale): void {
  const [hasOffset, offset] = [s.offset !== undefined, s.offset ?? 0];
  const [clamp, min] = [s.min !== undefined, s.min ?? 0];
  const [hasAdd, add] = [s.add !== undefined, s.add ?? 0];
  const scale = s.scale;
  const check = !Object.is(scaled(0, s), 0);
  for (let i = 0; i < data.length; i++) {
    if (check && !valid[i]) {
      data[i] = 0;
      continue;
    }
    let v = hasOffset ? data[i]! + offset : data[i]!;
    if (clamp && v < min) v = min;
    v = v * scale;
    data[i] = hasAdd ? v + add : v;
  }
}

/** The 8- and 16-bit stored types with their smallest value (a table's index is v minus it). */
const TABLE_TYPES: Partial<Record<SampleType, { values: number; lowest: number }>> = {
  UINT8: { values: 256, lowest: 0 },
  INT8: { values: 256, lowest: -128 },
  UINT16: { values: 65536, lowest: 0 },
  INT16: { values: 65536, lowest: -32768 },
};

/** Whether `type` has value tables (8- and 16-bit integers). */
export const hasValueTable = (type: SampleType): boolean => TABLE_TYPES[type] !== undefined;

/** Tables per stored type, nodata and scale, within VALUE_TABLE_BYTES (src/raster/memory.ts): 256 KiB per 16-bit table. */
export const tableCache = new Lru<Float32Array>(8, VALUE_TABLE_BYTES, (t) => t.byteLength);

/**
 * What the NEAREST gather stores for each value of `type` (index v - bias): 0 for `nodata` (Float32, NaN: none),
 * else v converted by `s` (as is without). Kept per isolate (tableCache). Null for other types.
 */
export function valueTable(
  type: SampleType,
  nodata: number,
  s: ValueScale | null,
): { table: Float32Array; bias: number } | null {
  const t = TABLE_TYPES[type];
  if (!t) return null;
  const key = [type, nodata, s ? [s.offset, s.min, s.scale, s.add].join(",") : "-"].join("|");
  let table = tableCache.get(key);
  if (!table) {
    table = new Float32Array(t.values);
    for (let i = 0; i < t.values; i++) {
      const v = i + t.lowest;
      table[i] = v === nodata ? 0 : s ? scaled(v, s) : v;
    }
    tableCache.set(key, table);
  }
  return { table, bias: -t.lowest };
}
