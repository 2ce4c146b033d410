/* sdekit: the first non-finite value of an array (core/finite.h). */
#include "core/finite.h"

#include <string.h>

/* The high word of a double holds its 11 exponent bits at 20..30; all ones
 * is NaN or Inf.  (hi & 0x7ff00000) + 0x00100000 sets bit 31 exactly then
 * (the largest finite exponent, 0x7fe00000, gives 0x7ff00000), so one OR
 * of those sums over a block says whether any value of it is not finite. */
static inline uint32_t exponent_or(const double *v, int64_t n) {
  uint32_t acc = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t b;
    memcpy(&b, &v[i], sizeof b);
    acc |= ((uint32_t)(b >> 32) & 0x7ff00000u) + 0x00100000u;
  }
  return acc;
}

/* the same test on the float each value rounds to (exponent bits 23..30),
 * and bit 31 also where that float's exponent is 0 (subnormal or zero) but
 * the value is not 0 */
static inline uint32_t float_exponent_or(const double *v, int64_t n) {
  uint32_t acc = 0;
  for (int64_t i = 0; i < n; i++) {
    float f = (float)v[i];
    uint32_t b;
    uint64_t d;
    memcpy(&b, &f, sizeof b);
    memcpy(&d, &v[i], sizeof d);
    uint32_t tiny = (uint32_t)((b & 0x7f800000u) == 0) & (uint32_t)((d << 1) != 0);
    acc |= ((b & 0x7f800000u) + 0x00800000u) | tiny << 31;
  }
  return acc;
}

/* (a whole block with its length a constant: GCC's -O2 vectorises only a
 * loop that needs no remainder, and that made the test 3x faster) */
enum { BLOCK = 4096 };
static int block_finite(const double *v, int64_t n) {
  return !((n == BLOCK ? exponent_or(v, BLOCK) : exponent_or(v, n)) & 0x80000000u);
}
static int block_float_finite(const double *v, int64_t n) {
  return !((n == BLOCK ? float_exponent_or(v, BLOCK) : float_exponent_or(v, n)) & 0x80000000u);
}

/* blocks first, the one value only in a block that fails */
static int64_t first_failing(const double *v, int64_t n, int (*ok)(const double *, int64_t)) {
  for (int64_t a = 0; a < n; a += BLOCK) {
    int64_t len = n - a < BLOCK ? n - a : BLOCK;
    if (ok(v + a, len)) continue;
    for (int64_t i = a; i < a + len; i++)
      if (!ok(v + i, 1)) return i;
  }
  return -1;
}

int64_t sdk_first_nonfinite(const double *v, int64_t n) {
  return first_failing(v, n, block_finite);
}

int64_t sdk_first_not_float(const double *v, int64_t n) {
  return first_failing(v, n, block_float_finite);
}
