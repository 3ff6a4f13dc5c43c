/**
 * Checks that an evalscript and the `calculations` of a Statistical API request fit together (400 otherwise):
 * the script has a one-band `dataMask` output, and every calculation key names an output (or is `default`)
 * and every band key a band of that output (or is `default`), as Sentinel Hub's `CalculationDefinition` and
 * `HistogramDefinition` require.
 */
import { invalidArgument } from "../raster/errors";
import type { EvalSetup } from "../raster/evalscript/types";
import { bandNames, DATA_MASK } from "./reduce";
import type { CalculationRequest } from "./schema";

const DATA_MASK_HINT =
  'e.g. output: [{id: "default", bands: 1, sampleType: "FLOAT32"}, {id: "dataMask", bands: 1}] and return {default: [ndvi], dataMask: [samples.dataMask]}';

/** Throws 400 when the script's outputs cannot give statistics or the calculations name unknown outputs/bands. */
export function checkSetup(setup: EvalSetup, calculations: Record<string, CalculationRequest> | undefined): void {
  const dm = setup.outputs.find((o) => o.id === DATA_MASK);
  if (!dm)
    throw invalidArgument(
      `The evalscript has no 'dataMask' output. The Statistical API counts only pixels where the dataMask output is not 0; add one, ${DATA_MASK_HINT}.`,
    );
  if (dm.bands !== 1) throw invalidArgument(`The evalscript's 'dataMask' output must have 1 band, it has ${dm.bands}.`);
  const outputs = setup.outputs.filter((o) => o.id !== DATA_MASK);
  if (outputs.length === 0)
    throw invalidArgument(
      `The evalscript has only the 'dataMask' output; add an output to compute statistics of, ${DATA_MASK_HINT}.`,
    );
  for (const [id, calc] of Object.entries(calculations ?? {})) {
    const spec = outputs.find((o) => o.id === id);
    if (!spec && id !== "default")
      throw invalidArgument(
        `calculations.${id} names no evalscript output; use one of ${outputs.map((o) => o.id).join(", ")} or 'default'.`,
      );
    const names = spec ? bandNames(spec) : null;
    for (const kind of ["statistics", "histograms"] as const) {
      for (const band of Object.keys(calc[kind] ?? {})) {
        if (band !== "default" && names && !names.includes(band))
          throw invalidArgument(
            `calculations.${id}.${kind}.${band} names no band of output '${id}'; use one of ${names.join(", ")} or 'default'.`,
          );
      }
    }
  }
}
