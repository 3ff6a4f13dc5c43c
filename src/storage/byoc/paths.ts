/**
 * Where a BYOC tile's band files are, from its path (Sentinel Hub BYOC documentation, "Tile path"; the spec's
 * BYOC tile `path`): a path without `(BAND)` is a folder whose files are named after the band's source
 * (`folder` -> `folder/B04.tiff`); a path with `(BAND)` has the source in its place (`folder/t1_(BAND)_2019` ->
 * `folder/t1_B04_2019.tiff`). The extension is optional: a path ending in `.tif` or `.tiff` names it; otherwise the
 * files are `.tiff` (Sentinel Hub's form) or `.tif` (GDAL's default), whichever ingestion finds (one for all of a
 * tile's files; kept with the tile, `byoc_tiles.file_ext`).
 */

/** The extensions a path without one may have, in the order they are tried. */
export const FILE_EXTENSIONS = [".tiff", ".tif"] as const;

/** The extension of tiles ingested before extensions were kept (only `.tif` files were read then). */
const LEGACY_EXTENSION = ".tif";

/** A tile path as a key template: `stem` with `(BAND)` where the source goes, `ext` the path's own extension or null. */
export function pathTemplate(path: string): { stem: string; ext: string | null } {
  const p = path.includes("(BAND)") ? path : `${path.replace(/\/+$/, "")}/(BAND)`;
  const m = /\.tiff?$/i.exec(p);
  return m ? { stem: p.slice(0, -m[0].length), ext: m[0] } : { stem: p, ext: null };
}

/** The extensions ingestion tries for `path`: its own, else FILE_EXTENSIONS. */
export function extensionsOf(path: string): readonly string[] {
  const { ext } = pathTemplate(path);
  return ext ? [ext] : FILE_EXTENSIONS;
}

/**
 * The key of band source `source`'s file for tile path `path`; `ext` is the extension ingestion found (used when
 * the path has none; `.tif` when unknown, as for tiles ingested before it was kept).
 */
export function fileKey(path: string, source: string, ext?: string | null): string {
  const t = pathTemplate(path);
  return t.stem.replaceAll("(BAND)", source) + (t.ext ?? ext ?? LEGACY_EXTENSION);
}

/** The keys expected for `sources`, for the error naming them: `folder/B04.tiff, folder/B08.tiff (or .tif)`. */
export function expectedKeys(path: string, sources: string[]): string {
  const exts = extensionsOf(path);
  const keys = sources.map((s) => fileKey(path, s, exts[0])).join(", ");
  return exts.length > 1 ? `${keys} (or ${exts.slice(1).join(", ")})` : keys;
}
