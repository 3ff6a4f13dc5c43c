/**
 * Response bodies made of several byte arrays (a GeoTIFF's header and strips) sent without joining them first:
 * joining a 2500 x 2500 FLOAT32 file copies 25 MB into a second array that lives until the response is garbage
 * collected, which is most of what a large request adds to the isolate's memory at its peak.
 */

/** What a streamed body tells its caller: each part the client took, and the end (all written, or aborted). */
export interface BodyProgress {
  wrote(): void;
  sent(): void;
}

/**
 * One body of the parts, in order, with a Content-Length: the part itself when there is one, else a
 * FixedLengthStream (workerd) fed part by part as the client reads. A client that goes away aborts the writes.
 * `progress` hears of each part written and of the end: the caller's memory admission holds the parts while the
 * client reads them (src/process/routes.ts, src/pipeline/admission.ts); for a single part it hears nothing.
 */
export function partsBody(
  parts: readonly Uint8Array[],
  progress?: BodyProgress,
): Uint8Array | ReadableStream<Uint8Array> {
  if (parts.length === 1) return parts[0]!;
  const total = parts.reduce((n, p) => n + p.length, 0);
  const { readable, writable } = new FixedLengthStream(total);
  const writer = writable.getWriter();
  void (async () => {
    for (const p of parts) {
      await writer.write(p);
      progress?.wrote();
    }
    await writer.close();
  })()
    .catch((e: unknown) => writer.abort(e).catch(() => undefined))
    .finally(() => progress?.sent());
  return readable;
}
