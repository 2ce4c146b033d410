/* sdekit: the first non-finite value of an array (core/finite.h). */
#include "core/finite.h"

#include <string.h>

/* The high word of a double holds its 11 exponent bits at 20..30; all ones
 * is NaN or Inf.  (hi & 0x7ff00000) + 0x00100000 sets bit 31 exactly then
 * (the largest finite exponent, 0x7fe00000, gives 0x7ff00000), so one OR
 * of those sums over a block says whether any value of it is not finite. */
static int block_finite(const double *v, int64_t n) {
  uint32_t acc = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t b;
    memcpy(&b, &v[i], sizeof b);
    acc |= ((uint32_t)(b >> 32) & 0x7ff00000u) + 0x00100000u;
  }
  return !(acc & 0x80000000u);
}

int64_t sdk_first_nonfinite(const double *v, int64_t n) {
  enum { BLOCK = 4096 };
  for (int64_t a = 0; a < n; a += BLOCK) {
    int64_t len = n - a < BLOCK ? n - a : BLOCK;
    if (block_finite(v + a, len)) continue;
    for (int64_t i = a; i < a + len; i++) {
      uint64_t b;
      memcpy(&b, &v[i], sizeof b);
      if ((b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) return i;
    }
  }
  return -1;
}
