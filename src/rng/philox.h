/* Counter-based random numbers shared by the C and CUDA backends.
 *
 * This header compiles unchanged as C11, as CUDA C++ under nvcc, and under
 * NVRTC (where it includes nothing).  It is embedded as text into generated
 * kernel source, so it depends on no other project file.
 *
 * Generator: Philox4x32-10 (J. K. Salmon, M. A. Moraes, R. O. Dror,
 * D. E. Shaw, "Parallel random numbers: as easy as 1, 2, 3", Proc. SC 2011).
 * A 128-bit counter c = (c0,c1,c2,c3) and a 64-bit key k = (k0,k1) map to 128
 * random bits by 10 rounds of
 *     (hi0,lo0) = M0 * c0,  (hi1,lo1) = M1 * c2       (32x32 -> 64-bit products)
 *     c' = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
 * with M0 = 0xD2511F53, M1 = 0xCD9E8D57, and after each round the key is
 * bumped by the Weyl increments k0 += 0x9E3779B9, k1 += 0xBB67AE85 (mod 2^32).
 * This is bit for bit Random123's philox4x32_R(10, ctr, key).
 *
 * Stream definition (the contract every backend follows):
 *   key     = { seed & 0xffffffff, seed >> 32 }
 *   Gaussian number k (k = 0,1,2,...) of path p (64-bit global path index) in
 *   domain d (0 = noise of the time steps, 1 = initial conditions, 2 =
 *   per-particle parameters of interacting systems, p then being the global
 *   particle index) lies in block b = k >> 2, whose counter is
 *     { b & 0xffffffff,
 *       ((b >> 32) & 0x7fffffff) | (d != 0) << 31 | (d >> 1) << 30 | (d == 3) << 29,
 *       p & 0xffffffff, p >> 32 }
 *   (domains 1 and 2 use blocks below 2^62, domain 3 below 2^61: domain 2 is
 *   domain 1 offset by block 2^62, domain 3 domain 2 offset by block 2^61;
 *   domains 0, 1, 2 are unchanged from the earlier forms).
 *
 *   [events] (codegen/resets.c) draw in domain 0's counter, blocks
 *   [2^61 + 2^56, 2^61 + 2^57): event k of NEV at step n of path p takes
 *   blocks 2^61 + 2^56 + 2 (n NEV + k) and the next (the bridge's uniform,
 *   then the crossing time's Gaussian and uniform), only where it crosses or
 *   may have; above every noise block and the coarse bridge's range.
 *
 *   Domain 3 is the noise of systems of interacting particles, whose
 *   particles all take every step together: one block serves four
 *   consecutive particles of a system at one step.  Particle i of system s
 *   (N particles per system, NQ = (N + 3) / 4 quads per system) takes, for
 *   its Gaussian j of step n (k = n * NN + j, NN noise channels), lane i & 3
 *   of the block with b = k and p = s * NQ + (i >> 2), i.e. g[i & 3] of
 *   sdk_gauss4(seed, s * NQ + (i >> 2), k, 3).  One Philox call thus gives
 *   four particles their numbers for the step (a GPU thread owns the four),
 *   instead of one particle four steps' worth that a step-synchronous
 *   system cannot keep between its steps.
 *   Philox's outputs o0..o3 for that counter give four Gaussians by the
 *   Box-Muller transform (G. E. P. Box, M. E. Muller, "A note on the generation
 *   of random normal deviates", Ann. Math. Statist. 29, 610-611, 1958) on the
 *   pairs (o0,o1) and (o2,o3):
 *     u = U(o0), v = U(o1), r = sqrt(-2 ln u),
 *     g0 = r cos(2 pi v), g1 = r sin(2 pi v);  g2, g3 likewise from (o2,o3).
 *   Gaussian k is g[k & 3].  Uniforms of a block use the same counter.
 *
 *   Adaptive time steps (issue 30) draw the nodes of a path's virtual
 *   Brownian tree (rng/btree.h, which documents the keying) from domain 0's
 *   blocks [2^62 + 2^61 + 2^60, 2^63), by (path, base interval, node,
 *   Wiener channel), apart from every other stream.
 *
 *   Adaptive steps with [boundaries] (codegen/boundary.c, sdk_cg_bound_sub_hit)
 *   draw the bridge's crossing and its time from domain 0's blocks
 *   [2^61 + 2^57, 2^61 + 2^58): absorbing boundary k at the accepted sub-step
 *   of tree node m in step n takes blocks 2^61 + 2^57 + 2 (16 (n 2^25 + m) + k)
 *   and the next (n < 2^28), keyed by the node, not by a count of steps.
 *
 *   Single-precision adaptive runs draw their trees' roots (rng/btree.h,
 *   SDK_BTREE_ROOT_F) from domain 0's blocks [2^61 + 2^58, 2^61 + 2^59):
 *   channel c of NW in base interval n of path p is lane n & 3 of
 *   sdk_gauss4_f's block 2^61 + 2^58 + (n >> 2) NW + c (four intervals a
 *   block, as four fixed steps).
 *
 *   Blocks kept for coloured and Levy noise (codegen/colored_levy.c): domain
 *   0's blocks [2^62 + 2^56, 2^62 + 2^60) (Levy entry l of NL at step n:
 *   block 2^62 + 2^58 + n NL + l in double precision; in single precision
 *   block 2^62 + 2^58 + (n >> 1) NL + l, words 2 (n & 1) and 2 (n & 1) + 1:
 *   steps 2k and 2k + 1 share a block; [2^62 + 2^56, 2^62 + 2^58) unused yet) and
 *   domain 1's [2^61 + 2^40, 2^61 + 2^41) (the stationary initial value of
 *   coloured variable v: block 2^61 + 2^40 + v).  A coloured noise's
 *   Gaussians of the steps are channels of the step noise above.
 *
 * Uniform conversions U, both in the open interval (0,1):
 *   double: U(o) = (o + 0.5) * 2^-32                 in [2^-33, 1 - 2^-33]
 *   float:  U(o) = (o >> 9) * 2^-23 + 2^-24          in [2^-24, 1 - 2^-24]
 *   (The float form keeps 23 bits so that every value is exact: with 24 bits,
 *   (o >> 8) * 2^-24 + 2^-25 rounds to 1.0f for o >= 0xffffff00.)
 *
 * sin and cos of 2 pi v: CUDA uses sincospi(2v) (2v is exact).  C reduces
 * exactly to the nearest quarter turn, n = round(4v), w = v - n/4 (exact,
 * |w| <= 1/8), and rotates sin/cos(2 pi w) by n quarter turns, so both keep
 * relative accuracy where the result is near zero and agree to a few ulp.
 *
 * Everything is branch-free so that a C loop over paths vectorises under
 * `#pragma omp simd` (64-bit products for mulhi/mullo in C; __umulhi in CUDA).
 */
#ifndef SDK_RNG_PHILOX_H
#define SDK_RNG_PHILOX_H

#ifndef __CUDACC_RTC__
#include <math.h>
#endif

#ifndef SDK_TYPES_U32_U64_DEFINED
#define SDK_TYPES_U32_U64_DEFINED
typedef unsigned int sdk_u32;
typedef unsigned long long sdk_u64;
#endif

/* A caller may predefine SDK_RNG_FN (e.g. __host__ __device__ for tests). */
#ifndef SDK_RNG_FN
#ifdef __CUDACC__
#define SDK_RNG_FN __device__ __forceinline__
#elif defined(__GNUC__) /* always inline (loops vectorise); no warning when pasted unused */
#define SDK_RNG_FN static inline __attribute__((always_inline, unused))
#else
#define SDK_RNG_FN static inline
#endif
#endif

/* The constants of Philox4x32-10 (see above): the multipliers, the Weyl key
 * increments, the number of rounds. */
#define SDK_PHILOX_M0 0xD2511F53u
#define SDK_PHILOX_M1 0xCD9E8D57u
#define SDK_PHILOX_W0 0x9E3779B9u
#define SDK_PHILOX_W1 0xBB67AE85u
#define SDK_PHILOX_ROUNDS 10

/* Fully unrolled loops on the GPU (a no-op elsewhere). */
#ifdef __CUDA_ARCH__
#define SDK_RNG_UNROLL_ _Pragma("unroll")
#else
#define SDK_RNG_UNROLL_
#endif

/* One Philox round on x[0..3] with key (k0,k1). */
SDK_RNG_FN void sdk_philox_round_(sdk_u32 x[4], sdk_u32 k0, sdk_u32 k1) {
#ifdef __CUDA_ARCH__
  sdk_u32 hi0 = __umulhi(SDK_PHILOX_M0, x[0]), lo0 = SDK_PHILOX_M0 * x[0];
  sdk_u32 hi1 = __umulhi(SDK_PHILOX_M1, x[2]), lo1 = SDK_PHILOX_M1 * x[2];
#else
  sdk_u64 p0 = (sdk_u64)SDK_PHILOX_M0 * x[0];
  sdk_u64 p1 = (sdk_u64)SDK_PHILOX_M1 * x[2];
  sdk_u32 hi0 = (sdk_u32)(p0 >> 32), lo0 = (sdk_u32)p0;
  sdk_u32 hi1 = (sdk_u32)(p1 >> 32), lo1 = (sdk_u32)p1;
#endif
  sdk_u32 y1 = x[1], y3 = x[3];
  x[0] = hi1 ^ y1 ^ k0;
  x[1] = lo1;
  x[2] = hi0 ^ y3 ^ k1;
  x[3] = lo0;
}

/* Philox4x32-10: counter (c0..c3), key (k0,k1) -> out[0..3]. */
SDK_RNG_FN void sdk_philox4x32_10(sdk_u32 c0, sdk_u32 c1, sdk_u32 c2, sdk_u32 c3, sdk_u32 k0,
                                  sdk_u32 k1, sdk_u32 out[4]) {
  sdk_u32 x[4];
  x[0] = c0;
  x[1] = c1;
  x[2] = c2;
  x[3] = c3;
  sdk_philox_round_(x, k0, k1); /* round 1 */
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1); /* round 5 */
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1);
  k0 += SDK_PHILOX_W0, k1 += SDK_PHILOX_W1;
  sdk_philox_round_(x, k0, k1); /* round 10 */
  out[0] = x[0];
  out[1] = x[1];
  out[2] = x[2];
  out[3] = x[3];
}

/* Word 1 of the counter of a block of the stream in a domain (the contract
 * above: the block's high bits and the domain's). */
SDK_RNG_FN sdk_u32 sdk_philox_ctr1_(sdk_u64 block, sdk_u32 domain) {
  return ((sdk_u32)(block >> 32) & 0x7fffffffu) | ((sdk_u32)(domain != 0u) << 31) |
         ((domain >> 1) << 30) | ((domain >> 1) & domain & 1u) << 29;
}

/* The counter of one block of the stream (see the contract above). */
SDK_RNG_FN void sdk_philox_counter(sdk_u32 x[4], sdk_u64 path, sdk_u64 block, sdk_u32 domain) {
  x[0] = (sdk_u32)block;
  x[1] = sdk_philox_ctr1_(block, domain);
  x[2] = (sdk_u32)path;
  x[3] = (sdk_u32)(path >> 32);
}

/* The raw 128 bits of one block of the stream (see the contract above). */
SDK_RNG_FN void sdk_philox_block(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                                 sdk_u32 o[4]) {
  sdk_philox4x32_10((sdk_u32)block, sdk_philox_ctr1_(block, domain), (sdk_u32)path,
                    (sdk_u32)(path >> 32), (sdk_u32)seed, (sdk_u32)(seed >> 32), o);
}

/* The key schedule of a seed: the keys of the ten rounds, k0 and k1 of round r
 * at k[2 r] and k[2 r + 1].  A GPU step loop computes it once, before its
 * steps: ptxas otherwise rematerialises the twenty key additions inside a
 * loop that holds more state (the compensated update's), 1.56 of the
 * PROG1 step's 42.56 instructions; the empty asm makes each key a value it
 * can only keep, not recompute (same bits: it emits no instruction). */
typedef struct sdk_philox_keys {
  sdk_u32 k[2 * SDK_PHILOX_ROUNDS];
} sdk_philox_keys;
SDK_RNG_FN void sdk_philox_keys_of(sdk_u64 seed, sdk_philox_keys *ks) {
  sdk_u32 k0 = (sdk_u32)seed, k1 = (sdk_u32)(seed >> 32);
  SDK_RNG_UNROLL_
  for (int r = 0; r < SDK_PHILOX_ROUNDS; r++) {
    ks->k[2 * r] = k0;
    ks->k[2 * r + 1] = k1;
#ifdef __CUDA_ARCH__
    asm volatile("" : "+r"(ks->k[2 * r]), "+r"(ks->k[2 * r + 1]));
#endif
    k0 += SDK_PHILOX_W0;
    k1 += SDK_PHILOX_W1;
  }
}
/* sdk_philox_block under a key schedule: the same 128 bits */
SDK_RNG_FN void sdk_philox_block_k(const sdk_philox_keys *ks, sdk_u64 path, sdk_u64 block,
                                   sdk_u32 domain, sdk_u32 o[4]) {
  sdk_philox_counter(o, path, block, domain);
  SDK_RNG_UNROLL_
  for (int r = 0; r < SDK_PHILOX_ROUNDS; r++)
    sdk_philox_round_(o, ks->k[2 * r], ks->k[2 * r + 1]);
}

/* Philox4x32-10 of n counters at once under the key of `seed`: x[i] holds a
 * counter (sdk_philox_counter) on entry and its block's 128 bits on exit.  The
 * n chains of rounds run in lockstep and share one key schedule (a GPU
 * thread that owns several blocks of a step: the systems' quads). */
SDK_RNG_FN void sdk_philox_blocks(sdk_u32 (*x)[4], int n, sdk_u64 seed) {
  sdk_u32 k0 = (sdk_u32)seed, k1 = (sdk_u32)(seed >> 32);
  SDK_RNG_UNROLL_
  for (int r = 0; r < SDK_PHILOX_ROUNDS; r++) {
    SDK_RNG_UNROLL_
    for (int i = 0; i < n; i++)
      sdk_philox_round_(x[i], k0, k1);
    k0 += SDK_PHILOX_W0;
    k1 += SDK_PHILOX_W1;
  }
}

/* Uniforms in the open interval (0,1). */
SDK_RNG_FN float sdk_u01_f(sdk_u32 o) {
  return (float)(int)(o >> 9) * (1.0f / 8388608.0f) + (1.0f / 16777216.0f);
}
SDK_RNG_FN double sdk_u01_d(sdk_u32 o) {
  return ((double)o + 0.5) * (1.0 / 4294967296.0);
}
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
/* Fast math on the GPU (whose Gaussians already differ from the CPU's in the
 * last bits there): the same uniforms, to float rounding, one instruction
 * cheaper each.  Radius: all 32 bits converted at once (I2FP.U32 + FFMA;
 * u in (0,1], u = 1 only when o rounds to 2^32, giving radius 0).  Angle: the
 * signed reading of o times 2 pi / 2^32 lies in [-pi, pi) and differs from
 * 2 pi u01(o) by 0 or -2 pi, so sin and cos are those of the CPU's angle. */
#define SDK_U01_FAST_(o) ((float)(o)*2.32830644e-10f + 1.16415322e-10f)
#define SDK_ANGLE_FAST_(o) ((float)(int)(o)*1.46291808e-09f)
#endif

/* s = sin(2 pi v), c = cos(2 pi v) for v in (0,1). */
SDK_RNG_FN void sdk_sincos2pi_f_(float v, float *s, float *c) {
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
  /* fast math: two special-function-unit instructions (abs. error ~4e-7) */
  __sincosf(6.28318530717958647692f * v, s, c);
#elif defined(__CUDA_ARCH__)
  sincospif(2.0f * v, s, c);
#else
  /* n = nearest quarter turn (0..4); w = v - n/4 is exact, |w| <= 1/8. */
  int n = (int)(4.0f * v + 0.5f);
  float t = 6.28318530717958647692f * (v - 0.25f * (float)n);
  float st = sinf(t), ct = cosf(t);
  float sa = (n & 1) ? ct : st, ca = (n & 1) ? st : ct;
  *s = (n & 2) ? -sa : sa;
  *c = ((n + 1) & 2) ? -ca : ca;
#endif
}
SDK_RNG_FN void sdk_sincos2pi_d_(double v, double *s, double *c) {
#ifdef __CUDA_ARCH__
  sincospi(2.0 * v, s, c);
#else
  int n = (int)(4.0 * v + 0.5);
  double t = 6.28318530717958647692 * (v - 0.25 * (double)n);
  double st = sin(t), ct = cos(t);
  double sa = (n & 1) ? ct : st, ca = (n & 1) ? st : ct;
  *s = (n & 2) ? -sa : sa;
  *c = ((n + 1) & 2) ? -ca : ca;
#endif
}

/* The four uniforms of one block. */
SDK_RNG_FN void sdk_uniform4_f(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                               float out[4]) {
  sdk_u32 o[4];
  sdk_philox_block(seed, path, block, domain, o);
  out[0] = sdk_u01_f(o[0]);
  out[1] = sdk_u01_f(o[1]);
  out[2] = sdk_u01_f(o[2]);
  out[3] = sdk_u01_f(o[3]);
}
SDK_RNG_FN void sdk_uniform4_d(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                               double out[4]) {
  sdk_u32 o[4];
  sdk_philox_block(seed, path, block, domain, o);
  out[0] = sdk_u01_d(o[0]);
  out[1] = sdk_u01_d(o[1]);
  out[2] = sdk_u01_d(o[2]);
  out[3] = sdk_u01_d(o[3]);
}

/* The four standard Gaussians of one block (Box-Muller on (o0,o1), (o2,o3)). */
SDK_RNG_FN void sdk_gauss4_f(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                             float g[4]) {
  sdk_u32 o[4];
  float s0, c0, s1, c1;
  sdk_philox_block(seed, path, block, domain, o);
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
  /* -2 ln u = -2 ln2 log2 u: one multiply after the MUFU.LG2 instead of two */
  float r0 = sqrtf(-1.38629436111989061883f * __log2f(SDK_U01_FAST_(o[0])));
  float r1 = sqrtf(-1.38629436111989061883f * __log2f(SDK_U01_FAST_(o[2])));
#else
  float r0 = sqrtf(-2.0f * logf(sdk_u01_f(o[0])));
  float r1 = sqrtf(-2.0f * logf(sdk_u01_f(o[2])));
#endif
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
  /* the angle straight from the integer: no shift, no separate 2 pi multiply */
  __sincosf(SDK_ANGLE_FAST_(o[1]), &s0, &c0);
  __sincosf(SDK_ANGLE_FAST_(o[3]), &s1, &c1);
#else
  sdk_sincos2pi_f_(sdk_u01_f(o[1]), &s0, &c0);
  sdk_sincos2pi_f_(sdk_u01_f(o[3]), &s1, &c1);
#endif
  g[0] = r0 * c0;
  g[1] = r0 * s0;
  g[2] = r1 * c1;
  g[3] = r1 * s1;
}
SDK_RNG_FN void sdk_gauss4_d(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                             double g[4]) {
  sdk_u32 o[4];
  double s0, c0, s1, c1;
  sdk_philox_block(seed, path, block, domain, o);
  double r0 = sqrt(-2.0 * log(sdk_u01_d(o[0])));
  double r1 = sqrt(-2.0 * log(sdk_u01_d(o[2])));
  sdk_sincos2pi_d_(sdk_u01_d(o[1]), &s0, &c0);
  sdk_sincos2pi_d_(sdk_u01_d(o[3]), &s1, &c1);
  g[0] = r0 * c0;
  g[1] = r0 * s0;
  g[2] = r1 * c1;
  g[3] = r1 * s1;
}

/* One Box-Muller pair of a block: half 0 gives g[0], g[1] of sdk_gauss4, half 1
 * gives g[2], g[3] (the same expressions, so the same values), at half the
 * cost when only one or two of the four numbers are used. */
/* Box-Muller on one pair of Philox outputs (oa, ob): as in sdk_gauss4. */
SDK_RNG_FN void sdk_boxmuller2_f(sdk_u32 oa, sdk_u32 ob, float g[2]) {
  float s0, c0;
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
  float r0 = sqrtf(-1.38629436111989061883f * __log2f(SDK_U01_FAST_(oa)));
  __sincosf(SDK_ANGLE_FAST_(ob), &s0, &c0);
#else
  float r0 = sqrtf(-2.0f * logf(sdk_u01_f(oa)));
  sdk_sincos2pi_f_(sdk_u01_f(ob), &s0, &c0);
#endif
  g[0] = r0 * c0;
  g[1] = r0 * s0;
}
SDK_RNG_FN void sdk_boxmuller2_d(sdk_u32 oa, sdk_u32 ob, double g[2]) {
  double s0, c0;
  double r0 = sqrt(-2.0 * log(sdk_u01_d(oa)));
  sdk_sincos2pi_d_(sdk_u01_d(ob), &s0, &c0);
  g[0] = r0 * c0;
  g[1] = r0 * s0;
}

/* sdk_gauss4 under a key schedule (sdk_philox_keys_of): the same values */
SDK_RNG_FN void sdk_gauss4k_f(const sdk_philox_keys *ks, sdk_u64 path, sdk_u64 block,
                              sdk_u32 domain, float g[4]) {
  sdk_u32 o[4];
  sdk_philox_block_k(ks, path, block, domain, o);
  sdk_boxmuller2_f(o[0], o[1], g);
  sdk_boxmuller2_f(o[2], o[3], g + 2);
}
SDK_RNG_FN void sdk_gauss4k_d(const sdk_philox_keys *ks, sdk_u64 path, sdk_u64 block,
                              sdk_u32 domain, double g[4]) {
  sdk_u32 o[4];
  sdk_philox_block_k(ks, path, block, domain, o);
  sdk_boxmuller2_d(o[0], o[1], g);
  sdk_boxmuller2_d(o[2], o[3], g + 2);
}

SDK_RNG_FN void sdk_gauss2_f(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                             sdk_u32 half, float g[2]) {
  sdk_u32 o[4];
  float s0, c0;
  sdk_philox_block(seed, path, block, domain, o);
  const sdk_u32 oa = half ? o[2] : o[0], ob = half ? o[3] : o[1];
#if defined(__CUDA_ARCH__) && defined(__USE_FAST_MATH__)
  float r0 = sqrtf(-1.38629436111989061883f * __log2f(SDK_U01_FAST_(oa)));
  __sincosf(SDK_ANGLE_FAST_(ob), &s0, &c0);
#else
  float r0 = sqrtf(-2.0f * logf(sdk_u01_f(oa)));
  sdk_sincos2pi_f_(sdk_u01_f(ob), &s0, &c0);
#endif
  g[0] = r0 * c0;
  g[1] = r0 * s0;
}
SDK_RNG_FN void sdk_gauss2_d(sdk_u64 seed, sdk_u64 path, sdk_u64 block, sdk_u32 domain,
                             sdk_u32 half, double g[2]) {
  sdk_u32 o[4];
  double s0, c0;
  sdk_philox_block(seed, path, block, domain, o);
  const sdk_u32 oa = half ? o[2] : o[0], ob = half ? o[3] : o[1];
  double r0 = sqrt(-2.0 * log(sdk_u01_d(oa)));
  sdk_sincos2pi_d_(sdk_u01_d(ob), &s0, &c0);
  g[0] = r0 * c0;
  g[1] = r0 * s0;
}

#endif /* SDK_RNG_PHILOX_H */
