/**
 * An async request's files, made in two steps (./plugin.ts): each strip unit writes its piece of every response as
 * a part object in the DATA bucket ({@link partKey}; a unit run again overwrites its parts), and the assembly, once
 * after the last unit, joins the parts into the delivered files:
 * - image/tiff: every pipeline strip is one DEFLATE TIFF strip (src/raster/encode/tiffstrips.ts); a part holds a
 *   unit's encoded strips (their byte counts in its metadata); the assembly streams header, parts and IFD into a
 *   multipart upload (./upload.ts) in bounded memory (one part plus two 5 MiB upload parts), up to 10000 x 10000.
 * - image/png, image/jpeg: a part holds the unit's samples (stored sample type); the assembly joins them and encodes
 *   the image whole with encodeOutput (src/pipeline/output.ts), as synchronous Process does, so pixel for pixel the
 *   same file; hence {@link MAX_WHOLE_PIXELS}: the assembly's memory and CPU are those of one synchronous request.
 *   (PNG's zlib stream and JPEG's entropy-coded scan run across the whole image: a strip cannot be encoded alone.)
 * - userdata (application/json): the userData of the last strip's evaluation (the last unit's part).
 */
import { requestBytes, withConsumerAdmission } from "../pipeline/admission";
import { encodeOutput, type OutputRequest } from "../pipeline/output";
import { extensionFor, jpegEncodeBytes, SAMPLE_ARRAYS, type SampleType } from "../raster/encode";
import { bytesPerSample } from "../raster/encode/types";
import { GeoTiffStripWriter } from "../raster/encode/tiffstrips";
import { concatBytes } from "../raster/encode/bytes";
import { invalidArgument } from "../raster/errors";
import {
  storedSampleType,
  toSampleType,
  type EvalOutputValues,
  type EvalResult,
  type SampleArray,
} from "../raster/evalscript";
import type { Grid } from "../raster/types";
import type { ObjectTarget } from "./delivery";
import { ObjectSink } from "./upload";

/** PNG and JPEG outputs are encoded whole: at most 2500 x 2500 px (the synchronous limit, same memory). */
export const MAX_WHOLE_PIXELS = 2500 * 2500;

/** The file name of a response: `<identifier>.<ext>`. */
export const fileName = (r: OutputRequest): string => `${r.identifier}.${extensionFor(r.format.type)}`;

/** The DATA key of the part of response number `response` made by the unit starting at row `row` of request `id`. */
export const partKey = (id: string, row: number, response: number): string =>
  `${partsPrefix(id)}${String(row).padStart(5, "0")}-${response}`;
/** The DATA prefix of every part of request `id` (deleted when it ends). */
export const partsPrefix = (id: string): string => `_tasks/${id}/parts/`;

/** A part's metadata (R2 customMetadata): the output's band count, declared sample type and nodata, TIFF strip sizes. */
interface PartMeta {
  bands: string;
  sampleType: string;
  nodata?: string;
  counts?: string;
}

/** The output `r` names in a strip's result, its samples in the stored sample type. @throws EngineError invalid-argument */
function samplesOf(result: EvalResult, r: OutputRequest): { out: EvalOutputValues; data: SampleArray } {
  const out = result.outputs[r.identifier];
  if (!out)
    throw invalidArgument(
      `Response identifier '${r.identifier}' matches no evalscript output (outputs: ${Object.keys(result.outputs).join(", ") || "none"}; or use 'userdata').`,
    );
  return { out, data: out.stored ?? toSampleType(out.values, out.sampleType) };
}

/** The piece of one response a strip unit makes, strip by strip (see the module docs). */
export class Part {
  private readonly chunks: Uint8Array[] = [];
  private readonly counts: number[] = [];
  private writer?: GeoTiffStripWriter;
  private out?: EvalOutputValues;
  private userData?: unknown;

  /** @param rows the unit's rows; `rowsPerStrip` rows of the grid per TIFF strip. */
  constructor(
    private readonly r: OutputRequest,
    private readonly grid: Grid,
    private readonly rows: number,
    private readonly rowsPerStrip: number,
  ) {}

  /** Takes the next strip's evaluation `result` (`rows` rows). @throws EngineError invalid-argument for an unknown identifier. */
  strip(result: EvalResult, rows: number): void {
    if (this.r.identifier === "userdata") return void (this.userData = result.userData);
    const { out, data } = samplesOf(result, this.r);
    this.out ??= out;
    if (data.length !== rows * this.grid.width * this.out.bands)
      throw new Error(`async: output ${this.r.identifier} changed its band count between strips`);
    if (this.r.format.type !== "image/tiff")
      return void this.chunks.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
    const image = {
      width: this.grid.width,
      height: this.rows,
      bands: out.bands,
      sampleType: storedSampleType(out.sampleType),
      nodataValue: out.nodataValue,
    };
    this.writer ??= new GeoTiffStripWriter(
      image,
      { epsg: this.grid.crs.epsg, bbox: this.grid.bbox, geographic: this.grid.crs.geographic },
      this.rowsPerStrip,
    );
    const bytes = this.writer.strip(data);
    this.chunks.push(bytes);
    this.counts.push(bytes.length);
  }

  /** Writes the part to `key` of `data` (overwriting a part of an earlier run of the unit). */
  async put(data: R2Bucket, key: string): Promise<void> {
    if (this.r.identifier === "userdata") return void (await data.put(key, JSON.stringify(this.userData ?? null)));
    const out = this.out!;
    const meta: PartMeta = {
      bands: String(out.bands),
      sampleType: out.sampleType,
      ...(out.nodataValue !== undefined ? { nodata: String(out.nodataValue) } : {}),
      ...(this.writer ? { counts: this.counts.join(",") } : {}),
    };
    await data.put(key, concatBytes(this.chunks), { customMetadata: meta as unknown as Record<string, string> });
  }
}

/** A part of `keys`. @throws Error when it is missing (its unit was counted, so its part was written). */
async function part(data: R2Bucket, key: string): Promise<R2ObjectBody> {
  const object = await data.get(key);
  if (!object) throw new Error(`async: part ${key} is missing`);
  return object;
}

/** The output of a part's metadata, its stored samples `stored` (none for a TIFF). */
function outputOf(meta: PartMeta, stored: SampleArray): EvalOutputValues {
  return {
    bands: Number(meta.bands),
    sampleType: meta.sampleType as SampleType,
    ...(meta.nodata !== undefined ? { nodataValue: Number(meta.nodata) } : {}),
    values: new Float32Array(0),
    stored,
  };
}

/**
 * Writes the file of response `r` over `grid` to `target` from its parts `keys` (in row order, in `data`). A PNG or
 * JPEG is encoded whole, admitted with its bytes (withConsumerAdmission); a GeoTIFF is written strip by strip.
 * @throws Error when a part is missing; OverloadedError when there was no room in time (retried); the store's errors.
 */
export async function assembleFile(
  data: R2Bucket,
  keys: string[],
  r: OutputRequest,
  grid: Grid,
  rowsPerStrip: number,
  target: ObjectTarget,
): Promise<void> {
  if (r.identifier === "userdata") {
    const last: EvalResult = { outputs: {}, userData: await (await part(data, keys.at(-1)!)).json() };
    return void (await target.store.put(target.key, await encodeOutput(last, r, "application/json", grid), {
      contentType: "application/json",
    }));
  }
  const parts = keys.map((key) => () => part(data, key));
  const meta = (await data.head(keys[0]!))?.customMetadata as PartMeta | undefined;
  if (!meta) throw new Error(`async: part ${keys[0]} is missing`);
  const stored = storedSampleType(meta.sampleType as SampleType);
  if (r.format.type !== "image/tiff") {
    // the whole image's samples and its file (and a JPEG encoder's) share the isolate (src/pipeline/admission.ts)
    const pixels = grid.width * grid.height;
    const held =
      requestBytes(pixels, 0, Number(meta.bands) * bytesPerSample(stored)) +
      (r.format.type === "image/jpeg" ? jpegEncodeBytes(pixels) : 0);
    return withConsumerAdmission(held, async () => {
      const whole = new SAMPLE_ARRAYS[stored](pixels * Number(meta.bands));
      const bytes = new Uint8Array(whole.buffer);
      let at = 0;
      for (const next of parts) {
        const chunk = new Uint8Array(await (await next()).arrayBuffer());
        bytes.set(chunk, at);
        at += chunk.length;
      }
      const result: EvalResult = { outputs: { [r.identifier]: outputOf(meta, whole) } };
      await target.store.put(target.key, await encodeOutput(result, r, r.format.type, grid), {
        contentType: r.format.type,
      });
    });
  }
  const { bands, nodataValue } = outputOf(meta, new SAMPLE_ARRAYS[stored](0));
  const image = { width: grid.width, height: grid.height, bands, sampleType: stored, nodataValue };
  const writer = new GeoTiffStripWriter(
    image,
    { epsg: grid.crs.epsg, bbox: grid.bbox, geographic: grid.crs.geographic },
    rowsPerStrip,
  );
  const sink = new ObjectSink(target.store, target.key, "image/tiff");
  try {
    await sink.write(writer.start());
    for (const next of parts) {
      const object = await next();
      for (const count of (object.customMetadata as unknown as PartMeta).counts!.split(","))
        writer.encoded(Number(count));
      await sink.write(new Uint8Array(await object.arrayBuffer()));
    }
    const { header, trailer } = writer.finish();
    await sink.write(trailer);
    sink.patch(0, header);
    await sink.close();
  } catch (e) {
    await sink.abort().catch((a) => console.error("async: abort failed:", String(a)));
    throw e;
  }
}
