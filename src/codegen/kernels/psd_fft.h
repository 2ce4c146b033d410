#line 2 "kernels/psd_fft.h"
/* The periodogram of one path's segment for --observe psd (Welch's method,
 * observe/obs_psd.c), one text for the host (obs_psd.c includes it) and the
 * kernels (codegen/psd.c embeds it: C on the CPU backend, CUDA through
 * NVRTC), so that both give the same bits in double precision:
 *  - the twiddles and the Hann window from cos(2 pi n / M) by the same
 *    operations everywhere (no libm, whose cos differs between glibc and
 *    CUDA): n reduced to [0, M/8] by the symmetries of cos and sin (exact),
 *    x = (n / M) 2 pi (n / M exact: M a power of 2), then the Taylor
 *    polynomials of sin and cos to x^17 and x^16 by Horner's rule (their
 *    remainders below 1e-16 relative for x <= pi/4): within a few ulp of
 *    cos, the same bits on every machine;
 *  - the real transform of M samples as a complex transform of M/2 points
 *    z_n = x_{2n} + i x_{2n+1} (the samples' own array, interleaved), radix
 *    2 in place, then X_k = E_k + exp(-2 pi i k / M) O_k with
 *    E_k = (Z_k + conj Z_{M/2-k}) / 2, O_k = (Z_k - conj Z_{M/2-k}) / 2i;
 *  - every product and sum rounded on its own: on CUDA through __dmul_rn,
 *    __dadd_rn, __dsub_rn (never fused, whatever NVRTC's --fmad); in C
 *    each result through an opaque XOR (the CPU kernels' --fast-math, the
 *    default, would reassociate and fuse; the zero from a volatile read,
 *    once per call).
 * Holes: SDK_PSD_CUDA (1 in CUDA kernels, else 0 or undefined). */
#if defined(SDK_PSD_CUDA) && SDK_PSD_CUDA
#define SDK_PSD_FN static __device__
#define SDK_PSD_MUL(a, b) __dmul_rn((a), (b))
#define SDK_PSD_ADD(a, b) __dadd_rn((a), (b))
#define SDK_PSD_SUB(a, b) __dsub_rn((a), (b))
#define SDK_PSD_KZ /* (no opaque zero) */
/* (loops kept rolled: unrolled, the transform took the kernel to 255
 * registers) */
#define SDK_PSD_ROLLED _Pragma("unroll 1")
#else
#define SDK_PSD_ROLLED
/* (the CPU kernels' default --fast-math reassociates and contracts into
 * fused multiply-adds, and clang's -ffast-math -fno-finite-math-only names
 * itself by no macro: every result through an XOR of its bits with a zero
 * that a volatile read gives, which no optimiser sees through, wherever C
 * compiles it) */
static volatile int sdk_psd_zero_;
static inline double sdk_psd_opq_(double v, int k) {
  union {
    double f;
    long long i;
  } u;
  u.f = v;
  u.i ^= k;
  return u.f;
}
/* (every function reads the zero once) */
#define SDK_PSD_KZ const int sdk_kz_ = sdk_psd_zero_
#define SDK_PSD_FN static inline
#define SDK_PSD_MUL(a, b) sdk_psd_opq_((a) * (b), sdk_kz_)
#define SDK_PSD_ADD(a, b) sdk_psd_opq_((a) + (b), sdk_kz_)
#define SDK_PSD_SUB(a, b) sdk_psd_opq_((a) - (b), sdk_kz_)
#endif

/* cos(2 pi n / M) for 0 <= n <= M/4 (a quarter wave) */
SDK_PSD_FN double sdk_psd_quarter(long long n, long long M) {
  SDK_PSD_KZ;
  const int sine = 8 * n > M; /* cos x = sin(pi/2 - x) past pi/4 */
  const long long m = sine ? M / 4 - n : n;
  const double x = SDK_PSD_MUL((double)m / (double)M, 6.283185307179586);
  const double x2 = SDK_PSD_MUL(x, x);
  double p;
  if (sine) { /* x (1 - x^2/3! + ... + x^16/17!) */
    p = 2.8114572543455206e-15;
    p = SDK_PSD_SUB(7.647163731819816e-13, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(1.6059043836821613e-10, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(2.505210838544172e-08, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(2.7557319223985893e-06, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(0.0001984126984126984, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(0.008333333333333333, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(0.16666666666666666, SDK_PSD_MUL(x2, p));
    p = SDK_PSD_SUB(1.0, SDK_PSD_MUL(x2, p));
    return SDK_PSD_MUL(x, p);
  }
  p = 4.779477332387385e-14; /* 1 - x^2/2! + ... + x^16/16! */
  p = SDK_PSD_SUB(1.1470745597729725e-11, SDK_PSD_MUL(x2, p));
  p = SDK_PSD_SUB(2.08767569878681e-09, SDK_PSD_MUL(x2, p));
  p = SDK_PSD_SUB(2.755731922398589e-07, SDK_PSD_MUL(x2, p));
  p = SDK_PSD_SUB(2.48015873015873e-05, SDK_PSD_MUL(x2, p));
  p = SDK_PSD_SUB(0.001388888888888889, SDK_PSD_MUL(x2, p));
  p = SDK_PSD_SUB(0.041666666666666664, SDK_PSD_MUL(x2, p));
  p = SDK_PSD_SUB(0.5, SDK_PSD_MUL(x2, p));
  return SDK_PSD_SUB(1.0, SDK_PSD_MUL(x2, p));
}

/* cos(2 pi n / M) for any n, from the quarter wave: tab[n] = sdk_psd_quarter(n, M)
 * for n <= M/4 (the host's table), or NULL (computed: the same bits) */
SDK_PSD_FN double sdk_psd_cos(long long n, long long M, const double *tab) {
  n &= M - 1;
  if (2 * n > M) n = M - n;
  const int neg = 4 * n > M;
  if (neg) n = M / 2 - n;
  const double v = tab ? tab[n] : sdk_psd_quarter(n, M);
  return neg ? -v : v;
}

/* sin(2 pi n / M) = cos(2 pi (n - M/4) / M) */
SDK_PSD_FN double sdk_psd_sin(long long n, long long M, const double *tab) {
  return sdk_psd_cos(n + 3 * (M / 4), M, tab);
}

/* window value w_m (hann: the periodic Hann window 1/2 - 1/2 cos(2 pi m / M); else 1) */
SDK_PSD_FN double sdk_psd_window(long long m, long long M, int hann, const double *tab) {
  SDK_PSD_KZ;
  return hann ? SDK_PSD_SUB(0.5, SDK_PSD_MUL(0.5, sdk_psd_cos(m, M, tab))) : 1.0;
}

/* in place, z[0 .. M) the windowed samples x_0 .. x_{M-1} in order: their
 * complex transform of M/2 points (above), for sdk_psd_power */
SDK_PSD_FN void sdk_psd_fft(double *z, long long M, const double *tab) {
  SDK_PSD_KZ;
  const long long N = M / 2;
  SDK_PSD_ROLLED
  for (long long i = 1, j = 0; i < N; i++) {
    long long bit = N >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) {
      double t = z[2 * i];
      z[2 * i] = z[2 * j], z[2 * j] = t;
      t = z[2 * i + 1], z[2 * i + 1] = z[2 * j + 1], z[2 * j + 1] = t;
    }
  }
  SDK_PSD_ROLLED
  for (long long len = 2; len <= N; len <<= 1)
    SDK_PSD_ROLLED
  for (long long k = 0; k < len / 2; k++) {
    /* exp(-2 pi i k / len) */
    const double wr = sdk_psd_cos(k * (M / len), M, tab), wi = -sdk_psd_sin(k * (M / len), M, tab);
    SDK_PSD_ROLLED
    for (long long i = k; i < N; i += len) {
      double *a = z + 2 * i, *b = z + 2 * (i + len / 2);
      const double tr = SDK_PSD_SUB(SDK_PSD_MUL(b[0], wr), SDK_PSD_MUL(b[1], wi));
      const double ti = SDK_PSD_ADD(SDK_PSD_MUL(b[0], wi), SDK_PSD_MUL(b[1], wr));
      b[0] = SDK_PSD_SUB(a[0], tr), b[1] = SDK_PSD_SUB(a[1], ti);
      a[0] = SDK_PSD_ADD(a[0], tr), a[1] = SDK_PSD_ADD(a[1], ti);
    }
  }
}

/* |X_k|^2, 0 <= k <= M/2, from sdk_psd_fft's z */
SDK_PSD_FN double sdk_psd_power(const double *z, long long M, long long k, const double *tab) {
  SDK_PSD_KZ;
  const long long N = M / 2, a = k % N, b = (N - a) % N;
  const double zr = z[2 * a], zi = z[2 * a + 1], yr = z[2 * b], yi = z[2 * b + 1];
  const double er = SDK_PSD_MUL(0.5, SDK_PSD_ADD(zr, yr)),
               ei = SDK_PSD_MUL(0.5, SDK_PSD_SUB(zi, yi));
  const double orr = SDK_PSD_MUL(0.5, SDK_PSD_ADD(zi, yi)),
               oi = SDK_PSD_MUL(0.5, SDK_PSD_SUB(yr, zr));
  const double c = sdk_psd_cos(k, M, tab), s = sdk_psd_sin(k, M, tab);
  const double xr = SDK_PSD_ADD(er, SDK_PSD_ADD(SDK_PSD_MUL(c, orr), SDK_PSD_MUL(s, oi)));
  const double xi = SDK_PSD_ADD(ei, SDK_PSD_SUB(SDK_PSD_MUL(c, oi), SDK_PSD_MUL(s, orr)));
  return SDK_PSD_ADD(SDK_PSD_MUL(xr, xr), SDK_PSD_MUL(xi, xi));
}
