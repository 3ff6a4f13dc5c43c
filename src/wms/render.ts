/**
 * GetMap / GetTile rendering: a layer (collection + evalscript + defaults) over a grid, through the shared pipeline
 * exactly as a Processing API request with the same bbox, CRS, size, data source and evalscript would run
 * (planRequest -> prepareEvalscript -> withSources -> evaluatePlan -> encodeOutput of the first output).
 */
import type { Env } from "../env";
import type { LayerInput } from "./configuration/schema";
import { encodeOutput } from "../pipeline/output";
import { evaluatePlan, prepareEvalscript } from "../pipeline/pipeline";
import { planRequest, withSources } from "../pipeline/plan";
import { planBytes, withAdmission } from "../pipeline/admission";
import type { DataSourceRequest, ProcessInput } from "../pipeline/input";
import type { Crs } from "../raster/types";
import { WmsException } from "./exceptions";
import type { MapFormat, TimeWindow } from "./params";

/** What to render: grid (CRS, x/y bbox, px), format, optional TIME / MAXCC overrides and STYLES name. */
export interface MapTarget {
  crs: Crs;
  bbox: [number, number, number, number];
  width: number;
  height: number;
  format: MapFormat;
  time?: TimeWindow;
  maxcc?: number;
  style?: string;
}

/** The layer's default time window: datasourceDefaults.timeRange, open ends = the epoch / now. */
export function defaultWindow(layer: LayerInput, now = Date.now()): TimeWindow {
  const t = layer.datasourceDefaults.timeRange;
  return { from: t?.from ? Date.parse(t.from) : 0, to: t?.to ? Date.parse(t.to) : now };
}

/** The Processing API data source equivalent to `layer` with the request's TIME and MAXCC (they override the defaults). */
export function layerSource(layer: LayerInput, time?: TimeWindow, maxcc?: number): DataSourceRequest {
  const d = layer.datasourceDefaults;
  const w = time ?? defaultWindow(layer);
  const cc = maxcc ?? d.maxCloudCoverage;
  return {
    type: d.type,
    dataFilter: {
      timeRange: { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() },
      ...(d.mosaickingOrder ? { mosaickingOrder: d.mosaickingOrder } : {}),
      ...(cc !== undefined ? { maxCloudCoverage: cc } : {}),
    },
    ...(d.upsampling || d.downsampling
      ? {
          processing: {
            ...(d.upsampling ? { upsampling: d.upsampling } : {}),
            ...(d.downsampling ? { downsampling: d.downsampling } : {}),
          },
        }
      : {}),
  };
}

/** The evalscript of STYLES `style` (default: defaultStyleName, else the first style); StyleNotDefined otherwise. */
export function styleScript(layer: LayerInput, style?: string): string {
  const name = style ?? layer.defaultStyleName ?? layer.styles[0]!.name;
  const s = layer.styles.find((x) => x.name === name);
  if (!s)
    throw new WmsException(
      "StyleNotDefined",
      `Layer '${layer.id}' has no style '${name}' (styles: ${layer.styles.map((x) => x.name).join(", ")}).`,
      "STYLES",
    );
  return s.evalScript;
}

/**
 * Renders `layer` for `target` with the evalscript runtime of `account` (the instance owner), once the isolate's
 * admission lets its pixels in (src/pipeline/admission.ts; the image is one array, so they are let out once encoded).
 * @returns the encoded image and the processing units spent.
 * @throws WmsException StyleNotDefined; the pipeline's EngineError / ApiError for bad bboxes, scripts or data;
 * OverloadedError (503 with Retry-After) when the pixels found no room in time.
 */
export async function renderMap(
  env: Env,
  account: string,
  layer: LayerInput,
  target: MapTarget,
): Promise<{ body: Uint8Array; processingUnits: number }> {
  const evalscript = styleScript(layer, target.style);
  const input: ProcessInput = {
    bounds: { bbox: target.bbox, properties: { crs: `http://www.opengis.net/def/crs/EPSG/0/${target.crs.epsg}` } },
    data: [layerSource(layer, target.time, target.maxcc)],
  };
  const area = planRequest(input, { width: target.width, height: target.height });
  const script = await prepareEvalscript(env, evalscript, account);
  const plan = await withSources({ env, account }, area, input.data, script.setup);
  return withAdmission(planBytes(plan, script.setup, "encode", [target.format]), async () => {
    const evaluation = await evaluatePlan(env, script, plan, { convert: true });
    const identifier = script.setup.outputs[0]?.id ?? "default";
    const body = await encodeOutput(
      evaluation.result,
      { identifier, format: { type: target.format } },
      target.format,
      plan.grid,
    );
    return { body, processingUnits: evaluation.processingUnits };
  });
}
