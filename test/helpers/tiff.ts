/**
 * Hostile GeoTIFFs for tests, made from real GDAL-written COGs (data/) by byte-level patches of their IFDs (TIFF 6.0
 * section 2: little-endian classic TIFF, 12-byte entries), and a DEFLATE "bomb" written bit by bit (RFC 1950 / 1951:
 * one fixed-Huffman block of 258-byte matches, about 1:160), independent of any compressor library.
 */

/** TIFF tags the tests patch. */
export const TAG = { TileWidth: 322, TileOffsets: 324, TileByteCounts: 325 } as const;

/** A copy of a little-endian classic TIFF, patched in place. */
export class TiffPatch {
  bytes: Uint8Array;

  constructor(file: ArrayBuffer) {
    this.bytes = new Uint8Array(file.slice(0));
    if (this.view.getUint16(0) !== 0x4949 || this.view.getUint16(2, true) !== 42)
      throw new Error("not a little-endian classic TIFF");
  }

  private get view(): DataView {
    return new DataView(this.bytes.buffer);
  }

  /** Byte offset of IFD `n` (0 = the first). */
  ifd(n = 0): number {
    let at = this.view.getUint32(4, true);
    for (let i = 0; i < n; i++) at = this.view.getUint32(this.nextAt(at), true);
    return at;
  }

  /** Where the next-IFD offset of the IFD at `ifd` is stored. */
  nextAt(ifd: number): number {
    return ifd + 2 + this.view.getUint16(ifd, true) * 12;
  }

  /** Points the next-IFD offset of IFD `n` at byte `offset`. */
  setNext(n: number, offset: number): this {
    this.view.setUint32(this.nextAt(this.ifd(n)), offset, true);
    return this;
  }

  /** The entry of `tag` in IFD `n`: its field type, count and where its values are. */
  private entry(n: number, tag: number): { type: number; count: number; at: number } {
    const ifd = this.ifd(n);
    for (let i = 0; i < this.view.getUint16(ifd, true); i++) {
      const e = ifd + 2 + i * 12;
      if (this.view.getUint16(e, true) !== tag) continue;
      const [type, count] = [this.view.getUint16(e + 2, true), this.view.getUint32(e + 4, true)];
      const size = type === 3 ? 2 : 4;
      return { type, count, at: count * size <= 4 ? e + 8 : this.view.getUint32(e + 8, true) };
    }
    throw new Error(`tag ${tag} not in IFD ${n}`);
  }

  /** The SHORT / LONG values of `tag` in IFD `n`. */
  values(n: number, tag: number): number[] {
    const { type, count, at } = this.entry(n, tag);
    return Array.from({ length: count }, (_, i) =>
      type === 3 ? this.view.getUint16(at + 2 * i, true) : this.view.getUint32(at + 4 * i, true),
    );
  }

  /** Overwrites value `i` of `tag` in IFD `n` (SHORT or LONG). */
  set(n: number, tag: number, value: number, i = 0): this {
    const { type, at } = this.entry(n, tag);
    if (type === 3) this.view.setUint16(at + 2 * i, value, true);
    else this.view.setUint32(at + 4 * i, value, true);
    return this;
  }

  /** Appends `data` at the end of the file; returns its offset. */
  append(data: Uint8Array): number {
    const offset = this.bytes.length;
    const grown = new Uint8Array(offset + data.length);
    grown.set(this.bytes);
    grown.set(data, offset);
    this.bytes = grown;
    return offset;
  }

  /** Makes block `i` of IFD 0 the bytes `data` (appended to the file). */
  replaceBlock(i: number, data: Uint8Array): this {
    const offset = this.append(data);
    return this.set(0, TAG.TileOffsets, offset, i).set(0, TAG.TileByteCounts, data.length, i);
  }

  /** The stored bytes of block `i` of IFD 0 (a view into the file). */
  block(i: number): Uint8Array {
    const [offset, count] = [this.values(0, TAG.TileOffsets)[i]!, this.values(0, TAG.TileByteCounts)[i]!];
    return this.bytes.subarray(offset, offset + count);
  }

  get buffer(): ArrayBuffer {
    return this.bytes.slice().buffer;
  }
}

/**
 * A zlib stream (RFC 1950) that inflates to `1 + 258 * matches` zero bytes: one fixed-Huffman block (RFC 1951
 * 3.2.6) of a literal 0 and `matches` copies of (length 258, distance 1), then its Adler-32 (of zeros: a = 1,
 * b = length mod 65521).
 */
export function deflateBomb(matches: number): Uint8Array {
  const out = new Uint8Array(Math.ceil((3 + 8 + matches * 13 + 7) / 8) + 2 + 4 + 1);
  out.set([0x78, 0x01]); // CMF / FLG: deflate, 32K window, no dictionary; (0x78 * 256 + 0x01) % 31 == 0
  let bit = 16;
  const bits = (value: number, count: number) => {
    for (let i = 0; i < count; i++, bit++) if ((value >> i) & 1) out[bit >> 3]! |= 1 << (bit & 7);
  };
  const code = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits(value >> i, 1); // Huffman codes go most significant bit first
  };
  bits(1, 1); // BFINAL
  bits(1, 2); // BTYPE 01: fixed Huffman codes
  code(0x30, 8); // literal 0
  for (let m = 0; m < matches; m++) {
    code(0xc5, 8); // length code 285 (258 bytes): 11000101
    code(0, 5); // distance code 0 (distance 1)
  }
  code(0, 7); // end of block (256)
  const end = (bit + 7) >> 3;
  const length = 1 + 258 * matches;
  new DataView(out.buffer).setUint32(end, (((length % 65521) << 16) | 1) >>> 0);
  return out.subarray(0, end + 4);
}
