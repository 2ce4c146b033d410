/* Weak orders of convergence, measured, and the weak order 2 scheme against
 * the exact moments of its recursion.  (Orders also on GBM's E S(1)^2 =
 * exp(2 mu + sigma^2) from 2^23 paths, dt = 1/8 .. 1/64 for euler, 1/2 ..
 * 1/16 for weak2.)
 *
 * Orders: the Ornstein-Uhlenbeck process dx = -k x dt + s dW from x(0) = 0,
 * E x(T)^2 = s^2 (1 - exp(-2 k T)) / (2 k), estimated from 2^21 paths with
 * its standard error at four step sizes (T = 4; dt = 0.2 .. 0.025 for euler,
 * whose error is larger, 0.4 .. 0.05 for weak2, whose error at 0.025 would
 * be below the standard error); the order is the slope of log |error|
 * against log dt, fitted by weighted least squares, and must be the
 * scheme's within 4 standard errors of the slope plus 0.1 (what the
 * next-order terms bend the line at the largest dt): euler 1, weak2 2.
 *
 * Exactness: every step of these schemes on OU and on geometric Brownian
 * motion dS = mu S dt + sigma S dW is linear in the state with an independent
 * random factor, so the moments after N steps are known in closed form.
 * weak2 (scheme_weak2.c) on OU: x' = alpha x + beta dW with alpha = 1 - k dt
 * + (k dt)^2 / 2, beta = s (1 - k dt / 2), so E x_N^2 = beta^2 dt (1 -
 * alpha^(2N)) / (1 - alpha^2); on GBM: S' = S R with R = A + sigma (1 + mu dt)
 * dW + sigma^2 (dW^2 - dt) / 2, A = 1 + mu dt + (mu dt)^2 / 2, so E S_N = A^N
 * and E S_N^2 = (A^2 + sigma^2 (1 + mu dt)^2 dt + sigma^4 dt^2 / 2)^N.  The
 * runs must match them within 4 standard errors, in both precisions.
 *
 * All of it once more with --noise three-point (values -sqrt(3), 0, sqrt(3)
 * with probabilities 1/6, 2/3, 1/6): the same moments up to the fifth, so
 * the same orders and the same exact moments (E z^4 = 3 enters E S^2); and
 * the values themselves. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

static const char OU[] = "[model]\nname = ou_w\nvars = x\n[params]\nk = 1\ns = 1\n"
                         "[drift]\nx = -k*x\n[noise]\nx = s\n[init]\nx = 0\n[observe]\nX2 = x*x\n";
static const char GBM[] = "[model]\nname = gbm_w\nvars = S\n[params]\nmu = 0.5\nsigma = 0.4\n"
                          "[drift]\nS = mu*S\n[noise]\nS = sigma*S\n[init]\nS = 1\n"
                          "[observe]\nS2 = S*S\n";

/* the mean of user observable `name` at the last sample, its standard error */
static const char *noise_name = NULL; /* --noise for the runs below (NULL: Gaussian) */

static int run_last(const char *model, const char *scheme, int single, int64_t paths, double dt,
                    double tend, const char *name, double *m, double *se, double *m1, double *se1) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = model;
  c.scheme = scheme;
  c.single = single;
  c.paths = paths;
  c.dt = dt;
  c.t_end = tend;
  c.sample_every = (int64_t)llround(tend / dt);
  c.observe = "moments,expr";
  c.seed = 21;
  c.noise = noise_name;
  sdk_run *r = st_run(&c);
  if (!r) return 0;
  const sdk_results *R = sdk_run_results(r);
  const double *dm = NULL, *de = NULL;
  int64_t ns = 0;
  const sdk_dataset *d1 = sdk_store_findf(&R->store, "moments/mean_%s", R->var_names[0]),
                    *e1 = sdk_store_findf(&R->store, "moments/mean_err_%s", R->var_names[0]);
  int ok = st_expr_series(R, name, &dm, &de, &ns) && d1 && e1 && ns == 2;
  if (ok) {
    *m = dm[1], *se = de[1];
    *m1 = sdk_ds_f64(d1)[1], *se1 = sdk_ds_f64(e1)[1];
  }
  sdk_run_destroy(&r);
  return ok;
}

/* the weak order of `scheme` from E f(X(T)) (user observable `obs` of the
 * model) at four step sizes dt0 .. dt0 / 8 against its exact value */
static void check_order_of(const char *what, const char *model, const char *obs, double T,
                           double exact, const char *scheme, double order, double dt0,
                           int64_t paths) {
  enum { NDT = 4 };
  double x[NDT], y[NDT], w[NDT], err[NDT], se[NDT];
  int ok = 1;
  for (int i = 0; i < NDT && ok; i++) {
    double dt = dt0 / (double)(1 << i), m, m1, se1;
    ok = run_last(model, scheme, 0, paths, dt, T, obs, &m, &se[i], &m1, &se1);
    err[i] = m - exact;
    x[i] = log2(dt);
    y[i] = log2(fabs(err[i]));
    double sy = se[i] / (fabs(err[i]) * log(2.0));
    w[i] = 1 / (sy * sy);
  }
  TU_CHECK(ok, "%s: %s runs", scheme, what);
  if (!ok) return;
  double slope, sslope;
  st_fit_slope(x, y, w, NDT, &slope, &sslope);
  printf("%-6s %-11s %s - exact:", scheme, noise_name ? noise_name : "gaussian", what);
  for (int i = 0; i < NDT; i++)
    printf(" %.3g+-%.2g", err[i], se[i]);
  printf("  weak order %.3f +- %.3f (expected %.0f)\n", slope, sslope, order);
  TU_CHECK(fabs(slope - order) <= 4 * sslope + 0.1,
           "%s, %s: weak order %.3f +- %.3f, expected %.0f", scheme, what, slope, sslope, order);
}

/* OU from 0: E x(4)^2 = s^2 (1 - exp(-2 k T)) / (2 k); GBM: E S(1)^2 =
 * exp((2 mu + sigma^2) T) (euler's error is large enough from dt = 0.2 on OU;
 * weak2's at the smallest step stays above the standard error from 0.4 on) */
static void check_order(const char *scheme, double order, double dt0) {
  check_order_of("OU E x(4)^2", st_model_file(OU, 0), "X2", 4, 0.5 * (1 - exp(-8.0)), scheme, order,
                 dt0, (int64_t)1 << 21);
  check_order_of("GBM E S(1)^2", st_model_file(GBM, 5), "S2", 1, exp(2 * 0.5 + 0.16), scheme, order,
                 order == 2 ? 0.5 : 0.125, (int64_t)1 << 23);
}

/* weak2 against its recursion's exact moments (above) */
static void check_exact(int single) {
  const char *prec = single ? "single" : "double";
  double dt = 0.1, m, se, m1, se1;
  int64_t n = 10;
  /* OU */
  if (run_last(st_model_file(OU, 1), "weak2", single, 200000, dt, 1, "X2", &m, &se, &m1, &se1)) {
    double k = 1, s = 1, a = 1 - k * dt + k * k * dt * dt / 2, b = s * (1 - k * dt / 2);
    double want = b * b * dt * (1 - pow(a, 2.0 * (double)n)) / (1 - a * a);
    printf("weak2 %s %s OU: E x(1)^2 %.6f +- %.6f, recursion %.6f\n", prec,
           noise_name ? noise_name : "gaussian", m, se, want);
    TU_CHECK(fabs(m - want) < 4 * se, "weak2 %s OU: E x^2 within 4 se of the recursion", prec);
    TU_CHECK(fabs(m1) < 4 * se1, "weak2 %s OU: E x = 0 within 4 se", prec);
  } else {
    TU_CHECK(0, "weak2 %s OU run", prec);
  }
  /* GBM */
  if (run_last(st_model_file(GBM, 2), "weak2", single, 200000, dt, 1, "S2", &m, &se, &m1, &se1)) {
    double mu = 0.5, sg = 0.4, A = 1 + mu * dt + mu * mu * dt * dt / 2;
    double e1 = pow(A, (double)n), e2 = pow(A * A + sg * sg * (1 + mu * dt) * (1 + mu * dt) * dt +
                                                sg * sg * sg * sg * dt * dt / 2,
                                            (double)n);
    printf("weak2 %s %s GBM: E S(1) %.6f +- %.6f (recursion %.6f), E S^2 %.6f +- %.6f (%.6f)\n",
           prec, noise_name ? noise_name : "gaussian", m1, se1, e1, m, se, e2);
    TU_CHECK(fabs(m1 - e1) < 4 * se1 && fabs(m - e2) < 4 * se,
             "weak2 %s GBM: E S and E S^2 within 4 se of the recursion", prec);
    /* and not Euler's: its E S_N = (1 + mu dt)^N is many standard errors away */
    TU_CHECK(fabs(m1 - pow(1 + mu * dt, (double)n)) > 4 * se1,
             "weak2 %s GBM: distinguishable from Euler (%.1f se)", prec,
             fabs(m1 - pow(1 + mu * dt, (double)n)) / se1);
  } else {
    TU_CHECK(0, "weak2 %s GBM run", prec);
  }
}

/* three-point values: one step of dx = dW with dt = 1 gives x = z itself:
 * only -sqrt(3), 0, sqrt(3), zero with probability 2/3, E z^2 = 1, E z^4 = 3 */
static void check_three_point_values(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = st_model_file("[model]\nname = w\nvars = x\n[drift]\nx = 0\n[noise]\nx = 1\n"
                          "[init]\nx = 0\n[observe]\nZ = x == 0\nX2 = x*x\nX4 = x*x*x*x\n",
                          4);
  c.scheme = "euler";
  c.noise = "three-point";
  c.single = 0;
  c.paths = 300000;
  c.dt = 1;
  c.t_end = 1;
  c.observe = "expr";
  c.obs.nsave = 1000;
  for (int k = 0; k < 1000; k++)
    c.obs.save_index[k] = k;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "three-point run");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const st_view *v = st_view_of(R);
  int only3 = v->nsaved == 1000;
  for (int k = 0; only3 && k < 1000; k++) {
    double x = v->saved[(size_t)k * 2 + 1];
    only3 = x == 0 || fabs(fabs(x) - sqrt(3.0)) < 1e-15;
  }
  TU_CHECK(only3, "three-point: the values are -sqrt(3), 0, sqrt(3)");
  const char *nm[3] = {"Z", "X2", "X4"};
  const double want[3] = {2.0 / 3.0, 1, 3};
  for (int i = 0; i < 3; i++) {
    const sdk_dataset *d = sdk_store_findf(&R->store, "expr/mean_%s", nm[i]),
                      *e = sdk_store_findf(&R->store, "expr/err_%s", nm[i]);
    double m = d ? sdk_ds_f64(d)[1] : NAN, se = e ? sdk_ds_f64(e)[1] : NAN;
    printf("three-point: E %s %.6f +- %.6f (want %.6f)\n", nm[i], m, se, want[i]);
    TU_CHECK(fabs(m - want[i]) < 4 * se, "three-point: E %s within 4 se of %g", nm[i], want[i]);
  }
  sdk_run_destroy(&r);
}

/* non-commutative noise: refused */
static void check_refused(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = st_model_file("[model]\nname = nc\nvars = x, y\n[drift]\nx = 0\ny = 0\n[noise]\n"
                          "x = 1 + y*y\ny = 1\n[init]\nx = 0\ny = 0\n",
                          3);
  c.scheme = "weak2";
  c.paths = 10;
  c.t_end = 0.1;
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  st_env(&c.env);
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  /* (the schemes it names are those whose rows can: euler and srk2, not
   * milstein, which needs commutative noise too) */
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "[noise] x depends on y") &&
               strstr(eb.msg, "not commutative") &&
               strstr(eb.msg, "--scheme euler (Ito) or srk2 (Stratonovich)") &&
               !strstr(eb.msg, "milstein"),
           "weak2: non-commutative noise refused (%s)", eb.msg);
  sdk_run_destroy(&r);
}

int main(void) {
  st_require_backend();
  check_order("euler", 1, 0.2);
  check_order("weak2", 2, 0.4);
  check_exact(0);
  check_exact(1);
  /* the same with three-point values (the moments the schemes need agree) */
  noise_name = "three-point";
  check_order("euler", 1, 0.2);
  check_order("weak2", 2, 0.4);
  check_exact(0);
  check_exact(1);
  noise_name = NULL;
  check_three_point_values();
  check_refused();
  return tu_finish("test_weak");
}
