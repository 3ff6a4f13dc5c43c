/*
 * TIFF predictors, undone in place on a decoded block of `rows` rows of `width` pixels of `spp` samples of
 * `bytes` bytes each (row-major, little-endian samples).
 * - Predictor 2, horizontal differencing (TIFF 6.0 section 14): each sample is stored as the difference from the
 *   same sample of the previous pixel of the row, modulo 2^bits; undone by a running sum per sample.
 * - Predictor 3, floating point (Adobe Photoshop TIFF Technical Note 3, April 2005): the row's samples are split
 *   into byte planes, most significant byte first (all MSBs of the row, then the next bytes, ...), and the bytes of
 *   that row-long sequence are differenced with a stride of `spp`; undone by a running byte sum and re-interleaving.
 *   Same layout as libtiff's fpAcc / fpDiff (tif_predict.c) and GDAL's writer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decode_core.h"

#define HORIZONTAL(T)                                                    \
  for (uint32_t r = 0; r < rows; r++) {                                  \
    T *row = (T *)buf + (uint64_t)r * width * spp;                       \
    for (uint32_t i = spp; i < width * spp; i++) row[i] += row[i - spp]; \
  }

int32_t dc_predictor_horizontal(uint8_t *buf, uint32_t width, uint32_t rows, uint32_t spp, uint32_t bytes) {
  if (spp == 0) return DC_ERR_ARGUMENT;
  switch (bytes) {
    case 1: HORIZONTAL(uint8_t); return 0;
    case 2: HORIZONTAL(uint16_t); return 0;
    case 4: HORIZONTAL(uint32_t); return 0;
    case 8: HORIZONTAL(uint64_t); return 0;
    default: return DC_ERR_ARGUMENT;
  }
}

/* One row of scratch space (grown as needed, kept across calls). */
static uint8_t *scratch;
static uint32_t scratch_size;

static uint8_t *row_scratch(uint32_t size) {
  if (size > scratch_size) {
    free(scratch);
    scratch = malloc(size);
    scratch_size = scratch ? size : 0;
  }
  return scratch;
}

int32_t dc_predictor_float(uint8_t *buf, uint32_t width, uint32_t rows, uint32_t spp, uint32_t bytes) {
  if (spp == 0 || (bytes != 2 && bytes != 4 && bytes != 8)) return DC_ERR_ARGUMENT;
  uint32_t n = width * spp; /* samples per row */
  uint32_t row_bytes = n * bytes;
  uint8_t *tmp = row_scratch(row_bytes);
  if (!tmp) return DC_ERR_MEMORY;
  for (uint32_t r = 0; r < rows; r++) {
    uint8_t *row = buf + (uint64_t)r * row_bytes;
    for (uint32_t i = spp; i < row_bytes; i++) row[i] += row[i - spp];
    if (bytes == 4) { /* the common FLOAT32 case: assemble whole words rather than scattering bytes */
      uint32_t *dst = (uint32_t *)tmp;
      const uint8_t *p0 = row, *p1 = row + n, *p2 = row + 2 * n, *p3 = row + 3 * n;
      for (uint32_t i = 0; i < n; i++)
        dst[i] = (uint32_t)p0[i] << 24 | (uint32_t)p1[i] << 16 | (uint32_t)p2[i] << 8 | p3[i];
      memcpy(row, tmp, row_bytes);
      continue;
    }
    /* plane b holds byte (bytes - 1 - b) of every sample (MSB first): little-endian output */
    for (uint32_t b = 0; b < bytes; b++) {
      const uint8_t *plane = row + (uint64_t)b * n;
      uint8_t *dst = tmp + (bytes - 1 - b);
      for (uint32_t i = 0; i < n; i++) dst[(uint64_t)i * bytes] = plane[i];
    }
    memcpy(row, tmp, row_bytes);
  }
  return 0;
}

int32_t dc_predictor_float_encode(uint8_t *buf, uint32_t width, uint32_t rows, uint32_t spp, uint32_t bytes) {
  if (spp == 0 || (bytes != 2 && bytes != 4 && bytes != 8)) return DC_ERR_ARGUMENT;
  uint32_t n = width * spp;
  uint32_t row_bytes = n * bytes;
  uint8_t *tmp = row_scratch(row_bytes);
  if (!tmp) return DC_ERR_MEMORY;
  for (uint32_t r = 0; r < rows; r++) {
    uint8_t *row = buf + (uint64_t)r * row_bytes;
    for (uint32_t b = 0; b < bytes; b++) {
      const uint8_t *src = row + (bytes - 1 - b);
      uint8_t *plane = tmp + (uint64_t)b * n;
      for (uint32_t i = 0; i < n; i++) plane[i] = src[(uint64_t)i * bytes];
    }
    for (uint32_t i = row_bytes; i-- > spp;) tmp[i] -= tmp[i - spp];
    memcpy(row, tmp, row_bytes);
  }
  return 0;
}
