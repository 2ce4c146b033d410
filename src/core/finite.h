/* sdekit: the first value of an array that is NaN or infinite.
 *
 * Values given per path (issue 28) are checked as they are uploaded: a grid
 * of 1.7 million paths is tens of millions of values, and a loop that stops
 * at the first bad one runs a compare and a branch per value (measured on a
 * GPU machine's host at 1.4 ns a value, 25 ms of a 220 ms call; issue 32).
 * So a block is first tested branch-free on the exponent bits, which
 * compilers vectorise at -O2, and only a block that holds a bad value is
 * searched for it.  Bits, not isfinite(): the answer must not depend on the
 * compiler's floating-point mode. */
#ifndef SDK_FINITE_H
#define SDK_FINITE_H

#include <stdint.h>

/* what sdk_first_not_float accepts, for messages */
#define SDK_FLOAT_RANGE "0, or 1.2e-38 to 3.4e38 in magnitude"

/* the index of the first NaN or Inf of v[0..n), or -1 when every one is finite */
int64_t sdk_first_nonfinite(const double *v, int64_t n);

/* the index of the first value of v[0..n) that a single-precision run
 * cannot hold, or -1: one not finite once rounded to float (a finite double
 * beyond FLT_MAX, by more than half an ulp of it, becomes Inf), or one not 0
 * that rounds to a float below FLT_MIN (1.2e-38: a subnormal, which fast
 * math flushes to 0, or 0 itself) */
int64_t sdk_first_not_float(const double *v, int64_t n);

#endif
