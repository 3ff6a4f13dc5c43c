/**
 * The Zarr reader's defences against hostile stores (limits in ./limits.ts):
 * - `guardedStore`: the zarrita store every read goes through. Metadata objects are read only up to
 *   ZARR_LIMITS.metadataBytes; each `.zarray` is checked (zarrayProblems) before zarrita sees it; a chunk object is
 *   read only when no larger than its array's chunks can be stored in (storedChunkBytes), an uncompressed one only
 *   when exactly that size.
 * - zarrita's "zlib" and "gzip" codecs are replaced (in its codec registry, on import) by ones that inflate at
 *   most one chunk (src/raster/codec/bounded.ts) and require exactly one chunk.
 * Every breach is an EngineError invalid-file.
 */
import * as zarr from "zarrita";
import type { AbsolutePath, AsyncReadable } from "zarrita";
import { inflateAtMost, type InflateFormat } from "../codec/bounded";
import { EngineError, invalidFile } from "../errors";
import { dtypeBytes, storedChunkBytes, ZARR_LIMITS, zarrayProblems } from "./limits";

/** Whole objects of a store; `get` refuses (EngineError invalid-file) an object over `maxBytes` before reading it. */
export interface ObjectSource {
  get(key: AbsolutePath, maxBytes: number): Promise<Uint8Array | undefined>;
}

const METADATA = new Set([".zarray", ".zgroup", ".zattrs"]);

/** The chunk bound of the array whose `.zarray` is `bytes` (at `key`). @throws invalid-file naming its problems. */
function checkedZarray(key: string, bytes: Uint8Array): { stored: number; exact: boolean } {
  const name = key.slice(1, -"/.zarray".length) || "/";
  let meta: { chunks: number[]; dtype: string; compressor: unknown };
  try {
    meta = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw invalidFile(`array ${name}: its .zarray is not valid JSON.`);
  }
  const problems = zarrayProblems(name, meta);
  if (problems.length) throw invalidFile(`${problems.join("; ")}.`);
  const decoded = meta.chunks.reduce((a, b) => a * b, dtypeBytes(meta.dtype));
  return { stored: storedChunkBytes(decoded, meta.compressor !== null), exact: meta.compressor === null };
}

/** A zarrita store over `objects` that refuses hostile metadata and chunks (see the module comment). */
export function guardedStore(objects: ObjectSource): AsyncReadable {
  const arrays = new Map<string, { stored: number; exact: boolean }>();
  /** The bound of the array holding chunk `key` (the longest array path it lies under). */
  const boundOf = (key: string) => {
    const path = [...arrays.keys()].filter((p) => key.startsWith(`${p}/`)).sort((a, b) => b.length - a.length)[0];
    return path === undefined ? { stored: ZARR_LIMITS.chunkBytes, exact: false } : arrays.get(path)!;
  };
  return {
    async get(key: AbsolutePath) {
      const file = key.slice(key.lastIndexOf("/") + 1);
      if (METADATA.has(file)) {
        const bytes = await objects.get(key, ZARR_LIMITS.metadataBytes);
        if (bytes && file === ".zarray") arrays.set(key.slice(0, -file.length - 1), checkedZarray(key, bytes));
        return bytes;
      }
      const bound = boundOf(key);
      const bytes = await objects.get(key, bound.stored);
      if (bytes && bound.exact && bytes.byteLength !== bound.stored)
        throw invalidFile(
          `chunk ${key.slice(1)} holds ${bytes.byteLength} bytes; an uncompressed chunk of its array holds ${bound.stored}.`,
        );
      return bytes;
    },
  };
}

/** A zarrita bytes-to-bytes codec that inflates one chunk of `maxBytes` bytes, exactly. */
class InflateCodec {
  readonly kind = "bytes_to_bytes";
  constructor(
    private readonly format: InflateFormat,
    private readonly chunkBytes: number,
  ) {}

  async decode(bytes: Uint8Array): Promise<Uint8Array> {
    const out = await inflateAtMost(bytes, this.format, this.chunkBytes).catch((e: unknown) =>
      Promise.reject(
        e instanceof EngineError
          ? e
          : invalidFile(
              `a chunk is not valid ${this.format} data of at most ${this.chunkBytes} bytes (${e instanceof Error ? e.message : String(e)}).`,
            ),
      ),
    );
    if (out.byteLength !== this.chunkBytes)
      throw invalidFile(
        `a chunk decompresses to ${out.byteLength} bytes; a chunk of its array holds ${this.chunkBytes}.`,
      );
    return out;
  }

  encode(): never {
    throw new Error("the Zarr reader does not encode");
  }
}

/** The zarrita codec entry of `format`: each chunk's size from the chunk shape and data type zarrita passes. */
const inflateEntry = (format: InflateFormat) => async () => ({
  kind: "bytes_to_bytes" as const,
  fromConfig: (_: unknown, meta: { dataType: string; shape: number[] }) => {
    const bytes = Number(/\d+$/.exec(meta.dataType)?.[0] ?? 8) / 8;
    return new InflateCodec(
      format,
      meta.shape.reduce((a, b) => a * b, bytes),
    ) as never;
  },
});

for (const [id, format] of [
  ["zlib", "deflate"],
  ["gzip", "gzip"],
] as const) {
  zarr.registry.set(id, inflateEntry(format));
  zarr.registry.set(`numcodecs.${id}`, inflateEntry(format));
}

/**
 * A failure while opening or reading a Zarr store as the engine reports it: an invalid-file EngineError (also one
 * zarrita wrapped, e.g. from a codec); zarrita's own errors (missing arrays, bad metadata, chunks that do not
 * decode) as such an invalid-file; anything else (another EngineError, a storage fault) as it is. With `id` (the
 * store's name), `Zarr <id>: ` precedes an invalid-file's message.
 */
export function zarrFailure(e: unknown, id?: string): unknown {
  const cause = zarr.isZarritaError(e) ? (e as { cause?: unknown }).cause : undefined;
  const engine = e instanceof EngineError ? e : cause instanceof EngineError ? cause : undefined;
  if (engine && engine.kind !== "invalid-file") return engine;
  if (!engine && !zarr.isZarritaError(e)) return e;
  const message =
    engine?.message ??
    `${e instanceof Error ? e.message : String(e)}${cause instanceof Error ? ` (${cause.message})` : ""}.`;
  return invalidFile(id ? `Zarr ${id}: ${message}` : message, engine?.limit);
}
