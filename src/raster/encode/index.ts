/**
 * The encode stage of the raster engine: PNG, JPEG, GeoTIFF and JSON files, and tar / multipart/mixed packing
 * of several responses. See each module for formats, tags and sources.
 */
export { encodePng, encodePngParts } from "./png";
export { encodeJpeg, DEFAULT_JPEG_QUALITY, jpegEncodeBytes } from "./jpeg";
export {
  encodeGeoTiff,
  geoTiffParts,
  AUTO_DEFLATE_MAX_BYTES,
  AUTO_DEFLATE_MAX_FLOAT_BYTES,
  type GeoTiffOptions,
} from "./tiff";
export { encodeJson, extensionFor, mimeFor } from "./mime";
export { tarArchive, multipartMixed, type ArchiveEntry, type MultipartEntry } from "./archive";
export { SAMPLE_ARRAYS, type EncodeInput, type GeoRef, type SampleArray, type SampleType } from "./types";
