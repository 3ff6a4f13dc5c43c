// The import rules of src/README.md ("Direction of imports"), checked by dependency-cruiser in .ci/run
// (`npm run -s check:layers`). Folders are src/<name>; "areas" are the API areas, which share the layers below
// them and never import each other. The registration points src/routes.ts, src/index.ts and src/tasks-registry.ts
// sit above everything and may import any folder.
/** The API areas (src/<area>): each may import the shared layers and the services, never another area. */
const AREAS = [
  "process",
  "statistics",
  "catalog",
  "async",
  "batch",
  "statbatch",
  "wms",
  "byoc",
  "zarr",
  "s3",
  "metadata",
  "admin",
  "dataimport",
];
/** Services areas share: they may be imported by areas and import no area. */
const SERVICES = ["accounts", "locations", "auth", "ratelimit", "ingestion"]; // ingestion: BYOC tiles to the task engine
const area = `^src/(${AREAS.join("|")})/`;

/**
 * What web/ (the console, bundled for the browser by scripts/build-web.mjs) shares with the server: pure modules
 * with no Worker binding, no HTTP and no storage, so that the console draws the same tiling grids, CRSs and task
 * actions the API uses. Anything else of src/ is a server internal.
 */
const WEB_SHARED = [
  "^src/batch/grids/(index|geometry|definitions|layouts|mgrs)\\.ts$", // tiling grids (the batch form's preview)
  "^src/raster/crs/", // CRS definitions and transforms
  "^src/raster/(errors|types)\\.ts$", // what the CRS modules throw and take
  "^src/vector/bounds\\.ts$", // bounds of a geometry (the grids' intersection test)
  "^src/tasks/machines?\\.ts$", // the task lifecycles: which user actions a status allows
];

module.exports = {
  forbidden: [
    {
      name: "no-folder-circles",
      comment: "Folders of src/ form layers: an import from one folder to another never leads back to the first.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/[^/]+$" },
      to: { circular: true },
    },
    {
      name: "no-module-circles",
      comment:
        "No module of src/ or web/src leads back to itself, type-only imports included: shared shapes live in the lower module (e.g. src/raster/evalscript/types.ts, src/tasks/messages.ts).",
      severity: "error",
      from: { path: "^(src|web/src)/" },
      to: { circular: true },
    },
    {
      name: "raster-is-the-bottom",
      comment: "The raster engine imports nothing of ours outside src/raster (no HTTP: it throws EngineError kinds).",
      severity: "error",
      from: { path: "^src/raster/" },
      to: { path: "^src/", pathNot: ["^src/raster/", "^src/env\\.ts$"] },
    },
    {
      name: "warp-reads-any-reader",
      comment: "The warp reads any RasterReader (src/raster/reader.ts), never a format's reader (src/raster/cog).",
      severity: "error",
      from: { path: "^src/raster/warp/" },
      to: { path: "^src/raster/cog/" },
    },
    {
      name: "http-knows-no-engine-nor-area",
      comment: "src/http recognises engine errors by shape (KindedError); routes.ts wires areas into the router.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: `^src/(raster|pipeline|stats|vector|tasks|${AREAS.join("|")}|${SERVICES.join("|")})/` },
    },
    {
      name: "shared-layers-below-http-and-areas",
      comment:
        "The pipeline, the statistics computation, storage and the archive readers are HTTP-free and below every area.",
      severity: "error",
      from: { path: "^src/(pipeline|stats|storage|archive)/" },
      to: { path: [`^src/http/`, area] },
    },
    {
      name: "areas-never-import-each-other",
      comment: "Areas share src/pipeline, src/stats, src/storage, ... and the services, never each other's modules.",
      severity: "error",
      from: { path: area },
      to: { path: area, pathNot: "^src/$1/" },
    },
    ...SERVICES.map((s) => ({
      name: "services-import-no-area",
      comment: `src/${s} is imported by areas and imports none.`,
      severity: "error",
      from: { path: `^src/${s}/` },
      to: { path: area },
    })),
    {
      name: "tasks-imports-no-area",
      comment: "An area plugs into the task engine (src/tasks-registry.ts); the engine imports no area.",
      severity: "error",
      from: { path: "^src/tasks/" },
      to: { path: area },
    },
    {
      name: "web-shares-only-declared-modules",
      comment: "web/ imports from src/ only the modules WEB_SHARED declares (the rest are server internals).",
      severity: "error",
      from: { path: "^web/" },
      to: { path: "^src/", pathNot: WEB_SHARED },
    },
    {
      name: "web-shared-modules-stay-pure",
      comment: "What web/ shares reaches no Worker runtime, Node built-in, HTTP, storage or environment module.",
      severity: "error",
      from: { path: "^web/" },
      to: {
        reachable: true,
        path: ["^(cloudflare|node):", "^src/(http|storage|env)", "^src/tasks/(?!machines?\\.ts$)"],
      },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API yet: swc parses the sources (type-only imports included).
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|^web/vendor/|\\.(wasm|json)$" },
  },
};
