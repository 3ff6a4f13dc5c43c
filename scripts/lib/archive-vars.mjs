// The archive vars of the Worker (wrangler.toml [vars], src/archive/): EO_EDGE_ARCHIVE (`twin`,
// `earth-search` or `planetary-computer`), ARCHIVE_STAC_URL (the chosen archive's STAC API root) and ARCHIVE_URL_MAP
// (JSON: asset URL prefix -> replacement prefix). One place that says what each archive's defaults are, for
// `npm start` (scripts/start.mjs, which runs the twin) and `npm run deploy` (scripts/deploy.mjs).

/** The real archives' STAC API roots. */
export const ARCHIVE_STAC_ROOTS = {
  "earth-search": "https://earth-search.aws.element84.com/v1",
  "planetary-computer": "https://planetarycomputer.microsoft.com/api/stac/v1",
};

/**
 * The archive vars for `archive` ("twin", "earth-search" or "planetary-computer"), honouring ARCHIVE_STAC_URL and
 * ARCHIVE_URL_MAP of `env` when set. `twin`: a started archive twin (scripts/archive-twin.mjs) for "twin".
 * Throws on an unknown archive or an ARCHIVE_URL_MAP that is not a JSON object.
 */
export function archiveVars(archive, env = process.env, twin = undefined) {
  if (archive !== "twin" && !ARCHIVE_STAC_ROOTS[archive])
    throw new Error(`EO_EDGE_ARCHIVE=${archive}: use twin, earth-search or planetary-computer`);
  if (archive === "twin" && !twin)
    throw new Error("EO_EDGE_ARCHIVE=twin needs the archive twin (npm start runs it; a deployment cannot)");
  const map = env.ARCHIVE_URL_MAP ?? JSON.stringify(archive === "twin" ? twin.urlMap : {});
  const parsed = JSON.parse(map);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error("ARCHIVE_URL_MAP must be a JSON object");
  const stac =
    env.ARCHIVE_STAC_URL ?? (archive === "twin" ? twin.stacUrl["earth-search"] : ARCHIVE_STAC_ROOTS[archive]);
  return { EO_EDGE_ARCHIVE: archive, ARCHIVE_STAC_URL: stac, ARCHIVE_URL_MAP: map };
}
