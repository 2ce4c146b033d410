#line 2 "kernels/reset_draws.h"
/* [events] (codegen/resets.c, whose head derives this and lays out the
 * rows and the Philox blocks): the crossing of a step and its time, and the
 * per-path record of an event.  C11 for the CPU backend and CUDA C++ for
 * NVRTC, after event_draws.h (SDK_EVFN, sdk_u53).  Holes: real, sdk_u32,
 * sdk_u64, sdk_i64 (rng/philox.h), SDK_RS_BINS. */

/* Did the path, outside the condition at the step start at distance d0 >= 0
 * from the level, cross into it during the step?  end: it is inside at the
 * step end (then surely); else, with the bridge correction, with the
 * Brownian bridge's probability exp(-2 d0 d1 / w^2) (d1 > 0 the distance at
 * the step end, w the noise's standard deviation over the step; drawn only
 * when it exceeds e^-50).  When it crossed, *theta in [0, 1] is the time of
 * the crossing as a fraction of the step: 1 without the bridge correction
 * (the step's end); with it a draw from the law of the bridge's first
 * hitting time given both ends (resets.c: x = theta / (1 - theta) is
 * inverse Gaussian with mean d0 / |d1| and shape d0^2 / w^2, drawn by
 * Michael, Schucany & Haas 1976); w = 0 (no noise of its own): the linear
 * interpolation d0 / (d0 + |d1|).  Words: block blk lanes 0, 1 the bridge's
 * uniform, lanes 2, 3 the Gaussian; block blk + 1 lanes 0, 1 the uniform of
 * the acceptance. */
SDK_EVFN int sdk_rs_cross(sdk_u64 seed, sdk_u64 path, sdk_u64 blk, double d0, double d1, double w,
                          int end, int bridge, double *theta) {
  sdk_u32 o[4], o2[4];
  int drawn = 0;
  *theta = 1;
  if (!end) {
    const double a = 2 * d0 * d1, q = w * w;
    if (!bridge || !(q > 0) || !(a < 50 * q)) return 0;
    sdk_philox_block(seed, path, blk, 0, o);
    drawn = 1;
    if (!(sdk_u53(o[0], o[1]) < exp(-a / q))) return 0;
  }
  if (!bridge) return 1;
  const double e1 = fabs(d1);
  if (!(d0 > 0)) {
    *theta = 0;
    return 1;
  }
  if (!(w > 0)) {
    *theta = d0 / (d0 + e1);
    return 1;
  }
  if (!drawn) sdk_philox_block(seed, path, blk, 0, o);
  sdk_philox_block(seed, path, blk + 1, 0, o2);
  const double u1 = ((double)o[2] + 0.5) * 2.3283064365386963e-10;
  const double u2 = (double)o[3] * 2.3283064365386963e-10;
  const double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
  const double mu = d0 / (e1 > 1e-30 * d0 ? e1 : 1e-30 * d0), lam = d0 * d0 / (w * w);
  const double r = mu * z * z / (2 * lam);
  /* the smaller root mu (1 + r - sqrt(r (2 + r))), written without cancellation */
  double x = mu / (1 + r + sqrt(r * (2 + r)));
  if (sdk_u53(o2[0], o2[1]) * (mu + x) > mu) x = mu * (mu / x);
  *theta = x / (1 + x);
  return 1;
}

/* The record of an event that crossed at step n + theta into its rows r[k *
 * ld] (resets.c): the interval since the last reset (from the second event
 * on) into the sums of u and u^2 (u in steps; each a sum S and its
 * remainder E, added in double) and its bin, then the count and the step of
 * this reset, n + 1, as (value mod 2^20, value >> 20) pairs. */
SDK_EVFN void sdk_rs_record(real *r, sdk_i64 ld, sdk_i64 n, double theta) {
  if (r[0] != (real)0 || r[ld] != (real)0) {
    const double m = (double)r[2 * ld] + (double)r[3 * ld] * 1048576.0;
    const double u = ((double)n - m) + theta;
    double s = (double)r[4 * ld] + (double)r[5 * ld] + u;
    r[4 * ld] = (real)s;
    r[5 * ld] = (real)(s - (double)r[4 * ld]);
    s = (double)r[6 * ld] + (double)r[7 * ld] + u * u;
    r[6 * ld] = (real)s;
    r[7 * ld] = (real)(s - (double)r[6 * ld]);
    /* bins of u: [0, 1), then [2^((b-1)/2), 2^(b/2)), the last one open */
    const double lb = u < 1 ? 0 : 1 + floor(2 * log2(u));
    const int b = lb < SDK_RS_BINS - 1 ? (int)lb : SDK_RS_BINS - 1;
    r[(9 + b) * ld] += 1;
  }
  r[0] += 1;
  if (r[0] == (real)1048576) {
    r[0] = 0;
    r[ld] += 1;
  }
  r[2 * ld] = (real)((n + 1) & 0xfffff);
  r[3 * ld] = (real)((n + 1) >> 20);
}
