/* Strong orders of convergence, measured: geometric Brownian motion
 * dS = mu S dt + sigma S dW, S(0) = 1, against its exact solution driven by
 * the same Wiener increments,
 *   Ito:          S(T) = exp((mu - sigma^2/2) T + sigma W(T))
 *   Stratonovich: S(T) = exp(mu T + sigma W(T)).
 * The noise is keyed by (seed, path, step) (rng/philox.h; value k = n NN + j
 * of step n is lane k & 3 of the path's block k >> 2, domain 0), so the test
 * rebuilds W(T) = sqrt(dt) sum_n psi_n of every saved path on the host and
 * takes the mean |S_N - S(T)| over 1024 paths at four step sizes (dt = 2^-5
 * .. 2^-8, double precision).  The order is the slope of log e against log
 * dt, fitted by weighted least squares with the standard errors of log e;
 * it must be the scheme's within 4 standard errors of the slope plus 0.05
 * (what the O(dt^(p+1/2)) terms may still bend the line at dt = 2^-5).
 * euler 1/2 (Ito); milstein 1 (Ito, and Stratonovich through the drift
 * correction); srk2, the stochastic Heun method, 1 (Stratonovich, and Ito
 * through the correction). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rng/philox.h"
#include "simtest.h"
#include "testutil.h"

enum { NPATHS = 1024, NDT = 4 };

static const char GBM[] = "[model]\nname = gbm_s\nvars = S\ncalculus = %s\n[params]\nmu = 1\n"
                          "sigma = 1\n[drift]\nS = mu*S\n[noise]\nS = sigma*S\n[init]\nS = 1\n";

/* mean |S_N - S(T)| and its standard error, at nsteps steps of dt */
static int strong_error(const char *scheme, int strat, int64_t nsteps, double *e, double *se) {
  char text[400];
  snprintf(text, sizeof text, GBM, strat ? "stratonovich" : "ito");
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = st_model_file(text, strat);
  c.scheme = scheme;
  c.single = 0;
  c.paths = NPATHS;
  c.dt = 1.0 / (double)nsteps;
  c.t_end = 1;
  c.sample_every = nsteps;
  c.observe = "moments";
  c.seed = 5;
  c.obs.nsave = NPATHS;
  for (int k = 0; k < NPATHS; k++)
    c.obs.save_index[k] = k;
  sdk_run *r = st_run(&c);
  if (!r) return 0;
  const st_view *v = st_view_of(sdk_run_results(r));
  int ok = v->nsaved == NPATHS && v->nsamples == 2 && v->sample_step[1] == nsteps;
  double sum = 0, sum2 = 0, sq = sqrt(c.dt);
  for (int k = 0; ok && k < NPATHS; k++) {
    double w = 0, g[4];
    for (int64_t n = 0; n < nsteps; n++) { /* NN = 1 noise value per step */
      if ((n & 3) == 0) sdk_gauss4_d(c.seed, (sdk_u64)k, (sdk_u64)(n >> 2), 0, g);
      w += sq * g[n & 3];
    }
    double exact = exp((strat ? 1.0 : 0.5) + w);
    double d = fabs(v->saved[(size_t)k * 2 + 1] - exact); /* [g][k][s][v]: sample 1 */
    sum += d;
    sum2 += d * d;
  }
  sdk_run_destroy(&r);
  *e = sum / NPATHS;
  *se = sqrt((sum2 / NPATHS - *e * *e) / (NPATHS - 1));
  return ok;
}

static void check_order(const char *scheme, int strat, double order) {
  double x[NDT], y[NDT], w[NDT], e[NDT], se[NDT];
  int ok = 1;
  for (int i = 0; i < NDT && ok; i++) {
    int64_t n = (int64_t)32 << i;
    ok = strong_error(scheme, strat, n, &e[i], &se[i]);
    x[i] = log2(1.0 / (double)n);
    y[i] = log2(e[i]);
    double sy = se[i] / (e[i] * log(2.0));
    w[i] = 1 / (sy * sy);
  }
  const char *cal = strat ? "stratonovich" : "ito";
  TU_CHECK(ok, "%s, %s: runs with 1024 saved paths", scheme, cal);
  if (!ok) return;
  double slope, sslope;
  st_fit_slope(x, y, w, NDT, &slope, &sslope);
  printf("%-8s %-12s strong errors", scheme, cal);
  for (int i = 0; i < NDT; i++)
    printf(" %.3g+-%.2g", e[i], se[i]);
  printf("  order %.3f +- %.3f (expected %.1f)\n", slope, sslope, order);
  TU_CHECK(fabs(slope - order) <= 4 * sslope + 0.05,
           "%s, %s: strong order %.3f +- %.3f, expected %.1f", scheme, cal, slope, sslope, order);
  /* the errors fall: the noise the test rebuilt is the noise the run drew */
  TU_CHECK(e[NDT - 1] < e[0], "%s, %s: errors fall with dt", scheme, cal);
}

int main(void) {
  st_require_backend();
  check_order("euler", 0, 0.5);
  check_order("milstein", 0, 1.0);
  check_order("milstein", 1, 1.0);
  check_order("srk2", 1, 1.0);
  check_order("srk2", 0, 1.0);
  return tu_finish("test_strong");
}
