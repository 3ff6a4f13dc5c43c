// The request builder's processing options (Sentinel Hub's names, Processing API input.data[0]): upsampling and
// downsampling for every collection; for sentinel-1-grd the dataFilter members acquisitionMode, polarization,
// resolution, orbitDirection and the processing members backCoeff, orthorectify, demInstance, speckleFilter
// ({type: "NONE"} or {type: "LEE", windowSizeX, windowSizeY}). An empty choice sends nothing (the server's
// default). State: {processing: {...}, s1Filter: {...}} holding only the members sent.
const $ = (id) => document.getElementById(id);

/** Collections whose Sentinel-1 options the builder offers. */
export const isS1 = (collection) => collection === "sentinel-1-grd";

/** Allowed values by member (Sentinel Hub Processing API, data "sentinel-1-grd" and processing options). */
export const CHOICES = {
  upsampling: ["NEAREST", "BILINEAR", "BICUBIC"],
  downsampling: ["NEAREST", "BILINEAR", "BICUBIC"],
  acquisitionMode: ["SM", "IW", "EW", "WV"],
  polarization: ["SH", "SV", "DH", "DV", "HH", "HV", "VV", "VH"],
  resolution: ["HIGH", "MEDIUM"],
  orbitDirection: ["ASCENDING", "DESCENDING"],
  backCoeff: ["BETA0", "SIGMA0_ELLIPSOID", "GAMMA0_ELLIPSOID", "GAMMA0_TERRAIN"],
  demInstance: ["MAPZEN", "COPERNICUS", "COPERNICUS_30", "COPERNICUS_90"],
  speckleFilter: ["NONE", "LEE"],
};
/** Form element id of each member. */
const FIELD = {
  upsampling: "upsampling",
  downsampling: "downsampling",
  acquisitionMode: "s1AcquisitionMode",
  polarization: "s1Polarization",
  resolution: "s1Resolution",
  orbitDirection: "s1OrbitDirection",
  backCoeff: "s1BackCoeff",
  orthorectify: "s1Orthorectify",
  demInstance: "s1DemInstance",
  speckleFilter: "s1Speckle",
};
const S1_FILTER = ["acquisitionMode", "polarization", "resolution", "orbitDirection"];
/** Element ids of every options field (request.js listens to their changes). */
export const OPTION_FIELDS = [...Object.values(FIELD), "s1WindowX", "s1WindowY"];

/** Fills the option lists (first entry: "default", nothing sent); call once. */
export function initOptions() {
  for (const [member, values] of Object.entries(CHOICES)) {
    const select = $(FIELD[member]);
    select.replaceChildren(new Option("default (not sent)", ""), ...values.map((v) => new Option(v, v)));
  }
  $("s1Orthorectify").replaceChildren(
    new Option("default (not sent)", ""),
    new Option("true", "true"),
    new Option("false", "false"),
  );
}

/** Shows the Sentinel-1 fields for `collection` only, and the window sizes for the Lee filter only. */
export function showOptions(collection) {
  $("s1Options").hidden = !isS1(collection);
  $("s1Window").hidden = $("s1Speckle").value !== "LEE";
}

/** The options state of the form for `collection`: {processing, s1Filter} with the chosen members only. */
export function readOptions(collection) {
  const processing = {},
    s1Filter = {};
  for (const m of ["upsampling", "downsampling"]) if ($(FIELD[m]).value) processing[m] = $(FIELD[m]).value;
  if (!isS1(collection)) return { processing, s1Filter };
  for (const m of S1_FILTER) if ($(FIELD[m]).value) s1Filter[m] = $(FIELD[m]).value;
  for (const m of ["backCoeff", "demInstance"]) if ($(FIELD[m]).value) processing[m] = $(FIELD[m]).value;
  if ($("s1Orthorectify").value) processing.orthorectify = $("s1Orthorectify").value === "true";
  const speckle = $("s1Speckle").value;
  if (speckle === "NONE") processing.speckleFilter = { type: "NONE" };
  if (speckle === "LEE")
    processing.speckleFilter = {
      type: "LEE",
      windowSizeX: Number($("s1WindowX").value),
      windowSizeY: Number($("s1WindowY").value),
    };
  return { processing, s1Filter };
}

/** Writes the options of state `st` ({processing, s1Filter}; missing: defaults) into the form. */
export function writeOptions(st) {
  const p = st.processing ?? {},
    f = st.s1Filter ?? {};
  for (const m of ["upsampling", "downsampling", "backCoeff", "demInstance"]) $(FIELD[m]).value = p[m] ?? "";
  for (const m of S1_FILTER) $(FIELD[m]).value = f[m] ?? "";
  $("s1Orthorectify").value = p.orthorectify === undefined ? "" : String(p.orthorectify);
  $("s1Speckle").value = p.speckleFilter?.type ?? "";
  if (p.speckleFilter?.type === "LEE")
    [$("s1WindowX").value, $("s1WindowY").value] = [p.speckleFilter.windowSizeX, p.speckleFilter.windowSizeY];
  showOptions(st.collection);
  if (Object.keys(p).length + Object.keys(f).length) $("options").open = true; // what the request sets, in view
}

/**
 * The options state of a request's input.data[0] `d` ({processing, s1Filter}); throws an Error naming the member
 * for a value the builder has no choice for (the request JSON's import and #builder?request= links).
 */
export function optionsOfData(d) {
  const processing = {},
    s1Filter = {};
  const take = (from, m, into, where) => {
    const v = from?.[m];
    if (v === undefined || v === null) return;
    if (!CHOICES[m].includes(v)) throw new Error(`input.data[0].${where}.${m} "${v}": one of ${CHOICES[m].join(", ")}`);
    into[m] = v;
  };
  for (const m of ["upsampling", "downsampling"]) take(d.processing, m, processing, "processing");
  if (!isS1(d.type)) return { processing, s1Filter };
  for (const m of S1_FILTER) take(d.dataFilter, m, s1Filter, "dataFilter");
  for (const m of ["backCoeff", "demInstance"]) take(d.processing, m, processing, "processing");
  const o = d.processing?.orthorectify;
  if (o !== undefined && o !== null) {
    if (typeof o !== "boolean") throw new Error(`input.data[0].processing.orthorectify must be true or false`);
    processing.orthorectify = o;
  }
  const s = d.processing?.speckleFilter;
  if (s !== undefined && s !== null) {
    if (!CHOICES.speckleFilter.includes(s?.type))
      throw new Error(`input.data[0].processing.speckleFilter.type: one of ${CHOICES.speckleFilter.join(", ")}`);
    processing.speckleFilter =
      s.type === "LEE" ? { type: "LEE", windowSizeX: s.windowSizeX, windowSizeY: s.windowSizeY } : { type: "NONE" };
  }
  return { processing, s1Filter };
}
