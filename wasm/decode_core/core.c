/*
 * Buffers, DEFLATE (libdeflate) and ZSTD (libzstd's decompressor) entry points of the decode core. The
 * decompressor / compressor states are allocated once and reused; buffers grow and are kept (linear memory
 * never shrinks, so repeated calls with blocks of the same size allocate nothing).
 */
#include <stdint.h>
#include <stdlib.h>
#include "decode_core.h"
#include "libdeflate.h"
#define ZSTD_STATIC_LINKING_ONLY
#include "zstd.h"
#include "zstd_errors.h"

#define SLOTS 4
static uint8_t *slots[SLOTS];
static uint32_t slot_sizes[SLOTS];

/* Returns a buffer of at least `size` bytes for slot `slot` (0..3), its content undefined; 0 when out of memory. */
uint8_t *dc_buffer(uint32_t slot, uint32_t size) {
  if (slot >= SLOTS) return 0;
  if (size > slot_sizes[slot]) {
    free(slots[slot]);
    slots[slot] = malloc(size);
    slot_sizes[slot] = slots[slot] ? size : 0;
  }
  return slots[slot];
}

static struct libdeflate_decompressor *inflater;

static int32_t inflate_result(enum libdeflate_result r, size_t n) {
  if (r == LIBDEFLATE_SUCCESS) return (int32_t)n;
  return r == LIBDEFLATE_INSUFFICIENT_SPACE ? DC_ERR_SPACE : DC_ERR_CORRUPT;
}

int32_t dc_inflate_zlib(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap) {
  if (!inflater && !(inflater = libdeflate_alloc_decompressor())) return DC_ERR_MEMORY;
  size_t n = 0;
  return inflate_result(libdeflate_zlib_decompress(inflater, in, in_len, out, cap, &n), n);
}

int32_t dc_inflate_raw(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap) {
  if (!inflater && !(inflater = libdeflate_alloc_decompressor())) return DC_ERR_MEMORY;
  size_t n = 0;
  return inflate_result(libdeflate_deflate_decompress(inflater, in, in_len, out, cap, &n), n);
}

/* One compressor per level 0..12, made on first use. */
static struct libdeflate_compressor *deflaters[13];

static struct libdeflate_compressor *deflater(int32_t level) {
  if (level < 0 || level > 12) return 0;
  if (!deflaters[level]) deflaters[level] = libdeflate_alloc_compressor(level);
  return deflaters[level];
}

int32_t dc_deflate_zlib_bound(int32_t level, uint32_t in_len) {
  struct libdeflate_compressor *c = deflater(level);
  return c ? (int32_t)libdeflate_zlib_compress_bound(c, in_len) : DC_ERR_ARGUMENT;
}

int32_t dc_deflate_zlib(int32_t level, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap) {
  struct libdeflate_compressor *c = deflater(level);
  if (!c) return DC_ERR_ARGUMENT;
  size_t n = libdeflate_zlib_compress(c, in, in_len, out, cap);
  return n ? (int32_t)n : DC_ERR_SPACE;
}

static ZSTD_DCtx *zstd;

int32_t dc_zstd(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap) {
  if (!zstd && !(zstd = ZSTD_createDCtx())) return DC_ERR_MEMORY;
  size_t n = ZSTD_decompressDCtx(zstd, out, cap, in, in_len);
  if (!ZSTD_isError(n)) return (int32_t)n;
  switch (ZSTD_getErrorCode(n)) {
    case ZSTD_error_dstSize_tooSmall: return DC_ERR_SPACE;
    case ZSTD_error_memory_allocation: return DC_ERR_MEMORY;
    default: return DC_ERR_CORRUPT;
  }
}
