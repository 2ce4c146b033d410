/* Time correlations and spectra (--observe acf, psd: observe/obs_acf.c,
 * obs_psd.c) on $SDK_TEST_BACKEND, against exact answers:
 *  - OU dx = -k x dt + sqrt(2 D) dW by Euler at dt is exactly the AR(1)
 *    process x_{n+1} = r x_n + sqrt(2 D dt) z, r = 1 - k dt, whose stationary
 *    autocovariance at lag m steps is C_m = 2 D dt / (1 - r^2) r^m (-> (D/k)
 *    exp(-k m dt) as dt -> 0); acf at lags 0..20 within 5 standard errors,
 *    in double and single precision;
 *  - the Welch spectrum's expectation for that process, exactly (windowed
 *    and aliased: obs_psd.c), E S(f_k) = c_k (h / U) sum_{n,n'} w_n w_n'
 *    C_{n - n'} cos(2 pi k (n - n') / M), at every bin within 5 standard
 *    errors, for the Hann and the rectangular window; its sum over the bins
 *    times 1/(M h) against the windowed mean square; the continuum limit,
 *    the Lorentzian 2 D / (k^2 + w^2) two-sided in w (4 D / (k^2 + w^2)
 *    one-sided in f), is printed beside it (the short segments on purpose
 *    make the window's and the sampling's corrections large);
 *  - Josephson junction: the voltage v's spectrum has its largest bin
 *    (f > 0) at the drive's frequency omega / 2 pi;
 *  - bitwise the same over 3 shards, 3 in-process ranks, and stopped half
 *    way with a checkpoint and resumed.
 * (psd's M = 64 is computed by the kernel, codegen/psd.h, the default;
 * test_psd_kernel checks it bitwise against the host's sampling.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define K_OU 1.0
#define D_OU 0.5
#define DT 0.05

static void ou_config(sdk_run_config *c, const char *obs) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = "ou"; /* dx = -k x dt + sqrt(2 D) dW, k = 1, D = 0.5, x(0) = 1 */
  c->scheme = "euler";
  c->paths = 2048;
  c->dt = DT;
  c->t_end = 115;
  c->transient = 15; /* r^300 = 2e-7 of x(0) = 1 left */
  c->sample_every = 1;
  c->seed = 31;
  c->observe = obs;
  c->obs.max_lag = 20;
  c->obs.psd_segment = 64;
}

#define f64 st_f64

static double ar_cov(int64_t m) {
  return st_ar1_cov(K_OU, D_OU, DT, m);
}

static void check_acf(int single) {
  sdk_run_config c;
  ou_config(&c, "acf");
  c.single = single;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU run with acf");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *cov = f64(R, "acf/cov_x"), *err = f64(R, "acf/err_x"), *lag = f64(R, "acf/lag");
  double worst = 0;
  for (int64_t m = 0; cov && err && lag && m <= 20; m++) {
    double z = (cov[m] - ar_cov(m)) / err[m];
    worst = fmax(worst, fabs(z));
    TU_CHECK(fabs(z) < 5 && err[m] > 0 && lag[m] == (double)m * DT,
             "%s: acf at lag %g: %.6f +- %.6f, exact %.6f", single ? "single" : "double", lag[m],
             cov[m], err[m], ar_cov(m));
    if (m == 0 || m == 5 || m == 20)
      printf("%s acf(%4.2f) = %.6f +- %.6f  exact (Euler AR(1)) %.6f  continuum %.6f\n",
             single ? "single" : "double", lag[m], cov[m], err[m], ar_cov(m),
             D_OU / K_OU * exp(-K_OU * lag[m]));
  }
  printf("acf (%s): largest |deviation| / SE over 21 lags: %.2f\n", single ? "single" : "double",
         worst);
  sdk_run_destroy(&r);
}

/* E S(f_k) of the Euler AR(1) process: the windowed, aliased spectrum */
static double psd_exact(int64_t k, int64_t M, int rect) {
  double U = 0, s = 0, h = DT;
  double *w = malloc((size_t)M * sizeof *w);
  for (int64_t n = 0; w && n < M; n++) {
    w[n] = rect ? 1 : 0.5 - 0.5 * cos(2 * M_PI * (double)n / (double)M);
    U += w[n] * w[n];
  }
  for (int64_t n = 0; w && n < M; n++)
    for (int64_t m = 0; m < M; m++)
      s += w[n] * w[m] * ar_cov(llabs(n - m)) * cos(2 * M_PI * (double)(k * (n - m)) / (double)M);
  free(w);
  return (k == 0 || 2 * k == M ? 1 : 2) * h / U * s;
}

static void check_psd(int rect, int single) {
  sdk_run_config c;
  ou_config(&c, "psd");
  c.obs.psd_window = rect;
  c.single = single;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU run with psd");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *S = f64(R, "psd/S_x"), *err = f64(R, "psd/err_x"), *f = f64(R, "psd/f");
  int64_t M = 64;
  double worst = 0, tot = 0, tot_exact = 0;
  for (int64_t k = 0; S && err && f && k <= M / 2; k++) {
    double ex = psd_exact(k, M, rect), z = (S[k] - ex) / err[k];
    worst = fmax(worst, fabs(z));
    tot += S[k] / (M * DT), tot_exact += ex / (M * DT);
    TU_CHECK(fabs(z) < 5 && fabs(f[k] - (double)k / (M * DT)) < 1e-12,
             "%s window: S(%g) = %.6f +- %.6f, exact %.6f", rect ? "rect" : "hann", f[k], S[k],
             err[k], ex);
    if (k == 1 || k == 8)
      printf("psd %s %s: S(f = %.4f) = %.6f +- %.6f  exact (windowed, aliased) %.6f  "
             "Lorentzian 4 D / (k^2 + (2 pi f)^2) %.6f\n",
             rect ? "rect" : "hann", single ? "single" : "double", f[k], S[k], err[k], ex,
             4 * D_OU / (K_OU * K_OU + 4 * M_PI * M_PI * f[k] * f[k]));
  }
  printf("psd (%s, %s): largest |deviation| / SE over 33 bins %.2f; sum S df = %.5f (exact %.5f, "
         "variance %.5f)\n",
         rect ? "rect" : "hann", single ? "single" : "double", worst, tot, tot_exact, ar_cov(0));
  sdk_run_destroy(&r);
}

static void check_josephson(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = "josephson"; /* omega = 4.9: the line at f = 4.9 / (2 pi) */
  c.paths = 200;
  c.spp = 128;
  c.periods = 600;
  c.transient_periods = 100;
  c.sample_every = 8; /* h = T / 16: f = 4 / (64 h) is bin 4 */
  c.seed = 3;
  c.observe = "psd";
  c.obs.psd_segment = 64;
  c.obs.corr_vars = "v";
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "Josephson run with psd");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *S = f64(R, "psd/S_v"), *err = f64(R, "psd/err_v"), *f = f64(R, "psd/f");
  int64_t best = 1;
  for (int64_t k = 1; S && k <= 32; k++)
    if (S[k] > S[best]) best = k;
  double fd = 4.9 / (2 * M_PI);
  TU_CHECK(S && err && f && best == 4 && fabs(f[4] - fd) < 1e-9 * fd &&
               S[4] - fmax(S[3], S[5]) > 5 * (err[4] + fmax(err[3], err[5])),
           "Josephson: the largest bin of v's spectrum (%lld) is the drive's, f = %.6f",
           (long long)best, fd);
  if (S)
    printf("josephson psd of v: peak at bin %lld, f = %.6f (omega / 2 pi = %.6f), S = %.4f +- "
           "%.4f; neighbours %.4f, %.4f\n",
           (long long)best, f[best], fd, S[best], err[best], S[3], S[5]);
  sdk_run_destroy(&r);
}

static void layouts_config(sdk_run_config *c) {
  ou_config(c, "acf,psd");
  c->paths = 1024;
  c->t_end = 40;
  c->transient = 5;
  c->obs.max_lag = 8;
  c->obs.psd_segment = 32;
  /* the host's sampling: the layouts of the host estimators (the kernel's
   * are test_psd_kernel's and test_corr_kernel's), and a run the GPU takes
   * in chunks, so that it can be stopped half way */
  c->obs.psd_host = 1;
}

int main(void) {
  st_require_backend();
  check_acf(0);
  check_acf(1);
  check_psd(0, 0);
  check_psd(1, 0);
  check_psd(0, 1);
  check_josephson();
  st_same_over_layouts(layouts_config, "acf, psd");
  return tu_finish("test_corr");
}
