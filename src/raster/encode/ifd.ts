/**
 * Serialises one classic little-endian TIFF Image File Directory (TIFF 6.0, section 2: "Image File Directory").
 * An entry is 12 bytes (tag, field type, count, value-or-offset); values longer than 4 bytes go to a data area
 * right after the IFD, each starting on a word (2-byte) boundary as the spec requires.
 */

/** TIFF field types used here, with their TIFF 6.0 type codes and sizes in bytes. */
const FIELD = {
  ASCII: { code: 2, size: 1 },
  SHORT: { code: 3, size: 2 },
  LONG: { code: 4, size: 4 },
  DOUBLE: { code: 12, size: 8 },
} as const;

export type FieldType = keyof typeof FIELD;

/** One IFD entry; ASCII values are written NUL-terminated. */
export interface TiffEntry {
  tag: number;
  type: FieldType;
  values: readonly number[] | string;
}

function count(e: TiffEntry): number {
  return typeof e.values === "string" ? e.values.length + 1 : e.values.length;
}

function valueBytes(e: TiffEntry): number {
  return count(e) * FIELD[e.type].size;
}

/** Size in bytes of the IFD of `entries` including its overflow data area (does not depend on values). */
export function ifdSize(entries: readonly TiffEntry[]): number {
  let size = 2 + entries.length * 12 + 4;
  for (const e of entries) {
    const n = valueBytes(e);
    if (n > 4) size += n + (n & 1);
  }
  return size;
}

function writeValues(view: DataView, at: number, e: TiffEntry): void {
  const { type, values } = e;
  if (typeof values === "string") {
    for (let i = 0; i < values.length; i++) view.setUint8(at + i, values.charCodeAt(i) & 0x7f);
    view.setUint8(at + values.length, 0);
    return;
  }
  values.forEach((v, i) => {
    if (type === "SHORT") view.setUint16(at + 2 * i, v, true);
    else if (type === "LONG") view.setUint32(at + 4 * i, v, true);
    else if (type === "DOUBLE") view.setFloat64(at + 8 * i, v, true);
    else view.setUint8(at + i, v);
  });
}

/**
 * Writes the IFD into `out` at byte `offset` (entries are sorted by tag, as TIFF requires); the next-IFD
 * offset is 0 (a single image). Returns the byte just past the IFD and its data area.
 * `origin`: the file offset of `out[0]` (default 0, `out` is the file from its start); value offsets written
 * into entries are file offsets, so an IFD can be built in a buffer that lands later in the file.
 */
export function writeIfd(out: Uint8Array, offset: number, entries: readonly TiffEntry[], origin = 0): number {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint16(offset, sorted.length, true);
  let data = offset + 2 + sorted.length * 12 + 4;
  sorted.forEach((e, i) => {
    const at = offset + 2 + i * 12;
    view.setUint16(at, e.tag, true);
    view.setUint16(at + 2, FIELD[e.type].code, true);
    view.setUint32(at + 4, count(e), true);
    const n = valueBytes(e);
    if (n <= 4) writeValues(view, at + 8, e);
    else {
      view.setUint32(at + 8, origin + data, true);
      writeValues(view, data, e);
      data += n + (n & 1);
    }
  });
  view.setUint32(offset + 2 + sorted.length * 12, 0, true);
  return data;
}
