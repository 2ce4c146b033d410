#line 2 "kernels/levy_draw.h"
/* The model-free parts of a single-precision alpha-stable draw
 * (codegen/colored_levy.c derives the draw and keys its words): from one
 * 32-bit word W ~ Exp(1) (log2 W on the GPU); from another V, uniform in (-pi/2, pi/2),
 * as its sign and the distance d of its uniform to the nearer end, with
 * log2 cos V and sin(pi d) / d of relative precision as V nears
 * +-pi/2.  C11 for the CPU backend and CUDA C++ for NVRTC.  Holes: sdk_u32
 * (rng/philox.h).
 *
 * A word o stands for U = (o + 1/2) 2^-32; its half nearer 0 is
 * (m + 1/2) 2^-32 with m = o or ~o (m < 2^31: an int), which a float holds
 * to a rounding (2^-24 relative) down to 2^-33.  The polynomials are fits
 * of the functions named (Lawson's weighted least squares on 4000
 * Chebyshev nodes, mpmath references): the largest absolute error of each
 * is in its comment, below a float's rounding of the sums they enter. */
#ifdef __CUDACC__
#define SDK_LVFN __device__ __forceinline__
#elif defined(__GNUC__) /* inlined into the CPU's simd step loops */
#define SDK_LVFN static inline __attribute__((always_inline, unused))
#else
#define SDK_LVFN static inline
#endif
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
/* one MUFU instruction each (fast math: lg2.approx relative within 2 ulp
 * outside [1/2, 2], absolute 2^-22 inside; ex2.approx relative 2 ulp) */
#define SDK_LG2F(x) __log2f(x)
#define SDK_EX2F(x) exp2f(x)
#define SDK_FMAF(a, b, c) fmaf(a, b, c) /* (NVVM leaves c - k x, k < 0, as two) */
#else
#define SDK_FMAF(a, b, c) ((a) * (b) + (c)) /* (contracted under fast math) */
/* (logf, expf: the CPU compilers vectorise these, not log2f or exp2f) */
#define SDK_LG2F(x) (logf(x) * 1.44269504f)
#define SDK_EX2F(x) expf((x)*0.693147181f)
#endif

/* The CPU's loop of a sub-chunk's draws (colored_levy.c,
 * sdk_cg_levy_cpu_draws): its vector iterations interleaved, as in the
 * step loop, whose body the draws had been part of (Philox's chains of
 * multiplies and the vector libm calls of one vector alone leave the core
 * idle: without, the pairs' half of the Philox rounds saved nothing; 4
 * measured best, 8 no better than 1) */
#if defined(__clang__) && __clang_major__ >= 13
#define SDK_LV_LOOP _Pragma("clang loop interleave_count(4)")
#else
#define SDK_LV_LOOP
#endif

/* (m + 1/2) 2^-32 to a rounding */
SDK_LVFN float sdk_lv_u_(sdk_u32 m) {
  return (float)m * 2.32830644e-10f + 1.16415322e-10f;
}

/* W = -ln U ~ Exp(1), U = (o + 1/2) 2^-32: W in [1.2e-10, 22.9].  U < 3/4:
 * W = -ln U by a log (at least ln(4/3): the GPU's log2 error 2^-22 is 6e-7
 * of W there).  U >= 3/4: Q = 1 - U from ~o (full relative precision as
 * W -> 0, where W^((a - 1) / a) makes the tail for a < 1), W = Q h(Q), h(Q)
 * = -ln(1 - Q) / Q on [0, 1/4] by a polynomial (relative error 2.5e-9). */
SDK_LVFN float sdk_levy_w_f(sdk_u32 o) {
  const int lo = o >= 0xc0000000u;
  const float x = sdk_lv_u_(lo ? ~o : o);
  const float p =
      x * (4.999990509e-01f +
           x * (3.333918992e-01f +
                x * (2.486535850e-01f +
                     x * (2.145348619e-01f + x * (8.851621476e-02f + x * 3.352480649e-01f)))));
  const float w = SDK_LG2F(x) * -0.693147181f; /* (U >= 3/4: unused) */
  return lo ? x + x * p : w;
}

#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
/* log2 W as sdk_levy_w_f's W: U < 3/4 a second log; U >= 3/4 log2 Q +
 * H(Q), H(Q) = log2 h(Q) on [0, 1/4] (error 4.1e-8) */
SDK_LVFN float sdk_levy_lw_f(sdk_u32 o) {
  const int lo = o >= 0xc0000000u;
  const float x = sdk_lv_u_(lo ? ~o : o), l = SDK_LG2F(x);
  const float h =
      x * (7.213531310e-01f +
           x * (3.003100434e-01f +
                x * (1.844150107e-01f + x * (9.655844457e-02f + x * 1.852393476e-01f))));
  const float lw = SDK_LG2F(l * -0.693147181f); /* (U >= 3/4: a positive argument, unused) */
  return lo ? l + h : lw;
}
#endif

/* log2(c / W), W = sdk_levy_w_f(o), c > 0: on the GPU two logs of W (two
 * MUFU.LG2, where the quotient took a MUFU.RCP and a multiply), on the CPU
 * one log of the quotient (a division costs less than a vector log) */
SDK_LVFN float sdk_levy_lq_f(float c, sdk_u32 o) {
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
  return SDK_LG2F(c) - sdk_levy_lw_f(o);
#else
  return SDK_LG2F(c / sdk_levy_w_f(o));
#endif
}

/* V = pi (U - 1/2) = pi (s + 1/2) 2^-32, s = o - 2^31 as a signed int:
 * returns s as a float (V's sign is s's; the caller's sine and cosine
 * arguments are FMAs of it: their absolute precision is what counts) */
SDK_LVFN float sdk_levy_s_f(sdk_u32 o) {
  return (float)(int)(o ^ 0x80000000u);
}

/* d = 1/2 - |U - 1/2|, the distance of U to the nearer end, in (0, 1/2]:
 * |V| = pi/2 - pi d, cos V = sin(pi d) */
SDK_LVFN float sdk_levy_d_f(sdk_u32 o) {
  return sdk_lv_u_(o ^ (sdk_u32)((int)o >> 31));
}

/* sin(pi d) / d on [0, 1/2], a polynomial in z = d^2 (error 1.3e-8) */
SDK_LVFN float sdk_levy_psin_f(float d) {
  const float z = d * d;
  return 3.141592640e+00f +
         z * (-5.167710090e+00f +
              z * (2.550077660e+00f + z * (-5.982921591e-01f + z * 7.765940739e-02f)));
}

/* log2 cos V = log2 sin(pi d): relative precision down to d = 2^-33 */
SDK_LVFN float sdk_levy_lcos_f(float d) {
  return SDK_LG2F(d * sdk_levy_psin_f(d));
}
