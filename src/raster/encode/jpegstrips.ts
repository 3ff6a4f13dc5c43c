/**
 * One baseline JPEG from strips encoded on their own (a large image's RGBA never exists whole). Every
 * strip is a complete baseline JPEG of whole MCU rows (MozJPEG, ./jpeg.ts, with the same options: the same
 * quantisation tables and sampling), but with its own Huffman tables (fitted to the strip) and its DC predictions
 * starting at 0 (ITU T.81 F.1.2.1). So each strip's entropy-coded data is decoded symbol by symbol and coded again
 * with the standard tables of T.81 Annex K.3 (they hold every symbol of 8-bit baseline JPEG), each block's DC
 * difference taken from the previous block of its component across strips: the AC coefficients' bits are copied
 * as they are. The file is the first strip's headers with the full height in its frame header (SOF0) and the
 * Annex K tables (DHT), then one scan: the same kind of file as one call would write, no restart markers.
 */

/** DHT payloads of T.81 Annex K.3 (Tc/Th, the 16 code counts, the symbols): DC and AC luminance, DC and AC chrominance. */
const ANNEX_K_TABLES = [
  "0000010501010101010100000000000000000102030405060708090a0b",
  "100002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa",
  "0100030101010101010101010000000000000102030405060708090a0b",
  "1100020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa",
].map((hex) => Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16)));

/**
 * A Huffman table: for encoding, each symbol's code and length; for decoding (`lookup`, made on request: 128 KiB),
 * each code of up to 16 bits, left-aligned, -> length << 8 | symbol.
 */
interface Huffman {
  code: Uint16Array;
  length: Uint8Array;
  lookup?: Uint16Array;
}

/** The {@link Huffman} of a DHT table: `counts` of codes per length 1-16, then their symbols (T.81 C, Figure C.1-C.3). */
function huffman(counts: Uint8Array, symbols: Uint8Array, decode: boolean): Huffman {
  const lookup = decode ? new Uint16Array(1 << 16) : undefined;
  const code = new Uint16Array(256);
  const length = new Uint8Array(256);
  for (let len = 1, c = 0, k = 0; len <= 16; len++, c <<= 1) {
    for (let i = 0; i < counts[len - 1]!; i++, c++, k++) {
      const s = symbols[k]!;
      code[s] = c;
      length[s] = len;
      const from = c << (16 - len);
      lookup?.fill((len << 8) | s, from, from + (1 << (16 - len)));
    }
  }
  return { code, length, lookup };
}

/** The Huffman tables of DHT payloads, by Tc << 4 | Th (0x00 DC 0, 0x10 AC 0, ...); with `decode`, their lookups. */
function tables(payloads: Uint8Array[], decode: boolean): Map<number, Huffman> {
  const out = new Map<number, Huffman>();
  for (const p of payloads) {
    for (let at = 0; at < p.length; ) {
      const counts = p.subarray(at + 1, at + 17);
      const n = counts.reduce((a, b) => a + b, 0);
      out.set(p[at]!, huffman(counts, p.subarray(at + 17, at + 17 + n), decode));
      at += 17 + n;
    }
  }
  return out;
}

const STANDARD = tables(ANNEX_K_TABLES, false);

/** Reads the bits of entropy-coded data (0xFF 0x00 stuffing removed; past the end, 1 bits). */
class BitReader {
  private at = 0;
  private acc = 0;
  private n = 0;
  constructor(private readonly data: Uint8Array) {}
  private fill(): void {
    while (this.n < 24) {
      let b = 0xff;
      if (this.at < this.data.length) {
        b = this.data[this.at++]!;
        if (b === 0xff && this.data[this.at] === 0) this.at++;
      }
      this.acc = ((this.acc << 8) | b) >>> 0;
      this.n += 8;
    }
  }
  /** The next symbol of table `h` (its code consumed). */
  symbol(h: Huffman): number {
    this.fill();
    const e = h.lookup![(this.acc >>> (this.n - 16)) & 0xffff]!;
    const len = e >> 8;
    if (len === 0) throw new Error("JPEG strip: a Huffman code not in its table");
    this.n -= len;
    return e & 0xff;
  }
  /** The next `k` bits (0-16) as a number. */
  bits(k: number): number {
    if (k === 0) return 0;
    this.fill();
    this.n -= k;
    return (this.acc >>> this.n) & ((1 << k) - 1);
  }
}

/** Writes entropy-coded data (0xFF stuffed with 0x00) into chunks. */
class BitWriter {
  private chunk = new Uint8Array(1 << 16);
  private at = 0;
  private acc = 0;
  private n = 0;
  readonly chunks: Uint8Array[] = [];
  private byte(b: number): void {
    if (this.at === this.chunk.length) {
      this.chunks.push(this.chunk);
      this.chunk = new Uint8Array(1 << 16);
      this.at = 0;
    }
    this.chunk[this.at++] = b;
  }
  /** Appends the low `k` bits (0-16) of `v`. */
  put(v: number, k: number): void {
    this.acc = (this.acc << k) | (v & ((1 << k) - 1));
    this.n += k;
    while (this.n >= 8) {
      this.n -= 8;
      const b = (this.acc >>> this.n) & 0xff;
      this.byte(b);
      if (b === 0xff) this.byte(0);
    }
    this.acc &= (1 << this.n) - 1;
  }
  /** Pads to a byte with 1 bits (T.81 F.1.2.3), then writes the EOI marker. */
  end(): void {
    if (this.n > 0) this.put(0x7f, 8 - this.n);
    this.byte(0xff);
    this.byte(0xd9);
  }
  /** The bytes written, in one array. */
  bytes(): Uint8Array {
    this.chunks.push(this.chunk.subarray(0, this.at));
    const out = new Uint8Array(this.chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** A component of a scan: blocks per MCU (H x V, or 1 in a one-component scan) and its DC and AC table ids. */
interface ScanComponent {
  h: number;
  v: number;
  dc: number;
  ac: number;
}

/** A parsed baseline JPEG of one scan: its segments before SOS, the scan's components, its entropy-coded data. */
interface Parsed {
  segments: { marker: number; payload: Uint8Array }[];
  sos: Uint8Array;
  components: ScanComponent[];
  data: Uint8Array;
  width: number;
  height: number;
}

/** Parses a baseline JPEG with one scan as MozJPEG writes it; throws when it is another kind (a bug, not bad input). */
function parse(file: Uint8Array): Parsed {
  const segments: Parsed["segments"] = [];
  const frame = new Map<number, { h: number; v: number }>();
  let width = 0,
    height = 0;
  for (let at = 2; at + 4 <= file.length; ) {
    if (file[at] !== 0xff) break;
    const marker = file[at + 1]!;
    const payload = file.subarray(at + 4, at + 2 + ((file[at + 2]! << 8) | file[at + 3]!));
    if (marker === 0xc0) {
      height = (payload[1]! << 8) | payload[2]!;
      width = (payload[3]! << 8) | payload[4]!;
      for (let c = 0; c < payload[5]!; c++)
        frame.set(payload[6 + 3 * c]!, { h: payload[7 + 3 * c]! >> 4, v: payload[7 + 3 * c]! & 15 });
    }
    if (marker === 0xda) {
      if (frame.size === 0 || file[file.length - 2] !== 0xff || file[file.length - 1] !== 0xd9) break;
      const n = payload[0]!;
      const components = Array.from({ length: n }, (_, c) => {
        const f = frame.get(payload[1 + 2 * c]!)!;
        const t = payload[2 + 2 * c]!;
        return { h: n > 1 ? f.h : 1, v: n > 1 ? f.v : 1, dc: t >> 4, ac: t & 15 };
      });
      return {
        segments,
        sos: payload,
        components,
        data: file.subarray(payload.byteOffset - file.byteOffset + payload.length, file.length - 2),
        width,
        height,
      };
    }
    segments.push({ marker, payload });
    at += 2 + payload.length + 2;
  }
  throw new Error("the JPEG encoder's output is not a baseline JPEG with one scan");
}

/** MCU width and height in pixels of a scan (T.81 A.2: 8 x 8 for one component, else 8 x the largest factors). */
function mcuSize(components: ScanComponent[]): { w: number; h: number } {
  return { w: 8 * Math.max(...components.map((c) => c.h)), h: 8 * Math.max(...components.map((c) => c.v)) };
}

/** The table id a component's symbols are re-coded with: 0 (luminance) for the first, 1 (chrominance) for others. */
const standardId = (c: number) => (c === 0 ? 0 : 1);

/** The DC difference coded by `bits`, the `size` bits after its symbol (T.81 F.2.2.1, EXTEND). */
const extend = (bits: number, size: number) => (size > 0 && bits < 1 << (size - 1) ? bits - (1 << size) + 1 : bits);

/** Bits of a DC difference's magnitude: its symbol (T.81 Table F.1; 0-11 for 8-bit samples). */
const magnitude = (diff: number) => (diff === 0 ? 0 : 32 - Math.clz32(Math.abs(diff)));

/**
 * Codes the entropy-coded data of `strip` again with the Annex K tables into `out` (T.81 F.1.2.1-F.1.2.2);
 * `pred`: each scan component's last DC value (quantised) before this strip, updated.
 */
function recode(strip: Parsed, out: BitWriter, pred: number[]): void {
  const own = tables(
    strip.segments.filter((s) => s.marker === 0xc4).map((s) => s.payload),
    true,
  );
  const plan = strip.components.map((c, i) => ({
    blocks: c.h * c.v,
    dcIn: own.get(c.dc)!,
    acIn: own.get(0x10 | c.ac)!,
    dcOut: STANDARD.get(standardId(i))!,
    acOut: STANDARD.get(0x10 | standardId(i))!,
  }));
  if (plan.some((p) => !p.dcIn || !p.acIn)) throw new Error("JPEG strip: a scan table is not defined");
  const mcu = mcuSize(strip.components);
  const mcus = Math.ceil(strip.width / mcu.w) * Math.ceil(strip.height / mcu.h);
  const local = plan.map(() => 0);
  const r = new BitReader(strip.data);
  for (let m = 0; m < mcus; m++) {
    plan.forEach((p, c) => {
      for (let b = 0; b < p.blocks; b++) {
        const size = r.symbol(p.dcIn);
        const dc = local[c]! + extend(r.bits(size), size);
        const diff = dc - pred[c]!;
        local[c] = pred[c] = dc;
        const k = magnitude(diff);
        out.put(p.dcOut.code[k]!, p.dcOut.length[k]!);
        out.put(diff < 0 ? diff - 1 : diff, k);
        recodeAc(r, p.acIn, out, p.acOut);
      }
    });
  }
}

/** Codes a block's AC coefficients again: their symbols from `from` into `to`, their bits as they are. */
function recodeAc(r: BitReader, from: Huffman, out: BitWriter, to: Huffman): void {
  for (let k = 1; k < 64; ) {
    const rs = r.symbol(from);
    out.put(to.code[rs]!, to.length[rs]!);
    if (rs === 0) return; // EOB
    out.put(r.bits(rs & 15), rs & 15);
    k += (rs >> 4) + 1;
  }
}

/** A marker segment's bytes. */
const segment = (marker: number, payload: Uint8Array) =>
  Uint8Array.of(0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload);

/** The headers of the file from the first strip: its segments less DHT, the full height, Annex K DHT, SOS. */
function header(first: Parsed, height: number): Uint8Array[] {
  const out = [Uint8Array.of(0xff, 0xd8)];
  for (const { marker, payload } of first.segments) {
    if (marker === 0xc4) continue;
    const p = payload.slice();
    if (marker === 0xc0) p.set([height >> 8, height & 0xff], 1);
    out.push(segment(marker, p));
  }
  const used = first.components.length > 1 ? ANNEX_K_TABLES : ANNEX_K_TABLES.slice(0, 2);
  out.push(...used.map((t) => segment(0xc4, t)));
  const sos = first.sos.slice();
  first.components.forEach((_, i) => (sos[2 + 2 * i] = standardId(i) * 0x11));
  out.push(segment(0xda, sos));
  return out;
}

/**
 * One JPEG of `height` rows from strips of `rows` rows (a multiple of every MCU height, 16) encoded on their own:
 * `encode(y0, y1)` returns a complete baseline JPEG of rows y0 to y1, each strip with the same quantisation tables
 * and sampling (the same encoder options). Holds one strip's file at a time beside the output.
 * @throws Error when a strip is not a baseline JPEG of one scan as expected (a bug, not bad input).
 */
export function joinStrips(height: number, rows: number, encode: (y0: number, y1: number) => Uint8Array): Uint8Array {
  const out = new BitWriter();
  let head: Uint8Array[] = [];
  let pred: number[] = [];
  for (let y0 = 0; y0 < height; y0 += rows) {
    const strip = parse(encode(y0, Math.min(height, y0 + rows)));
    if (y0 === 0) {
      head = header(strip, height);
      pred = strip.components.map(() => 0);
    }
    recode(strip, out, pred);
  }
  out.end();
  out.chunks.unshift(...head);
  return out.bytes();
}
