/* Weak orders of convergence, measured, and the weak order 2 scheme against
 * the exact moments of its recursion.
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
 * runs must match them within 4 standard errors, in both precisions. */
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
static int run_last(const char *model, const char *scheme, int single, int64_t paths, double dt,
                    double tend, const char *name, double *m, double *se, double *m1,
                    double *se1) {
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
  sdk_run *r = st_run(&c);
  if (!r) return 0;
  const sdk_results *R = sdk_run_results(r);
  const sdk_dataset *d = sdk_store_findf(&R->store, "expr/mean_%s", name),
                    *e = sdk_store_findf(&R->store, "expr/err_%s", name);
  const sdk_dataset *d1 = sdk_store_findf(&R->store, "moments/mean_%s", R->var_names[0]),
                    *e1 = sdk_store_findf(&R->store, "moments/mean_err_%s", R->var_names[0]);
  int ok = d && e && d1 && e1 && d->dims[0] == 2;
  if (ok) {
    *m = sdk_ds_f64(d)[1], *se = sdk_ds_f64(e)[1];
    *m1 = sdk_ds_f64(d1)[1], *se1 = sdk_ds_f64(e1)[1];
  }
  sdk_run_destroy(&r);
  return ok;
}

static void check_order(const char *scheme, double order, double dt0) {
  enum { NDT = 4 };
  const double k = 1, s = 1, T = 4, exact = s * s * (1 - exp(-2 * k * T)) / (2 * k);
  double x[NDT], y[NDT], w[NDT], err[NDT], se[NDT];
  int ok = 1;
  for (int i = 0; i < NDT && ok; i++) {
    double dt = dt0 / (double)(1 << i), m, m1, se1;
    ok = run_last(st_model_file(OU, 0), scheme, 0, (int64_t)1 << 21, dt, T, "X2", &m, &se[i], &m1,
                  &se1);
    err[i] = m - exact;
    x[i] = log2(dt);
    y[i] = log2(fabs(err[i]));
    double sy = se[i] / (fabs(err[i]) * log(2.0));
    w[i] = 1 / (sy * sy);
  }
  TU_CHECK(ok, "%s: OU runs", scheme);
  if (!ok) return;
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < NDT; i++) {
    sw += w[i], sx += w[i] * x[i], sy += w[i] * y[i];
    sxx += w[i] * x[i] * x[i], sxy += w[i] * x[i] * y[i];
  }
  double det = sw * sxx - sx * sx, slope = (sw * sxy - sx * sy) / det, sslope = sqrt(sw / det);
  printf("%-6s E x(4)^2 - exact:", scheme);
  for (int i = 0; i < NDT; i++)
    printf(" %.3g+-%.2g", err[i], se[i]);
  printf("  weak order %.3f +- %.3f (expected %.0f)\n", slope, sslope, order);
  TU_CHECK(fabs(slope - order) <= 4 * sslope + 0.1, "%s: weak order %.3f +- %.3f, expected %.0f",
           scheme, slope, sslope, order);
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
    printf("weak2 %s OU: E x(1)^2 %.6f +- %.6f, recursion %.6f\n", prec, m, se, want);
    TU_CHECK(fabs(m - want) < 4 * se, "weak2 %s OU: E x^2 within 4 se of the recursion", prec);
    TU_CHECK(fabs(m1) < 4 * se1, "weak2 %s OU: E x = 0 within 4 se", prec);
  } else {
    TU_CHECK(0, "weak2 %s OU run", prec);
  }
  /* GBM */
  if (run_last(st_model_file(GBM, 2), "weak2", single, 200000, dt, 1, "S2", &m, &se, &m1, &se1)) {
    double mu = 0.5, sg = 0.4, A = 1 + mu * dt + mu * mu * dt * dt / 2;
    double e1 = pow(A, (double)n),
           e2 = pow(A * A + sg * sg * (1 + mu * dt) * (1 + mu * dt) * dt +
                        sg * sg * sg * sg * dt * dt / 2,
                    (double)n);
    printf("weak2 %s GBM: E S(1) %.6f +- %.6f (recursion %.6f), E S^2 %.6f +- %.6f (%.6f)\n", prec,
           m1, se1, e1, m, se, e2);
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
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "[noise] x depends on y") &&
               strstr(eb.msg, "not commutative") && strstr(eb.msg, "--scheme euler"),
           "weak2: non-commutative noise refused (%s)", eb.msg);
  sdk_run_destroy(&r);
}

int main(void) {
  st_require_backend();
  check_order("euler", 1, 0.2);
  check_order("weak2", 2, 0.4);
  check_exact(0);
  check_exact(1);
  check_refused();
  return tu_finish("test_weak");
}
