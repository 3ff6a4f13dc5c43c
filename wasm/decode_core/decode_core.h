/*
 * EO Edge decode core: the C functions exported by src/raster/codec/decode_core.wasm (built by wasm/build.mjs).
 * Every function works on buffers inside the module's linear memory (see dc_buffer) and returns a byte count
 * or 0 on success, or one of the negative DC_ERR_* codes below. Samples are little-endian (the module's and
 * every GeoTIFF reader host's byte order); big-endian files are byte-swapped by the caller.
 */
#ifndef DECODE_CORE_H
#define DECODE_CORE_H
#include <stdint.h>

#define DC_ERR_CORRUPT -1     /* the compressed stream is invalid or truncated */
#define DC_ERR_SPACE -2       /* the output buffer is too small for the decoded data */
#define DC_ERR_MEMORY -3      /* the module could not grow its memory */
#define DC_ERR_ARGUMENT -4    /* unsupported parameters (sample size, level, ...) */

#define EXPORT(name) __attribute__((export_name(#name))) __attribute__((visibility("default")))

EXPORT(dc_buffer) uint8_t *dc_buffer(uint32_t slot, uint32_t size);
EXPORT(dc_inflate_zlib) int32_t dc_inflate_zlib(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap);
EXPORT(dc_inflate_raw) int32_t dc_inflate_raw(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap);
EXPORT(dc_deflate_zlib) int32_t dc_deflate_zlib(int32_t level, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap);
EXPORT(dc_deflate_zlib_bound) int32_t dc_deflate_zlib_bound(int32_t level, uint32_t in_len);
EXPORT(dc_zstd) int32_t dc_zstd(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap);
EXPORT(dc_lzw) int32_t dc_lzw(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap);
EXPORT(dc_predictor_horizontal) int32_t dc_predictor_horizontal(uint8_t *buf, uint32_t width, uint32_t rows, uint32_t spp, uint32_t bytes);
EXPORT(dc_predictor_float) int32_t dc_predictor_float(uint8_t *buf, uint32_t width, uint32_t rows, uint32_t spp, uint32_t bytes);
EXPORT(dc_predictor_float_encode) int32_t dc_predictor_float_encode(uint8_t *buf, uint32_t width, uint32_t rows, uint32_t spp, uint32_t bytes);

#endif
