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
 *    z_n = x_{2n} + i x_{2n+1} (the samples interleaved), radix 2
 *    (decimation in time), then X_k = E_k + exp(-2 pi i k / M) O_k with
 *    E_k = (Z_k + conj Z_{M/2-k}) / 2, O_k = (Z_k - conj Z_{M/2-k}) / 2i;
 *    its stages SDK_PSD_R at a time on 2^R points held in registers (one
 *    pass over the array for R stages; the bit reversal in the first pass's
 *    loads): each butterfly the same operations on the same operands as
 *    stage by stage, whatever their order, so the same bits, with a third
 *    of the passes through (CUDA's local) memory;
 *  - every product and sum rounded on its own: on CUDA through __dmul_rn,
 *    __dadd_rn, __dsub_rn (never fused, whatever NVRTC's --fmad); in C
 *    each result through an opaque XOR (the CPU kernels' --fast-math, the
 *    default, would reassociate and fuse; the zero from a volatile read,
 *    once per call).
 * Holes: SDK_PSD_CUDA (1 in CUDA kernels, else 0 or undefined; CUDA's also
 * real, sdk_i64, SDK_PSD_M, SDK_PSD_HANN and the table sdk_psd_ctab of
 * codegen/psd.c). */
#if defined(SDK_PSD_CUDA) && SDK_PSD_CUDA
#define SDK_PSD_FN static __device__
#define SDK_PSD_INL static __device__ __forceinline__
/* (a pass's 2^R points and twiddles in registers: its loops unrolled) */
#define SDK_PSD_UNROLL _Pragma("unroll")
#define SDK_PSD_MUL(a, b) __dmul_rn((a), (b))
#define SDK_PSD_ADD(a, b) __dadd_rn((a), (b))
#define SDK_PSD_SUB(a, b) __dsub_rn((a), (b))
#define SDK_PSD_KZ /* (no opaque zero) */
/* (loops kept rolled: unrolled, the transform took the kernel to 255
 * registers) */
#define SDK_PSD_ROLLED _Pragma("unroll 1")
/* the kernel's first pass reads the path's ring (kernels/psd_seg.h: the
 * samples oldest first, windowed as they are read; no array of them) */
typedef struct {
  const real *r;
  sdk_i64 npad, smp;
} sdk_psd_ring;
#define SDK_PSD_SRC sdk_psd_ring
#define SDK_PSD_X(s, m)                                                                            \
  SDK_PSD_MUL(sdk_psd_window((m), SDK_PSD_M, SDK_PSD_HANN, sdk_psd_ctab),                          \
              (double)(s).r[(((s).smp + 1 + (m)) & (SDK_PSD_M - 1)) * (s).npad])
#else
#define SDK_PSD_ROLLED
#define SDK_PSD_UNROLL
/* (the CPU kernels' default --fast-math reassociates and contracts into
 * fused multiply-adds, and clang's -ffast-math -fno-finite-math-only names
 * itself by no macro: every result through an XOR of its bits with a zero
 * that a volatile read gives, which no optimiser sees through, wherever C
 * compiles it: sdk_opqd_ of kernels/opaque_d.h, included or emitted before
 * this text) */
static volatile int sdk_psd_zero_;
/* (every function reads the zero once) */
#define SDK_PSD_KZ const int sdk_kz_ = sdk_psd_zero_
#define SDK_PSD_FN static inline
#define SDK_PSD_INL static inline
#define SDK_PSD_MUL(a, b) sdk_opqd_((a) * (b), sdk_kz_)
#define SDK_PSD_ADD(a, b) sdk_opqd_((a) + (b), sdk_kz_)
#define SDK_PSD_SUB(a, b) sdk_opqd_((a) - (b), sdk_kz_)
#endif
/* stages per pass (2^R points in registers): 3 keeps CUDA's kernel at 128
 * registers (512 threads an SM); 4 took 168 (256 threads) and measured 0.034
 * of the plain steps/s against 3's 0.043 (M = 256, an H200, 2026-11-28) */
#ifndef SDK_PSD_R
#define SDK_PSD_R 3
#endif
/* the first pass's source of the windowed samples x_m: an array (the host,
 * the CPU kernels), or what the CUDA kernel defines (kernels/psd_seg.h's
 * ring, before this text) */
#ifndef SDK_PSD_SRC
#define SDK_PSD_SRC const double *
#define SDK_PSD_X(src, m) ((src)[m])
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

/* the twiddles exp(-2 pi i k / 2h) of the r stages of a pass (half-lengths
 * h = H 2^s, s < r) at the points lo + t H (lo < H): stage s's 2^s of them,
 * k = lo + q H (q < 2^s), in w[2 (2^s - 1 + q)], w[2 (2^s - 1 + q) + 1] */
SDK_PSD_INL void sdk_psd_twiddles(double *w, int r, long long lo, long long H, long long M,
                                  const double *tab) {
  SDK_PSD_UNROLL
  for (int s = 0; s < r; s++)
    SDK_PSD_UNROLL
  for (int q = 0; q < (1 << s); q++) {
    const long long e = (lo + q * H) * (M / (2 * (H << s)));
    w[2 * ((1 << s) - 1 + q)] = sdk_psd_cos(e, M, tab);
    w[2 * ((1 << s) - 1 + q) + 1] = -sdk_psd_sin(e, M, tab);
  }
}

/* the r stages of a pass on its 2^r points v[2 t], v[2 t + 1] (the point
 * b + t H), twiddles w (sdk_psd_twiddles): at stage s the butterflies
 * (t, t + 2^s), bit s of t clear, each as the stage-by-stage transform's
 * (a, b) <- (a + w b, a - w b) */
SDK_PSD_INL void sdk_psd_stages(double *v, const double *w, int r) {
  SDK_PSD_KZ;
  SDK_PSD_UNROLL
  for (int s = 0; s < r; s++)
    SDK_PSD_UNROLL
  for (int q = 0; q < (1 << s); q++) {
    const double wr = w[2 * ((1 << s) - 1 + q)], wi = w[2 * ((1 << s) - 1 + q) + 1];
    SDK_PSD_UNROLL
    for (int t = q; t < (1 << r); t += 2 << s) {
      double *a = v + 2 * t, *b = v + 2 * (t + (1 << s));
      const double tr = SDK_PSD_SUB(SDK_PSD_MUL(b[0], wr), SDK_PSD_MUL(b[1], wi));
      const double ti = SDK_PSD_ADD(SDK_PSD_MUL(b[0], wi), SDK_PSD_MUL(b[1], wr));
      b[0] = SDK_PSD_SUB(a[0], tr), b[1] = SDK_PSD_SUB(a[1], ti);
      a[0] = SDK_PSD_ADD(a[0], tr), a[1] = SDK_PSD_ADD(a[1], ti);
    }
  }
}

/* the first pass: the stages of half-lengths 1 .. 2^(r-1) on the points
 * z_i = x_{2 j} + i x_{2 j + 1}, j the bit reversal of i over n bits (2^n =
 * M/2), 2^r at a time, from x into z (the twiddles the same for every
 * group) */
SDK_PSD_INL void sdk_psd_first(SDK_PSD_SRC x, double *z, long long M, int n, int r,
                               const double *tab) {
  double w[2 * ((1 << SDK_PSD_R) - 1)];
  sdk_psd_twiddles(w, r, 0, 1, M, tab);
  SDK_PSD_ROLLED
  for (long long g = 0; g < M / 2; g += (long long)1 << r) {
    long long rg = 0; /* the reversal of g (its low r bits clear) */
    SDK_PSD_ROLLED
    for (int b = r; b < n; b++)
      rg |= ((g >> b) & 1) << (n - 1 - b);
    double v[2 << SDK_PSD_R];
    SDK_PSD_UNROLL
    for (int t = 0; t < (1 << r); t++) {
      long long rt = 0; /* the reversal of t, its r bits to the top */
      SDK_PSD_UNROLL
      for (int b = 0; b < r; b++)
        rt |= (long long)((t >> b) & 1) << (n - 1 - b);
      v[2 * t] = SDK_PSD_X(x, 2 * (rg | rt));
      v[2 * t + 1] = SDK_PSD_X(x, 2 * (rg | rt) + 1);
    }
    sdk_psd_stages(v, w, r);
    SDK_PSD_UNROLL
    for (int t = 0; t < 2 << r; t++)
      z[2 * g + t] = v[t];
  }
}

/* a later pass, in place: the stages of half-lengths H .. H 2^(R-1) on the
 * points b + t H (t < 2^R), b = lo + c H 2^R, lo < H: the twiddles once per lo */
SDK_PSD_FN void sdk_psd_pass(double *z, long long M, long long H, const double *tab) {
  SDK_PSD_ROLLED
  for (long long lo = 0; lo < H; lo++) {
    double w[2 * ((1 << SDK_PSD_R) - 1)];
    sdk_psd_twiddles(w, SDK_PSD_R, lo, H, M, tab);
    SDK_PSD_ROLLED
    for (long long b = lo; b < M / 2; b += H << SDK_PSD_R) {
      double v[2 << SDK_PSD_R];
      SDK_PSD_UNROLL
      for (int t = 0; t < 1 << SDK_PSD_R; t++)
        v[2 * t] = z[2 * (b + t * H)], v[2 * t + 1] = z[2 * (b + t * H) + 1];
      sdk_psd_stages(v, w, SDK_PSD_R);
      SDK_PSD_UNROLL
      for (int t = 0; t < 1 << SDK_PSD_R; t++)
        z[2 * (b + t * H)] = v[2 * t], z[2 * (b + t * H) + 1] = v[2 * t + 1];
    }
  }
}

/* z[0 .. M): the complex transform of M/2 points (above) of the windowed
 * samples x_0 .. x_{M-1} (SDK_PSD_X(x, m)), for sdk_psd_power; x is not z */
SDK_PSD_FN void sdk_psd_fft(SDK_PSD_SRC x, double *z, long long M, const double *tab) {
  int n = 0; /* 2^n = M/2 points; the first pass the rest of n / R */
  while (((long long)2 << n) < M)
    n++;
  const int r1 = n - SDK_PSD_R * ((n - 1) / SDK_PSD_R);
  /* (r1 a constant in each call: the first pass's points in registers) */
  switch (r1) {
  case 1: sdk_psd_first(x, z, M, n, 1, tab); break;
#if SDK_PSD_R > 2
  case 2: sdk_psd_first(x, z, M, n, 2, tab); break;
#endif
#if SDK_PSD_R > 3
  case 3: sdk_psd_first(x, z, M, n, 3, tab); break;
#endif
  default: sdk_psd_first(x, z, M, n, SDK_PSD_R, tab); break;
  }
  SDK_PSD_ROLLED
  for (int s = r1; s < n; s += SDK_PSD_R)
    sdk_psd_pass(z, M, (long long)1 << s, tab);
}

/* |X_k|^2, 0 <= k <= M/2, from sdk_psd_fft's Z_a = zr + i zi and
 * Z_b = yr + i yi, a = k mod M/2, b = (M/2 - a) mod M/2 */
SDK_PSD_FN double sdk_psd_power2(double zr, double zi, double yr, double yi, long long M,
                                 long long k, const double *tab) {
  SDK_PSD_KZ;
  const double er = SDK_PSD_MUL(0.5, SDK_PSD_ADD(zr, yr)),
               ei = SDK_PSD_MUL(0.5, SDK_PSD_SUB(zi, yi));
  const double orr = SDK_PSD_MUL(0.5, SDK_PSD_ADD(zi, yi)),
               oi = SDK_PSD_MUL(0.5, SDK_PSD_SUB(yr, zr));
  const double c = sdk_psd_cos(k, M, tab), s = sdk_psd_sin(k, M, tab);
  const double xr = SDK_PSD_ADD(er, SDK_PSD_ADD(SDK_PSD_MUL(c, orr), SDK_PSD_MUL(s, oi)));
  const double xi = SDK_PSD_ADD(ei, SDK_PSD_SUB(SDK_PSD_MUL(c, oi), SDK_PSD_MUL(s, orr)));
  return SDK_PSD_ADD(SDK_PSD_MUL(xr, xr), SDK_PSD_MUL(xi, xi));
}

/* |X_k|^2, 0 <= k <= M/2, from sdk_psd_fft's z */
SDK_PSD_FN double sdk_psd_power(const double *z, long long M, long long k, const double *tab) {
  const long long N = M / 2, a = k % N, b = (N - a) % N;
  return sdk_psd_power2(z[2 * a], z[2 * a + 1], z[2 * b], z[2 * b + 1], M, k, tab);
}
