#line 2 "kernels/opaque_d.h"
/* C kernels and the host: sdk_opqd_(v, k), the bits of a double XORed with
 * k, a zero that a volatile read gives and no optimiser sees through, so
 * that v is rounded on its own under the CPU kernels' --fast-math (the
 * double precision twin of kernels/opaque.h's SDK_OPQ).  One text for acf
 * (kernels/acf_add.h) and psd (kernels/psd_fft.h), emitted before each on
 * the CPU backend (codegen/acf.c, codegen/psd.c): guarded, as a kernel with
 * both gets it twice.  Not in CUDA kernels (__dmul_rn and kin there). */
#ifndef SDK_OPQD_H_
#define SDK_OPQD_H_
static inline double sdk_opqd_(double v, int k) {
  union {
    double f;
    long long i;
  } u;
  u.f = v;
  u.i ^= k;
  return u.f;
}
#endif
