/* Plain scalar single-thread C version of the paper's PROG1 (see baseline.h).
 *
 * Each path is integrated exactly as one CUDA thread of PROG1 would do it
 * (Alg. 1), but serially: its state x, v, the RNG state and the drive term
 * live in locals; the loop over paths is outer, the loop over steps inner.
 *
 * Per time step (Alg. 1, lines 5-8):
 *   - two uniforms n1, n2 from the path's 32-bit xorshift generator
 *     (Marsaglia's shift triple 13, 17, 5);
 *   - Box-Muller: r = sqrt(-2 ln n1), g1 = r cos(2 pi n2), g2 = r sin(2 pi n2);
 *   - one SRK2 step (Alg. 2) of the drift
 *       F(x, v, t) = ( v, -gamma v - 2 pi cos(2 pi x) + a cos(omega t) + f )
 *     with additive noise sqrt(2 gamma D) xi on v only, i.e. Alg. 2 with
 *     noise intensity gamma*D in the v component and 0 in the x component:
 *       F1 = F(x0, v0, t)
 *       F2 = F(x0 + dt F1x, v0 + dt F1v + s psi, t + dt)
 *       x  = x0 + dt/2 (F1x + F2x)
 *       v  = v0 + dt/2 (F1v + F2v) + s psi,     s = sqrt(2 gamma D dt)
 *     (the printed Alg. 2 lacks the '+' before the noise term of its last
 *     line; the same psi enters the predictor and the final update).
 *
 * Use of the two Gaussians: the paper states that its SRK2 step "uses both
 * Gaussian variates for a single time step" but does not say how.  This
 * system has one noise channel, so one N(0,1) number per step is needed; we
 * use both by taking psi = (g1 + g2) / sqrt(2), which is again exactly N(0,1)
 * (g1, g2 are independent standard normals).  This keeps the per-step work
 * equal to the paper's (2 uniforms, log, sqrt, cos, sin) and stops the
 * compiler from dropping the sine as dead code.
 *
 * Time: the drive uses t_i = t0 + i*dt computed from the step index (no
 * accumulated sum), as in the paper's kernel; F1 of step i uses t_i and F2
 * uses t_{i+1}.  cos(omega t_{i+1}) is kept for F1 of the next step, which is
 * bit-identical to recomputing it (same expression, same index), so each
 * step costs three cosines of the model (2 pi x, 2 pi x_pred, omega t_{i+1})
 * plus the Box-Muller pair.
 *
 * Arithmetic is float throughout (state, constants, libm sinf/cosf/logf/
 * sqrtf); only the ensemble means are accumulated in double.
 *
 * Seeds: the paper seeds each thread's xorshift from a host integer RNG; here
 * path p's initial state is a 32-bit integer hash of (seed, p), forced
 * nonzero.  Initial conditions come from that same generator before the
 * first step: x uniform in [0,1), v uniform in [-2,2). */
#define _POSIX_C_SOURCE 199309L

#include "baseline.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Fixed parameters of the paper's Fig. 2 (anomalous response regime). */
#define BL_A 4.2f
#define BL_GAMMA 0.9f
#define BL_OMEGA 4.9f
#define BL_D 0.001f
#define BL_F 0.1f
#define BL_T0 0.0f
#define BL_2PI 6.28318530717958647692f
#define BL_RSQRT2 0.70710678118654752440f
#define BL_2M24 5.9604644775390625e-8f /* 2^-24 */

static uint32_t bl_mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

static uint32_t bl_path_seed(uint32_t seed, unsigned long long p) {
  uint32_t h = bl_mix32(seed ^ 0x5bd1e995u);
  h = bl_mix32(h ^ (uint32_t)p * 0x9e3779b9u);
  h = bl_mix32(h ^ (uint32_t)(p >> 32) * 0x85ebca6bu);
  return h ? h : 0x6d2b79f5u; /* xorshift must not start at 0 */
}

static inline uint32_t bl_xorshift32(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *s = x;
  return x;
}

/* Uniform in [0, 1), 24 bits, exact in float. */
static inline float bl_unif_co(uint32_t r) {
  return (float)(r >> 8) * BL_2M24;
}

/* Uniform in (0, 1], 24 bits, exact in float: safe argument for logf. */
static inline float bl_unif_oc(uint32_t r) {
  return (float)((r >> 8) + 1u) * BL_2M24;
}

static double bl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sdk_baseline_prog1_cpu_ex(long long paths, long long steps, int steps_per_period,
                               unsigned seed, sdk_baseline_result *out, double *mean_v) {
  if (paths <= 0 || steps < 0) paths = 0;
  if (steps < 0) steps = 0;
  if (steps_per_period < 1) steps_per_period = 1;

  const float dt = BL_2PI / BL_OMEGA / (float)steps_per_period;
  const float hdt = 0.5f * dt;
  const float sigma = sqrtf(2.0f * BL_GAMMA * BL_D * dt);

  double sum_x = 0.0, sum_v = 0.0;
  const double t_start = bl_now();

  for (long long p = 0; p < paths; p++) {
    uint32_t s = bl_path_seed((uint32_t)seed, (unsigned long long)p);
    float x = bl_unif_co(bl_xorshift32(&s));
    float v = 4.0f * bl_unif_co(bl_xorshift32(&s)) - 2.0f;
    float drive = cosf(BL_OMEGA * BL_T0);

    for (long long i = 0; i < steps; i++) {
      /* Two uniforms -> Box-Muller -> two Gaussians -> one N(0,1). */
      const float n1 = bl_unif_oc(bl_xorshift32(&s));
      const float n2 = bl_unif_co(bl_xorshift32(&s));
      const float r = sqrtf(-2.0f * logf(n1));
      const float phi = BL_2PI * n2;
      const float g1 = r * cosf(phi);
      const float g2 = r * sinf(phi);
      const float noise = sigma * ((g1 + g2) * BL_RSQRT2);

      /* SRK2 (Alg. 2). */
      const float f1x = v;
      const float f1v = -BL_GAMMA * v - BL_2PI * cosf(BL_2PI * x) + BL_A * drive + BL_F;
      const float xp = x + dt * f1x;
      const float vp = v + dt * f1v + noise;

      const float t_next = BL_T0 + (float)(i + 1) * dt;
      const float drive_next = cosf(BL_OMEGA * t_next);

      const float f2x = vp;
      const float f2v = -BL_GAMMA * vp - BL_2PI * cosf(BL_2PI * xp) + BL_A * drive_next + BL_F;

      x = x + hdt * (f1x + f2x);
      v = v + hdt * (f1v + f2v) + noise;
      drive = drive_next;
    }
    sum_x += (double)x;
    sum_v += (double)v;
  }

  const double t_end = bl_now();

  if (out) {
    out->seconds = t_end - t_start;
    out->path_steps = (double)paths * (double)steps;
    out->checksum = paths > 0 ? sum_x / (double)paths : 0.0;
  }
  if (mean_v) *mean_v = paths > 0 ? sum_v / (double)paths : 0.0;
}

void sdk_baseline_prog1_cpu(long long paths, long long steps, int steps_per_period, unsigned seed,
                            sdk_baseline_result *out) {
  sdk_baseline_prog1_cpu_ex(paths, steps, steps_per_period, seed, out, NULL);
}

/* The paper's Kuramoto programs on the CPU (see baseline.h): one system of n
 * oscillators, K = 4, T = 1, dt = 1/128, uniform initial phases, per
 * particle a xorshift32 stream and Box-Muller as PROG1 (one Gaussian of the
 * pair per step), Euler, float. */
void sdk_baseline_kuramoto_cpu(int pairs, long long n, long long steps, unsigned seed,
                               sdk_baseline_result *out) {
  if (out) out->seconds = out->path_steps = out->checksum = 0;
  if (n <= 0 || steps < 0) return;
  float *x = malloc((size_t)n * sizeof *x), *f = pairs ? malloc((size_t)n * sizeof *f) : NULL;
  uint32_t *s = malloc((size_t)n * sizeof *s);
  if (!x || !s || (pairs && !f)) {
    free(x), free(f), free(s);
    return;
  }
  const float K = 4.0f, dt = 1.0f / 128, sq = sqrtf(2.0f * 1.0f * dt), KN = K / (float)n;
  for (long long i = 0; i < n; i++) {
    s[i] = bl_path_seed((uint32_t)seed, (unsigned long long)i);
    x[i] = BL_2PI * bl_unif_co(bl_xorshift32(&s[i]));
  }
  const double t_start = bl_now();
  for (long long k = 0; k < steps; k++) {
    float S = 0, C = 0;
    if (pairs) { /* PROG2: UpdateRHS over all pairs */
      for (long long i = 0; i < n; i++) {
        float a = 0;
        for (long long j = 0; j < n; j++)
          a += sinf(x[j] - x[i]);
        f[i] = KN * a;
      }
    } else { /* PROG3: the two sums */
      double sd = 0, cd = 0;
      for (long long i = 0; i < n; i++)
        sd += sinf(x[i]), cd += cosf(x[i]);
      S = (float)(sd / (double)n), C = (float)(cd / (double)n);
    }
    for (long long i = 0; i < n; i++) {
      const float n1 = bl_unif_oc(bl_xorshift32(&s[i])), n2 = bl_unif_co(bl_xorshift32(&s[i]));
      const float g = sqrtf(-2.0f * logf(n1)) * cosf(BL_2PI * n2);
      const float drift = pairs ? f[i] : K * (S * cosf(x[i]) - C * sinf(x[i]));
      x[i] += dt * drift + sq * g;
    }
  }
  const double t_end = bl_now();
  double sd = 0, cd = 0;
  for (long long i = 0; i < n; i++)
    sd += sin((double)x[i]), cd += cos((double)x[i]);
  if (out) {
    out->seconds = t_end - t_start;
    out->path_steps = (double)n * (double)steps * (pairs ? (double)n : 1.0);
    out->checksum = sqrt(sd * sd + cd * cd) / (double)n; /* the final r */
  }
  free(x), free(f), free(s);
}
