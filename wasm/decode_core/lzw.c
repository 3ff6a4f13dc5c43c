/*
 * TIFF LZW decoding (Compression = 5), written for EO Edge from the TIFF 6.0 specification, section 13
 * ("LZW Compression"), since no maintained C library offers it as a standalone unit (libtiff's tif_lzw.c is
 * bound to the TIFF struct). Only the TIFF 6.0 ("new-style") code stream is read: codes are packed most
 * significant bit first; the very old pre-6.0 LSB-first variant (libtiff's "compat" mode) is not supported.
 *
 * The code stream: code 256 = ClearCode (reset the table), 257 = EoiCode (end of information), the first free
 * table entry is 258. Codes start 9 bits wide; as in every TIFF writer, the width grows one code early: after
 * table entry 510 (1022, 2046) has been added, the next code is read with 10 (11, 12) bits. The table holds at
 * most 4096 entries (writers emit a ClearCode before that; extra entries are simply not added).
 *
 * Every table entry is stored as (prefix code, last byte, length, first byte), so a string is written
 * back to front by walking its prefix chain, without any per-entry buffer.
 */
#include <stdint.h>
#include "decode_core.h"

#define CLEAR_CODE 256
#define EOI_CODE 257
#define FIRST_FREE 258
#define MAX_CODES 4096

static uint16_t prefix[MAX_CODES];
static uint8_t suffix[MAX_CODES];
static uint8_t first[MAX_CODES];
static uint16_t length[MAX_CODES];

/* Reads the next `width`-bit code, MSB first; -1 when the input is exhausted. */
static int next_code(const uint8_t *in, uint32_t in_len, uint64_t *bitpos, int width) {
  uint64_t pos = *bitpos;
  if (pos + (uint64_t)width > (uint64_t)in_len * 8) return -1;
  uint32_t byte = (uint32_t)(pos >> 3);
  /* up to 12 bits starting anywhere in a byte span at most 3 bytes */
  uint32_t window = (uint32_t)in[byte] << 16;
  if (byte + 1 < in_len) window |= (uint32_t)in[byte + 1] << 8;
  if (byte + 2 < in_len) window |= in[byte + 2];
  int shift = 24 - (int)(pos & 7) - width;
  *bitpos = pos + (uint64_t)width;
  return (int)((window >> shift) & ((1u << width) - 1));
}

/* Writes table entry `code` at out + n (at most `cap - n` bytes: a longer string is cut at the capacity). */
static uint32_t write_string(int code, uint8_t *out, uint32_t n, uint32_t cap) {
  uint32_t len = length[code];
  uint32_t end = n + len;
  for (uint32_t i = end; i > n; i--) {
    if (i <= cap) out[i - 1] = suffix[code];
    code = prefix[code];
  }
  return end > cap ? cap : end;
}

static void init_table(void) {
  for (int i = 0; i < 256; i++) {
    prefix[i] = 0;
    suffix[i] = (uint8_t)i;
    first[i] = (uint8_t)i;
    length[i] = 1;
  }
}

/* Code width for the next code given the next free table entry (one code early, see above). */
static int width_for(int next) {
  return next + 1 >= 2048 ? 12 : next + 1 >= 1024 ? 11 : next + 1 >= 512 ? 10 : 9;
}

int32_t dc_lzw(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap) {
  uint64_t bitpos = 0;
  uint32_t n = 0;
  int next = FIRST_FREE, old = -1;
  /* a TIFF 6.0 stream opens with a ClearCode (first byte 0x80); pre-6.0 LSB-first streams open with 0x00 and an odd
     second byte (libtiff's test): refused rather than decoded into wrong samples */
  if (in_len >= 2 && in[0] == 0 && (in[1] & 1)) return DC_ERR_ARGUMENT;
  init_table();
  for (;;) {
    if (n >= cap) return (int32_t)n; /* the block is full: trailing codes (EOI) are not needed */
    int code = next_code(in, in_len, &bitpos, width_for(next));
    if (code < 0) return (int32_t)n; /* no EoiCode: the data ends here; the caller checks the length */
    if (code == EOI_CODE) return (int32_t)n;
    if (code == CLEAR_CODE) {
      next = FIRST_FREE;
      old = -1;
      continue;
    }
    if (old < 0) { /* first code after a ClearCode: a single byte */
      if (code > 255) return DC_ERR_CORRUPT;
      n = write_string(code, out, n, cap);
      old = code;
      continue;
    }
    if (code > next) return DC_ERR_CORRUPT;
    /* new entry: old + first byte of `code`; when code == next (the KwKwK case) that byte is old's first */
    if (next < MAX_CODES) {
      prefix[next] = (uint16_t)old;
      suffix[next] = code < next ? first[code] : first[old];
      first[next] = first[old];
      length[next] = (uint16_t)(length[old] + 1);
      next++;
    } else if (code == next) {
      return DC_ERR_CORRUPT;
    }
    n = write_string(code, out, n, cap);
    old = code;
  }
}
