/**
 * File extensions of the Processing API's output formats, as Sentinel Hub names the members of a tar response
 * (`default.tif`, `userdata.json`, ...) and as sentinelhub-py maps them back (MimeType.from_string: "tif" ->
 * TIFF, "jpg" -> JPG, "png" -> PNG, "json" -> JSON).
 */
import { unsupported } from "../errors";

const EXTENSION: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/tiff": "tif",
  "application/json": "json",
};

const MIME: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  tif: "image/tiff",
  tiff: "image/tiff",
  json: "application/json",
};

/**
 * Extension (without dot) for an output format type: image/png -> png, image/jpeg -> jpg, image/tiff -> tif,
 * application/json -> json. Parameters after ";" are ignored.
 * @throws EngineError unsupported for any other type.
 */
export function extensionFor(mime: string): string {
  const ext = EXTENSION[mime.split(";")[0]!.trim().toLowerCase()];
  if (!ext)
    throw unsupported(`Unsupported output format type '${mime}'; use one of ${Object.keys(EXTENSION).join(", ")}.`);
  return ext;
}

/**
 * Output format type for an extension (with or without dot, any case): png, jpg/jpeg, tif/tiff, json.
 * @throws EngineError unsupported for any other extension.
 */
export function mimeFor(ext: string): string {
  const mime = MIME[ext.replace(/^\./, "").toLowerCase()];
  if (!mime) throw unsupported(`Unknown file extension '${ext}'; use one of ${Object.keys(MIME).join(", ")}.`);
  return mime;
}

/** UTF-8 JSON of a value (the `userdata` response); `undefined` becomes `null`. */
export function encodeJson(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value) ?? "null");
}
