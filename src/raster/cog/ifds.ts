/**
 * Walks the chain of image file directories (IFDs) of a TIFF or BigTIFF before geotiff.js parses it, so that a
 * hostile chain cannot make the parser loop or allocate: geotiff.js follows next-IFD offsets until one is 0 (a
 * chain that points back at itself never ends) and allocates each tag's values by the count the entry declares.
 *
 * Structure (TIFF 6.0 section 2, BigTIFF: www.awaresystems.be/imaging/tiff/bigtiff.html): an 8-byte header ("II"
 * or "MM", 42, first IFD offset as 4 bytes; BigTIFF: 16 bytes, 43, 8, 0, offset as 8 bytes); an IFD is an entry
 * count (2 bytes; BigTIFF 8), entries of 12 bytes (BigTIFF 20: tag, type, count, value or offset of the values)
 * and the next IFD's offset (4 bytes; BigTIFF 8). Values that do not fit in the entry (4 bytes; BigTIFF 8) lie
 * at the offset the entry holds.
 */
import { globals } from "geotiff";
import type { ByteSource } from "../types";
import { invalidFile } from "../errors";
import { checkLimit } from "./limits";

/** A read of the storage failed while parsing a header: its error is rethrown as it is (not a bad file). */
export class StorageFault {
  constructor(readonly error: unknown) {}
}

/** `source.read(ranges)`, its failure rejected as a StorageFault. */
export function readOrFault(source: ByteSource, ranges: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
  return source.read(ranges).catch((e: unknown) => Promise.reject(new StorageFault(e)));
}

/** Reads `length` bytes at `offset`: from `prefix` (the file's first bytes) when they hold them, else from `source`. */
async function bytesAt(source: ByteSource, prefix: ArrayBuffer, offset: number, length: number): Promise<DataView> {
  if (offset + length <= prefix.byteLength) return new DataView(prefix, offset, length);
  const [buf] = await readOrFault(source, [{ offset, length }]);
  if (!buf || buf.byteLength < length)
    throw invalidFile(`the TIFF structure at byte ${offset} lies past the end of the file (${source.size} bytes).`);
  return new DataView(buf);
}

/** Layout of the TIFF flavour: classic or BigTIFF. */
interface Flavour {
  little: boolean;
  big: boolean;
  /** Bytes of an entry count, an entry, an offset. */
  countBytes: number;
  entryBytes: number;
  offsetBytes: number;
}

const uint = (v: DataView, at: number, bytes: number, little: boolean): number =>
  bytes === 2 ? v.getUint16(at, little) : bytes === 4 ? v.getUint32(at, little) : Number(v.getBigUint64(at, little));

/** The flavour and first IFD offset from the header. @throws invalid-file for a file that is no TIFF. */
function header(v: DataView): { flavour: Flavour; first: number } {
  const order = v.byteLength >= 8 ? v.getUint16(0) : 0;
  const little = order === 0x4949;
  if (!little && order !== 0x4d4d) throw invalidFile("the file is not a TIFF (no II / MM byte-order mark).");
  const magic = v.getUint16(2, little);
  if (magic === 42)
    return {
      flavour: { little, big: false, countBytes: 2, entryBytes: 12, offsetBytes: 4 },
      first: v.getUint32(4, little),
    };
  if (magic === 43 && v.byteLength >= 16 && v.getUint16(4, little) === 8)
    return {
      flavour: { little, big: true, countBytes: 8, entryBytes: 20, offsetBytes: 8 },
      first: uint(v, 8, 8, little),
    };
  throw invalidFile(`the file is not a TIFF or BigTIFF (version ${magic}).`);
}

/**
 * Checks one IFD's entries: known field types, values within TIFF_LIMITS.tagBytes and inside the file.
 * @returns the bytes of all its values.
 */
function checkEntries(v: DataView, f: Flavour, count: number, fileSize: number, where: string): number {
  const inline = f.offsetBytes;
  let total = 0;
  for (let i = 0; i < count; i++) {
    const at = f.countBytes + i * f.entryBytes;
    const [tag, type] = [v.getUint16(at, f.little), v.getUint16(at + 2, f.little)];
    const n = uint(v, at + 4, f.offsetBytes, f.little);
    let size: number;
    try {
      size = globals.getFieldTypeSize(type as never);
    } catch {
      throw invalidFile(`${where}: tag ${tag} has the unknown field type ${type}.`);
    }
    checkLimit("tagBytes", n * size, `${where}: the values of tag ${tag}`);
    const offset = uint(v, at + 4 + f.offsetBytes, f.offsetBytes, f.little);
    if (n * size > inline && offset + n * size > fileSize)
      throw invalidFile(`${where}: the values of tag ${tag} lie past the end of the file (${fileSize} bytes).`);
    total += n * size;
  }
  return total;
}

/**
 * Follows the IFD chain of the TIFF in `source` (`prefix`: its first bytes, already read) and checks it: every IFD
 * inside the file, none visited twice (a loop), at most TIFF_LIMITS.ifds IFDs of at most TIFF_LIMITS.ifdEntries
 * entries, each entry of a known field type with values inside the file and within TIFF_LIMITS.tagBytes, all
 * values within TIFF_LIMITS.headerBytes.
 * @returns the number of IFDs.
 * @throws EngineError invalid-file naming the first breach; StorageFault when a read fails.
 */
export async function checkIfdChain(source: ByteSource, prefix: ArrayBuffer): Promise<number> {
  const { flavour: f, first } = header(new DataView(prefix, 0, Math.min(prefix.byteLength, 16)));
  const seen = new Set<number>();
  let values = 0;
  for (let offset = first; offset !== 0; ) {
    const where = `IFD ${seen.size} (at byte ${offset})`;
    if (seen.has(offset)) throw invalidFile(`the IFD chain loops: ${where} was already read.`);
    seen.add(offset);
    checkLimit("ifds", seen.size, "the number of IFDs in the chain");
    if (offset < 8 || offset + f.countBytes > source.size)
      throw invalidFile(`${where} lies outside the file (${source.size} bytes).`);
    const count = uint(await bytesAt(source, prefix, offset, f.countBytes), 0, f.countBytes, f.little);
    checkLimit("ifdEntries", count, `${where}: the number of entries`);
    const length = f.countBytes + count * f.entryBytes + f.offsetBytes;
    const ifd = await bytesAt(source, prefix, offset, length);
    values += checkEntries(ifd, f, count, source.size, where);
    checkLimit("headerBytes", values, "the bytes of the tag values of the IFDs");
    offset = uint(ifd, length - f.offsetBytes, f.offsetBytes, f.little);
  }
  if (seen.size === 0) throw invalidFile("the TIFF has no image (its first IFD offset is 0).");
  return seen.size;
}
