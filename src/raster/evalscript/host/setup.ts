/**
 * Validation and normalization of what an evalscript's setup() returns (Sentinel Hub evalscript V3, "setup
 * function"): `input` as band names or `{bands, units?, datasource?, metadata?}` objects, `output` as one
 * object or an array of `{id = "default", bands, sampleType = AUTO, nodataValue?}`, `mosaicking` SIMPLE
 * (default), ORBIT or TILE. Bad values throw a 400 that names the field to fix.
 */
import { invalidArgument } from "../../errors";
import type { EvalInputSpec, EvalOutputSpec, EvalSetup, Mosaicking, SampleType } from "../types";

const SAMPLE_TYPES: readonly SampleType[] = ["AUTO", "INT8", "UINT8", "INT16", "UINT16", "FLOAT32"];
const MOSAICKINGS: readonly Mosaicking[] = ["SIMPLE", "ORBIT", "TILE"];

/** Units given to bands the script did not set units for: the collection's default units. */
export const DEFAULT_UNITS = "DEFAULT";

const fail = (what: string): never => {
  throw invalidArgument(
    `Invalid evalscript setup(): ${what}. See https://docs.sentinel-hub.com/api/latest/evalscript/v3/#setup-function`,
  );
};

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + "..." : s;
};

function bandNames(bands: unknown, where: string): string[] {
  if (!Array.isArray(bands) || bands.length === 0)
    fail(`${where}.bands must be a non-empty array of band names, got ${show(bands)}`);
  const list = bands as unknown[];
  list.forEach((b, i) => {
    if (typeof b !== "string" || b.trim() === "")
      fail(`${where}.bands[${i}] must be a band name (string), got ${show(b)}`);
  });
  return list as string[];
}

function unitsOf(units: unknown, bands: string[], where: string): string[] {
  if (units === undefined || units === null) return bands.map(() => DEFAULT_UNITS);
  if (typeof units === "string") return bands.map(() => units);
  if (!Array.isArray(units) || units.length !== bands.length || units.some((u) => typeof u !== "string")) {
    fail(`${where}.units must be one string or an array of ${bands.length} strings (one per band), got ${show(units)}`);
  }
  return units as string[];
}

function inputOf(entry: unknown, i: number): EvalInputSpec {
  const where = `input[${i}]`;
  if (!entry || typeof entry !== "object" || Array.isArray(entry))
    fail(`${where} must be an object {bands, units?}, got ${show(entry)}`);
  const e = entry as Record<string, unknown>;
  const bands = bandNames(e.bands, where);
  const spec: EvalInputSpec = { bands, units: unitsOf(e.units, bands, where) };
  if (e.datasource !== undefined) {
    if (typeof e.datasource !== "string" || e.datasource === "")
      fail(`${where}.datasource must be a string, got ${show(e.datasource)}`);
    spec.datasource = e.datasource as string;
  }
  if (Array.isArray(e.metadata)) spec.metadata = e.metadata.map(String);
  if (e.mosaicking !== undefined && e.mosaicking !== null)
    spec.mosaicking = mosaickingOf(e.mosaicking, `${where}.mosaicking`);
  return spec;
}

/** `setup().input`: band names, input objects, or one input object. */
function normalizeInputs(input: unknown): EvalInputSpec[] {
  if (input === undefined || input === null)
    fail('it must return \'input\' (the bands the script reads), e.g. input: ["B04", "B08"]');
  if (Array.isArray(input) && input.length > 0 && input.every((b) => typeof b === "string")) {
    const bands = bandNames(input, "input");
    return [{ bands, units: bands.map(() => DEFAULT_UNITS) }];
  }
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) fail("'input' is empty: list the bands the script reads");
  return list.map(inputOf);
}

/** Sample type name (case-insensitive) or the default AUTO. */
export function sampleTypeOf(value: unknown, where: string): SampleType {
  if (value === undefined || value === null) return "AUTO";
  const v = typeof value === "string" ? value.toUpperCase() : value;
  if (!SAMPLE_TYPES.includes(v as SampleType))
    fail(`${where}.sampleType must be one of ${SAMPLE_TYPES.join(", ")}, got ${show(value)}`);
  return v as SampleType;
}

/** Band count: a positive integer. */
export function bandCountOf(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 10000) {
    fail(`${where}.bands must be the number of output bands (a positive integer), got ${show(value)}`);
  }
  return value as number;
}

function outputOf(entry: unknown, i: number, single: boolean): EvalOutputSpec {
  const where = single ? "output" : `output[${i}]`;
  if (!entry || typeof entry !== "object" || Array.isArray(entry))
    fail(`${where} must be an object {id?, bands, sampleType?}, got ${show(entry)}`);
  const e = entry as Record<string, unknown>;
  if (e.id !== undefined && (typeof e.id !== "string" || e.id === ""))
    fail(`${where}.id must be a non-empty string, got ${show(e.id)}`);
  const spec: EvalOutputSpec = {
    id: (e.id as string | undefined) ?? "default",
    bands: bandCountOf(e.bands, where),
    sampleType: sampleTypeOf(e.sampleType, where),
  };
  if (e.nodataValue !== undefined && e.nodataValue !== null) {
    if (typeof e.nodataValue !== "number") fail(`${where}.nodataValue must be a number, got ${show(e.nodataValue)}`);
    spec.nodataValue = e.nodataValue as number;
  }
  return spec;
}

function normalizeOutputs(output: unknown): EvalOutputSpec[] {
  if (output === undefined || output === null) fail("it must return 'output', e.g. output: { bands: 3 }");
  const list = Array.isArray(output) ? output : [output];
  if (list.length === 0) fail("'output' is empty: define at least one output");
  const outputs = list.map((o, i) => outputOf(o, i, !Array.isArray(output)));
  const seen = new Set<string>();
  for (const o of outputs) {
    if (seen.has(o.id)) fail(`output ids must be unique, "${o.id}" is used twice`);
    seen.add(o.id);
  }
  return outputs;
}

function mosaickingOf(value: unknown, where = "mosaicking"): Mosaicking {
  if (value === undefined || value === null) return "SIMPLE";
  const v = typeof value === "string" ? value.toUpperCase() : value;
  if (!MOSAICKINGS.includes(v as Mosaicking)) fail(`${where} must be one of SIMPLE, ORBIT, TILE, got ${show(value)}`);
  return v as Mosaicking;
}

/**
 * Normalizes the value setup() returned (already copied out of the sandbox).
 * @throws EngineError invalid-argument naming the invalid field.
 */
export function normalizeSetup(raw: unknown): EvalSetup {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    fail(`it must return an object {input, output, mosaicking?}, got ${show(raw)}`);
  const r = raw as Record<string, unknown>;
  const inputs = normalizeInputs(r.input);
  const outputs = normalizeOutputs(r.output);
  const mosaicking = mosaickingOf(r.mosaicking);
  const bands = [...new Set(inputs.flatMap((i) => i.bands))];
  return { inputs, outputs, mosaicking, bands };
}

/**
 * Data fusion: the mosaicking of every datasource id, its inputs' `mosaicking` (the first one given) or else
 * setup().mosaicking (Sentinel Hub data fusion scripts may set it per input, e.g. ORBIT for one source only).
 */
export function mosaickingByDatasource(setup: EvalSetup): Record<string, Mosaicking> {
  const by: Record<string, Mosaicking> = {};
  for (const i of setup.inputs) if (i.datasource !== undefined && i.mosaicking) by[i.datasource] ??= i.mosaicking;
  for (const i of setup.inputs) if (i.datasource !== undefined) by[i.datasource] ??= setup.mosaicking;
  return by;
}
