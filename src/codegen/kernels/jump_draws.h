#line 2 "kernels/jump_draws.h"
/* The samplers of [jumps] (codegen/events.c, whose head gives the methods
 * and their references): the words of a jump entry's Philox blocks in
 * order, a Poisson count, a Gamma(n) sum of exponentials.  C11 and CUDA
 * C++, after event_draws.h (SDK_EVFN, sdk_u53).  Holes: sdk_u32, sdk_u64,
 * sdk_philox_block (rng/philox.h). */
/* the words of a jump entry's blocks, in order (events.c) */
typedef struct {
  sdk_u64 seed, path, base;
  sdk_u32 r, k;
  sdk_u32 o[4];
} sdk_jst;
SDK_EVFN void sdk_jst_init(sdk_jst *s, sdk_u64 seed, sdk_u64 path, sdk_u64 base) {
  s->seed = seed;
  s->path = path;
  s->base = base;
  s->r = 0;
  s->k = 4;
}
SDK_EVFN sdk_u32 sdk_jword(sdk_jst *s) {
  if (s->k == 4) {
    sdk_philox_block(s->seed, s->path, s->base + s->r, 0, s->o);
    if (s->r < 131071u) s->r++;
    s->k = 0;
  }
  return s->o[s->k++];
}
SDK_EVFN double sdk_ju(sdk_jst *s) {
  return ((double)sdk_jword(s) + 0.5) * 2.3283064365386963e-10;
}
SDK_EVFN double sdk_jgauss(sdk_jst *s) {
  const double u = sdk_ju(s), v = sdk_ju(s);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}
/* N ~ Poisson(mu), emu = exp(-mu) */
SDK_EVFN double sdk_poisson(sdk_jst *s, double mu, double emu) {
  if (mu < 10.0) {
    const sdk_u32 a = sdk_jword(s), b = sdk_jword(s);
    const double u = sdk_u53(a, b);
    double p = emu, f = emu, k = 0;
    while (u > f && p > 0) {
      k += 1;
      p *= mu / k;
      f += p;
    }
    return k;
  }
  const double smu = sqrt(mu), b = 0.931 + 2.53 * smu, a = -0.059 + 0.02483 * b;
  const double lia = log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2.0);
  const double lmu = log(mu);
  double k = 0;
  for (int it = 0; it < 16384; it++) {
    const double u = sdk_ju(s) - 0.5, v = sdk_ju(s), us = 0.5 - fabs(u);
    k = floor((2.0 * a / us + b) * u + mu + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + lia - log(a / (us * us) + b) <= -mu + k * lmu - lgamma(k + 1.0)) return k;
  }
  return k < 0 ? 0 : k;
}
/* a Gamma(n) variable, n >= 1 an integer */
SDK_EVFN double sdk_jgamma(sdk_jst *s, double n) {
  if (n <= 16.0) {
    double g = 0;
    for (int i = 0; i < (int)n; i++)
      g -= log(sdk_ju(s));
    return g;
  }
  const double d = n - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  double v = 1;
  for (int it = 0; it < 16384; it++) {
    const double x = sdk_jgauss(s);
    v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = sdk_ju(s);
    if (u < 1.0 - 0.0331 * x * x * x * x) break;
    if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) break;
  }
  return d * v;
}
