/* Paper's CPU version of PROG1 (Januszewski & Kostur 2010): per path a
 * xorshift RNG (the paper's generator, 32-bit xorshift), two uniforms per step -> Box-Muller ->
 * two Gaussians, SRK2 (Alg. 2) for Eq. 1 (Stewart-McCumber, V(x)=sin(2 pi x)) written as
 * x' = v, v' = -gamma v - 2 pi cos(2 pi x) + a cos(omega t) + f + sqrt(2 gamma D) xi,
 * float arithmetic, time t = t0 + i*dt as in the paper's kernel, one path after another.
 *
 * A plain scalar, single-thread reference against which `sdekit bench`
 * measures its backends.  Parameters are fixed to the paper's Fig. 2 set:
 * a = 4.2, gamma = 0.9, omega = 4.9, D = 0.001, f = 0.1, t0 = 0,
 * dt = (2 pi / omega) / steps_per_period. */
#ifndef SDK_BENCH_BASELINE_H
#define SDK_BENCH_BASELINE_H

typedef struct sdk_baseline_result {
  double seconds;    /* wall time of the path loop (CLOCK_MONOTONIC) */
  double path_steps; /* paths * steps actually integrated */
  double checksum;   /* mean final x over the paths */
} sdk_baseline_result;

/* Integrates `paths` independent paths for `steps` SRK2 steps each.
 * Nonpositive paths/steps integrate nothing (all result fields 0);
 * steps_per_period < 1 is taken as 1. */
void sdk_baseline_prog1_cpu(long long paths, long long steps, int steps_per_period, unsigned seed,
                            sdk_baseline_result *out);

/* Same computation; additionally stores the mean final velocity <v> over the
 * paths in *mean_v when mean_v is not NULL (for sanity checks). */
void sdk_baseline_prog1_cpu_ex(long long paths, long long steps, int steps_per_period,
                               unsigned seed, sdk_baseline_result *out, double *mean_v);

/* The paper's PROG3 (pairs = 0: the mean-field sums every step) or PROG2
 * (pairs = 1: all pairs sin(x_j - x_i)) for one Kuramoto system of n
 * oscillators (K = 4, T = 1, dt = 1/128, uniform initial phases) as plain
 * scalar C on one thread: xorshift32 and Box-Muller per particle as PROG1,
 * Euler, float.  path_steps counts particle-steps (PROG3) or pair
 * interactions (PROG2); checksum is the final order parameter r. */
void sdk_baseline_kuramoto_cpu(int pairs, long long n, long long steps, unsigned seed,
                               sdk_baseline_result *out);

#endif
