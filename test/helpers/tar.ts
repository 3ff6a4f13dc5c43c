/**
 * Strict ustar reading for tests, independent of the writer's library (nanotar): every 512-byte header's checksum
 * is verified as POSIX.1-1988 defines it (sum of the header's bytes as unsigned, the 8-byte chksum field at
 * offset 148 counted as spaces, stored as octal digits), and the archive must end with two zero blocks.
 */

/** One regular-file member. */
export interface TarMember {
  name: string;
  size: number;
  typeflag: string;
  data: Uint8Array;
}

const BLOCK = 512;

function text(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

function octal(bytes: Uint8Array): number {
  const digits = text(bytes).trim();
  if (!/^[0-7]+$/.test(digits)) throw new Error(`tar: not an octal field: '${digits}'`);
  return parseInt(digits, 8);
}

/** The checksum of a header block with its chksum field taken as eight spaces. */
export function headerChecksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}

/** Reads every member; throws on a bad checksum, a missing "ustar" magic or a missing end-of-archive marker. */
export function readTar(tar: Uint8Array): TarMember[] {
  const members: TarMember[] = [];
  for (let at = 0; ; ) {
    if (at + 2 * BLOCK > tar.length) throw new Error("tar: no end-of-archive marker (two zero blocks)");
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) {
      if (!tar.subarray(at + BLOCK, at + 2 * BLOCK).every((b) => b === 0)) throw new Error("tar: single zero block");
      return members;
    }
    const stored = octal(header.subarray(148, 156)),
      computed = headerChecksum(header);
    if (stored !== computed) throw new Error(`tar: header checksum ${stored} != ${computed} at byte ${at}`);
    if (text(header.subarray(257, 263)) !== "ustar") throw new Error(`tar: no ustar magic at byte ${at}`);
    const size = octal(header.subarray(124, 136));
    const name = text(header.subarray(0, 100));
    members.push({
      name,
      size,
      typeflag: String.fromCharCode(header[156]!),
      data: tar.subarray(at + BLOCK, at + BLOCK + size),
    });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
}
