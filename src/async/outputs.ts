/**
 * One delivered file per `output.responses[]` entry, fed strip by strip:
 * - image/tiff: streamed. Each strip is encoded as a DEFLATE TIFF strip (src/raster/encode/tiffstrips.ts) and
 *   appended to a multipart upload (./upload.ts): memory stays at one strip plus two 5 MiB parts.
 * - image/png, image/jpeg: the strips are copied into one image, encoded at the end by encodeOutput
 *   (src/pipeline/output.ts); hence {@link MAX_WHOLE_PIXELS}.
 * - userdata (application/json): the userData of the last strip's evaluation (see ./render.ts).
 */
import { encodeOutput, type OutputRequest } from "../pipeline/output";
import { extensionFor } from "../raster/encode";
import { GeoTiffStripWriter } from "../raster/encode/tiffstrips";
import { invalidArgument } from "../raster/errors";
import { storedSampleType, toSampleType, type EvalOutputValues, type EvalResult, type SampleArray } from "../raster/evalscript";
import type { Grid } from "../raster/types";
import type { ObjectTarget } from "./delivery";
import { ObjectSink } from "./upload";

/** PNG and JPEG outputs are encoded whole: at most 2500 x 2500 px (the synchronous limit, same memory). */
export const MAX_WHOLE_PIXELS = 2500 * 2500;

/** A file being delivered. */
export interface OutputFile {
  /** Takes rows [row, row + rows) of the evaluation `result` (a strip of the grid). */
  strip(result: EvalResult, row: number, rows: number): Promise<void>;
  /** Writes what is left; `last` is the last strip's result (for userData). */
  finish(last: EvalResult): Promise<void>;
  /** Drops what an unfinished file left behind. */
  abort(): Promise<void>;
}

/** The file name of a response: `<identifier>.<ext>`. */
export const fileName = (r: OutputRequest): string => `${r.identifier}.${extensionFor(r.format.type)}`;

/** The output `r` names in a strip's result, its samples in the stored sample type. @throws EngineError invalid-argument */
function samplesOf(result: EvalResult, r: OutputRequest): { out: EvalOutputValues; data: SampleArray } {
  const out = result.outputs[r.identifier];
  if (!out) throw invalidArgument(`Response identifier '${r.identifier}' matches no evalscript output (outputs: ${Object.keys(result.outputs).join(", ") || "none"}; or use 'userdata').`);
  return { out, data: out.stored ?? toSampleType(out.values, out.sampleType) };
}

/** A GeoTIFF written strip by strip; the writer is made at the first strip (band count after updateOutput). */
class TiffFile implements OutputFile {
  private writer?: GeoTiffStripWriter;
  private readonly sink: ObjectSink;

  constructor(
    private readonly r: OutputRequest,
    private readonly grid: Grid,
    private readonly rowsPerStrip: number,
    target: ObjectTarget,
  ) {
    this.sink = new ObjectSink(target.store, target.key, "image/tiff");
  }

  async strip(result: EvalResult, _row: number, rows: number): Promise<void> {
    const { out, data } = samplesOf(result, this.r);
    if (!this.writer) {
      const image = { width: this.grid.width, height: this.grid.height, bands: out.bands, sampleType: storedSampleType(out.sampleType), nodataValue: out.nodataValue };
      this.writer = new GeoTiffStripWriter(image, { epsg: this.grid.crs.epsg, bbox: this.grid.bbox, geographic: this.grid.crs.geographic }, this.rowsPerStrip);
      await this.sink.write(this.writer.start());
    }
    if (data.length !== rows * this.grid.width * out.bands) throw new Error(`async: output ${this.r.identifier} changed its band count between strips`);
    await this.sink.write(this.writer.strip(data));
  }

  async finish(): Promise<void> {
    const { header, trailer } = this.writer!.finish();
    await this.sink.write(trailer);
    this.sink.patch(0, header);
    await this.sink.close();
  }

  abort(): Promise<void> {
    return this.sink.abort();
  }
}

/** A PNG or JPEG: strips copied into the whole image, encoded at the end. */
class WholeImageFile implements OutputFile {
  private whole?: SampleArray;
  private out?: EvalOutputValues;

  constructor(
    private readonly r: OutputRequest,
    private readonly grid: Grid,
    private readonly target: ObjectTarget,
  ) {}

  async strip(result: EvalResult, row: number): Promise<void> {
    const { out, data } = samplesOf(result, this.r);
    const rowSamples = this.grid.width * out.bands;
    this.out ??= out;
    this.whole ??= new (data.constructor as new (n: number) => SampleArray)(rowSamples * this.grid.height);
    this.whole.set(data as never, row * rowSamples);
  }

  async finish(): Promise<void> {
    const result: EvalResult = { outputs: { [this.r.identifier]: { ...this.out!, values: new Float32Array(0), stored: this.whole! } } };
    await this.target.store.put(this.target.key, await encodeOutput(result, this.r, this.r.format.type, this.grid), { contentType: this.r.format.type });
  }

  async abort(): Promise<void> {}
}

/** userdata.json from the last strip's userData. */
class UserDataFile implements OutputFile {
  constructor(
    private readonly r: OutputRequest,
    private readonly grid: Grid,
    private readonly target: ObjectTarget,
  ) {}

  async strip(): Promise<void> {}

  async finish(last: EvalResult): Promise<void> {
    await this.target.store.put(this.target.key, await encodeOutput(last, this.r, "application/json", this.grid), { contentType: "application/json" });
  }

  async abort(): Promise<void> {}
}

/** The file of response `r` over `grid` (strips of `rowsPerStrip` rows), written to `target`. */
export function outputFile(r: OutputRequest, grid: Grid, rowsPerStrip: number, target: ObjectTarget): OutputFile {
  if (r.identifier === "userdata") return new UserDataFile(r, grid, target);
  if (r.format.type === "image/tiff") return new TiffFile(r, grid, rowsPerStrip, target);
  return new WholeImageFile(r, grid, target);
}
