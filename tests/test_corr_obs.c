/* User observables ([observe]) in --observe acf and psd (--corr-vars names
 * them like variables; observe/obs_corr.c), on $SDK_TEST_BACKEND, against
 * exact answers.  The OU process dx = -k x dt + sqrt(2 D) dW by Euler at dt
 * is the AR(1) process x_{n+1} = r x_n + sqrt(2 D dt) z, r = 1 - k dt, of
 * stationary autocovariance C_m = 2 D dt / (1 - r^2) r^m (-> (D/k) exp(-k s));
 * it is Gaussian of mean 0, so (Isserlis) the centred square has
 * Cov(x_t^2, x_{t+m}^2) = 2 C_m^2 (-> 2 (D/k)^2 exp(-2 k s)).  With the user
 * observables y = 2 x + 1 and q = x^2:
 *  - acf: cov_q against 2 C_m^2 and cov_y against 4 C_m at lags 0..16, and
 *    mean_q against C_0, within 5 standard errors; at lag 0 cov_y = 4 cov_x
 *    of the same run to 1e-9 and mean_y = 2 mean_x + 1 (at a lag s > 0 the
 *    estimator's products over the first and the last N - s samples, less
 *    the mean over all N, are not shift invariant: cov_y and 4 cov_x differ
 *    by O(s / N) of the path means' spread, 2e-3 here);
 *  - psd (Hann): S_q(f_k) against its exact expectation c_k (h / U)
 *    sum_{n,n'} w_n w_n' 2 C_{n-n'}^2 cos(2 pi k (n - n') / M) for k >= 2
 *    (the mean C_0 adds only to bins 0 and 1 of the periodic Hann window)
 *    within 5 standard errors; S_y = 4 S_x for k >= 2 (the constant 1
 *    likewise) to 1e-6 (measured 3e-9: the transform's rounding of the
 *    constant's large bin 0 leaks into the small bins);
 *  - bitwise the same over 3 shards, 3 in-process ranks, and stopped half
 *    way with a checkpoint and resumed;
 *  - a name that is neither a variable nor a user observable: refused,
 *    naming both lists. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define K_OU 1.0
#define D_OU 0.5
#define DT 0.05
#define M_SEG 32

static const char MODEL[] = "[model]\nname = ouq\nvars = x\n[params]\nk = 1\nD = 0.5\n"
                            "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n"
                            "[observe]\ny = 2*x + 1\nq = x*x\n";

static void config(sdk_run_config *c, const char *obs) {
  st_config_text(c, "ouq.sde", MODEL, 2048, DT, 75);
  c->scheme = "euler";
  c->transient = 15; /* r^300 = 2e-7: stationary from the start of the samples */
  c->sample_every = 1;
  c->seed = 3131;
  c->observe = obs;
  c->obs.corr_vars = "x,y,q";
  c->obs.max_lag = 16;
  c->obs.psd_segment = M_SEG;
}

#define f64 st_f64

static double ar_cov(int64_t m) {
  return st_ar1_cov(K_OU, D_OU, DT, m);
}

static double sq_cov(int64_t m) {
  return 2 * ar_cov(m) * ar_cov(m);
}

static void check_acf(void) {
  sdk_run_config c;
  config(&c, "acf");
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU run with acf of user observables");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *cx = f64(R, "acf/cov_x"), *cy = f64(R, "acf/cov_y"), *cq = f64(R, "acf/cov_q");
  const double *eq = f64(R, "acf/err_q"), *ey = f64(R, "acf/err_y"), *mx = f64(R, "acf/mean_x"),
               *my = f64(R, "acf/mean_y");
  const double *mq = f64(R, "acf/mean_q"), *lag = f64(R, "acf/lag");
  if (!cx || !cy || !cq || !eq || !ey || !mx || !my || !mq || !lag) {
    sdk_run_destroy(&r);
    return;
  }
  double worst = 0, worsty = 0, lin = fabs(cy[0] - 4 * cx[0]) / cx[0];
  for (int64_t m = 0; m <= 16; m++) {
    double z = (cq[m] - sq_cov(m)) / eq[m], zy = (cy[m] - 4 * ar_cov(m)) / ey[m];
    worst = fmax(worst, fabs(z));
    worsty = fmax(worsty, fabs(zy));
    TU_CHECK(fabs(zy) < 5 && ey[m] > 0, "acf of 2x + 1 at lag %g: %.6f +- %.6f, exact %.6f", lag[m],
             cy[m], ey[m], 4 * ar_cov(m));
    TU_CHECK(fabs(z) < 5 && eq[m] > 0, "acf of x^2 at lag %g: %.6f +- %.6f, exact %.6f", lag[m],
             cq[m], eq[m], sq_cov(m));
    if (m == 0 || m == 8 || m == 16)
      printf("acf of q = x^2 (%4.2f) = %.6f +- %.6f  exact 2 C^2 (Euler AR(1)) %.6f  continuum "
             "2 (D/k)^2 exp(-2 k s) %.6f\n",
             lag[m], cq[m], eq[m], sq_cov(m), 2 * pow(D_OU / K_OU, 2) * exp(-2 * K_OU * lag[m]));
  }
  printf("acf of q, y: largest |deviation| / SE over 17 lags %.2f, %.2f; |cov_y(0) - 4 "
         "cov_x(0)| / cov_x(0) %.2g; mean_q %.6f (C_0 %.6f), mean_y - 2 mean_x - 1 = %.2g\n",
         worst, worsty, lin, *mq, ar_cov(0), *my - 2 * *mx - 1);
  TU_CHECK(lin < 1e-9, "cov_y(0) = 4 cov_x(0): off by %g", lin);
  TU_CHECK(fabs(*my - 2 * *mx - 1) < 1e-9, "mean_y = 2 mean_x + 1: %.17g vs %.17g", *my, *mx);
  TU_CHECK(fabs(*mq - ar_cov(0)) < 5 * eq[0] / sqrt(2 * 2048.0) + 1e-3 * ar_cov(0),
           "mean_q %.6f vs C_0 %.6f", *mq, ar_cov(0));
  sdk_run_destroy(&r);
}

/* E S(f_k) of a stationary sequence of autocovariance cov: windowed, aliased */
static double psd_exact(double (*cov)(int64_t), int64_t k) {
  double U = 0, s = 0, w[M_SEG];
  for (int n = 0; n < M_SEG; n++) {
    w[n] = 0.5 - 0.5 * cos(2 * M_PI * n / M_SEG);
    U += w[n] * w[n];
  }
  for (int n = 0; n < M_SEG; n++)
    for (int m = 0; m < M_SEG; m++)
      s += w[n] * w[m] * cov(llabs((long long)(n - m))) *
           cos(2 * M_PI * (double)(k * (n - m)) / M_SEG);
  return (k == 0 || 2 * k == M_SEG ? 1 : 2) * DT / U * s;
}

static void check_psd(void) {
  sdk_run_config c;
  config(&c, "psd");
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU run with psd of user observables");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *Sx = f64(R, "psd/S_x"), *Sy = f64(R, "psd/S_y"), *Sq = f64(R, "psd/S_q");
  const double *eq = f64(R, "psd/err_q"), *f = f64(R, "psd/f");
  double worst = 0, lin = 0;
  for (int64_t k = 2; Sx && Sy && Sq && eq && f && k <= M_SEG / 2; k++) {
    double ex = psd_exact(sq_cov, k), z = (Sq[k] - ex) / eq[k];
    worst = fmax(worst, fabs(z));
    lin = fmax(lin, fabs(Sy[k] - 4 * Sx[k]) / Sx[k]);
    TU_CHECK(fabs(z) < 5, "psd of x^2 at f = %g: %.6f +- %.6f, exact %.6f", f[k], Sq[k], eq[k], ex);
    if (k == 2 || k == 8)
      printf("psd of q = x^2 (f = %.4f) = %.6f +- %.6f  exact (windowed, aliased) %.6f\n", f[k],
             Sq[k], eq[k], ex);
  }
  printf("psd of q: largest |deviation| / SE over bins 2..%d %.2f; max |S_y - 4 S_x| / S_x %.2g\n",
         M_SEG / 2, worst, lin);
  TU_CHECK(lin < 1e-6, "S_y = 4 S_x: off by %g", lin);
  sdk_run_destroy(&r);
}

static void small(sdk_run_config *c) {
  config(c, "acf,psd");
  c->paths = 512;
  c->t_end = 30;
  c->transient = 5;
  c->obs.max_lag = 6;
  c->obs.psd_segment = 16;
  c->obs.corr_vars = "q,x,y";
}

static void check_refusal(void) {
  sdk_run_config c;
  small(&c);
  c.obs.corr_vars = "x,nosuch";
  st_env(&c.env);
  sdk_run *r = NULL;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "no variable or user observable 'nosuch'") &&
               strstr(eb.msg, "user observables: y, q"),
           "--corr-vars nosuch: %s", eb.msg);
  printf("--corr-vars x,nosuch: %s\n", eb.msg);
  sdk_run_destroy(&r);
}

int main(void) {
  st_require_backend();
  check_acf();
  check_psd();
  st_same_over_layouts(small, "acf and psd of user observables");
  check_refusal();
  return tu_finish("test_corr_obs");
}
