/* --observe acf accumulated by the kernel (codegen/acf.h, for at most 32
 * lags) against the host's sampling of the same run (obs_acf.c: for more
 * lags, here 32 lags against 31 + 1: the estimator at a lag does not depend
 * on the largest lag), on $SDK_TEST_BACKEND:
 *  - the OU model of test_corr_obs with its user observable q = x^2 (one
 *    rounding, the same bits wherever it is evaluated): cov, err and mean of
 *    x and q at lags 0..31, sampled every step and every 3 steps from a
 *    transient that is not a multiple of 3, and from the initial state
 *    without a transient (sample 0: no step makes it); bitwise the host's in double
 *    precision (the same products and sums in the same order), within
 *    1e-12 relative in single precision (the host keeps its sums to 2^-48);
 *  - bitwise the same over 3 shards, 3 in-process ranks, 1 thread against
 *    2, and stopped half way and resumed, in single precision every 3 steps
 *    (test_corr's layouts sample every step). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

static const char MODEL[] = "[model]\nname = ouq\nvars = x\n[params]\nk = 1\nD = 0.5\n"
                            "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n"
                            "[observe]\nq = x*x\n";

static int g_single, g_every;
static double g_transient = 5; /* 100 steps: with every 3, the first sample is step 102 */

static void config(sdk_run_config *c) {
  st_config_text(c, "ouq.sde", MODEL, 512, 0.05, 25);
  c->scheme = "euler";
  c->transient = g_transient;
  c->sample_every = g_every;
  c->single = g_single;
  c->seed = 777;
  c->observe = "acf";
  c->obs.corr_vars = "x,q";
  c->obs.max_lag = 31;
}

static void compare(int single, int every) {
  g_single = single, g_every = every;
  sdk_run_config c;
  config(&c);
  sdk_run *rk = st_run(&c);
  c.obs.max_lag = 32; /* 33 lags: sampled by the host */
  sdk_run *rh = st_run(&c);
  TU_CHECK(rk && rh, "OU runs with acf in the kernel and on the host");
  if (!rk || !rh) {
    sdk_run_destroy(&rk);
    sdk_run_destroy(&rh);
    return;
  }
  const sdk_results *K = sdk_run_results(rk), *H = sdk_run_results(rh);
  static const char *const names[] = {"cov_x", "err_x", "mean_x", "cov_q", "err_q", "mean_q"};
  double worst = 0;
  int same = 1, n = 0;
  for (int d = 0; d < 6; d++) {
    char path[32];
    snprintf(path, sizeof path, "acf/%s", names[d]);
    const double *a = st_f64(K, path), *b = st_f64(H, path);
    int nl = strncmp(names[d], "mean", 4) ? 32 : 1;
    for (int l = 0; a && b && l < nl; l++) {
      int lh = nl > 1 ? l : 0; /* (the host's rows have 33 lags) */
      double x = a[l], y = b[lh];
      same &= memcmp(&x, &y, sizeof x) == 0;
      worst = fmax(worst, fabs(x - y) / fmax(fabs(y), 1e-300));
      n += isfinite(x) && isfinite(y);
    }
    TU_CHECK(a && b, "%s in both runs", path);
  }
  TU_CHECK(n == 2 * (32 + 32 + 1), "every value finite in both (%d)", n);
  if (single)
    TU_CHECK(worst < 1e-12, "single, every %d: kernel against host within 1e-12: %.3g", every,
             worst);
  else
    TU_CHECK(same, "double, every %d: kernel bitwise the host's (largest difference %.3g)", every,
             worst);
  printf("acf in the kernel against the host (%s, every %d step%s, transient %g): largest "
         "relative difference %.3g%s\n",
         single ? "single" : "double", every, every > 1 ? "s" : "", g_transient, worst,
         same ? " (bitwise)" : "");
  sdk_run_destroy(&rk);
  sdk_run_destroy(&rh);
}

static void layouts(sdk_run_config *c) {
  g_single = 1, g_every = 3;
  config(c);
  c->paths = 256;
  c->obs.max_lag = 12;
}

int main(void) {
  st_require_backend();
  compare(0, 1);
  compare(0, 3);
  compare(1, 1);
  compare(1, 3);
  g_transient = 0;
  compare(0, 1);
  compare(1, 3);
  g_transient = 5;
  st_same_over_threads(layouts, "acf in the kernel");
  st_same_over_layouts(layouts, "acf in the kernel (single, every 3 steps)");
  return tu_finish("test_corr_kernel");
}
