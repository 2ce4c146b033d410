/* Measured weak order of convergence.
 *
 * Problem: OU dx = -k x dt + sqrt(2D) dW from x(0) = 0; the observable is
 * Var x(T) = D/k (1 - exp(-2kT)).  The weak error e(dt) = Var_dt - Var is
 * measured from simulations at several dt and the order is the slope of a
 * weighted least-squares fit of log|e| against log dt.
 *
 * Two assertions per scheme:
 *  1. every measured error agrees with the scheme's exact discrete-time
 *     error (closed form for a linear recursion) within 5 standard errors;
 *  2. the fitted slope agrees with the slope of the exact discrete errors
 *     within 4 standard errors of the fit, and that slope is the scheme's
 *     declared weak order (scheme.h; Euler 1, SRK2 2) to within 0.25
 *     (higher-order terms at the coarsest dt).
 * Every registered scheme that integrates additive noise is measured.
 * Standard error of a sample variance: s^2 sqrt(2/(N-1)) (Gaussian). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

static const double K = 1.0, D = 0.5, T = 1.6;

/* the scheme's exact discrete-time variance (its one-step map, x' = a x + cw w) */
static double disc_var(const sdk_scheme_type *s, double dt) {
  double a = NAN, cw = NAN;
  TU_CHECK(st_srk_linear(s, K, dt, &a, &cw), "%s: no SRK table", s->name);
  double n = floor(T / dt + 0.5);
  return cw * cw * 2 * D * dt * (1 - pow(a, 2 * n)) / (1 - a * a);
}

static void order(const sdk_scheme_type *s, const double *dts, int ndt, int log2paths) {
  const char *scheme = s->name;
  int p = s->weak_order;
  const char *model = st_model_file("[model]\nname = ou0\nvars = x\n[params]\nk = 1\nD = 0.5\n"
                                    "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n",
                                    1);
  double exact = D / K * (1 - exp(-2 * K * T));
  double lx[8], ly[8], w[8], ly_disc[8];
  for (int i = 0; i < ndt; i++) {
    sdk_run_config c;
    sdk_run_config_defaults(&c);
    c.model = model;
    c.backend = st_backend();
    c.scheme = scheme;
    c.single = 0;
    c.paths = (int64_t)1 << log2paths;
    c.dt = dts[i];
    c.t_end = T;
    c.sample_every = (int64_t)floor(T / dts[i] + 0.5);
    c.observe = "moments";
    c.seed = 1000 + (uint64_t)i;
    sdk_run *run = st_run(&c);
    TU_CHECK(run != NULL, "run %s dt=%g", scheme, dts[i]);
    if (!run) return;
    const sdk_results *R = sdk_run_results(run);
    const st_view *Rv = st_view_of(R);
    double v = Rv->var[Rv->nsamples - 1];
    double se = v * sqrt(2.0 / (double)(c.paths - 1));
    double err = v - exact, derr = disc_var(s, dts[i]) - exact;
    char what[96];
    snprintf(what, sizeof what, "%s error at dt=%g", scheme, dts[i]);
    TU_NEAR(err, derr, 5 * se, what);
    TU_CHECK(fabs(err) > 3 * se, "%s dt=%g: error %.3g not resolved (se %.3g)", scheme, dts[i], err,
             se);
    printf("%-5s dt=%-6g Var=%.6f  error %+.3e (exact discrete %+.3e, se %.1e)\n", scheme, dts[i],
           v, err, derr, se);
    lx[i] = log(dts[i]);
    ly[i] = log(fabs(err));
    ly_disc[i] = log(fabs(derr));
    double sl = se / fabs(err); /* standard error of log|e| */
    w[i] = 1 / (sl * sl);
    sdk_run_destroy(&run);
  }
  /* weighted least squares slope and its standard error */
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syd = 0, sxyd = 0;
  for (int i = 0; i < ndt; i++) {
    sw += w[i], sx += w[i] * lx[i], sy += w[i] * ly[i];
    sxx += w[i] * lx[i] * lx[i], sxy += w[i] * lx[i] * ly[i];
    syd += w[i] * ly_disc[i], sxyd += w[i] * lx[i] * ly_disc[i];
  }
  double det = sw * sxx - sx * sx;
  double slope = (sw * sxy - sx * sy) / det, slope_se = sqrt(sw / det);
  double slope_disc = (sw * sxyd - sx * syd) / det;
  printf("%-5s measured weak order %.3f +- %.3f (exact discrete %.3f, theory %d)\n", scheme, slope,
         slope_se, slope_disc, p);
  char what[96];
  snprintf(what, sizeof what, "%s fitted order vs discrete-time order", scheme);
  TU_NEAR(slope, slope_disc, 4 * slope_se, what);
  snprintf(what, sizeof what, "%s discrete-time order vs theory", scheme);
  TU_NEAR(slope_disc, p, 0.25, what);
}

int main(void) {
  st_require_backend();
  /* step sizes whose errors are resolved, by the weak order */
  const double order1_dt[] = {0.2, 0.1, 0.05, 0.025};
  const double order2_dt[] = {0.4, 0.2, 0.1};
  for (int i = 0; sdk_registry_schemes[i]; i++) {
    const sdk_scheme_type *s = sdk_registry_schemes[i];
    if (!(s->noise_kinds & SDK_NOISE_ADDITIVE)) continue;
    if (s->weak_order == 1)
      order(s, order1_dt, 4, 21);
    else if (s->weak_order == 2)
      order(s, order2_dt, 3, 23);
    else
      TU_CHECK(0, "%s: no step sizes for weak order %d", s->name, s->weak_order);
  }
  return tu_finish("test_convergence");
}
