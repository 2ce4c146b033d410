/* First passage at [boundaries] (codegen/boundary.c, observe/obs_fpt.c)
 * against exact answers, every estimate within K standard errors (the
 * computed ones) of the exact value, with fixed seeds:
 *   a. mean exit time of Brownian motion dx = sqrt(2D) dW from (0, L),
 *      x0 (L - x0) / (2D), for three x0 (a scan of x0); with the Brownian-
 *      bridge correction, at a dt where discrete monitoring alone
 *      (--no-bridge-correction) is off by more than 3% (asserted too);
 *   b. splitting probability of drifted Brownian motion, P(exit at L) =
 *      (1 - exp(-mu x0 / D)) / (1 - exp(-mu L / D)), for three mu (f: a scan
 *      of mu, each grid point its own exact answer);
 *   c. mean first-passage time over the barrier of the double well U = x^4/4
 *      - x^2/2 from -1 to 1, T = (1/D) int_{-1}^{1} dy e^{U(y)/D}
 *      int_{-inf}^{y} dz e^{-U(z)/D} by composite Simpson quadrature;
 *   d. a reflecting wall at 0 and an absorbing one at L: (L^2 - x0^2) / (2D);
 *   e. censoring: a run too short reports censored paths, lower_bound = 1,
 *      S(0) = 1 and S(t) non-increasing;
 * and the results bitwise the same for 1 and 4 shards;
 *   g. --target-se (windows with the carry, sim/target.c) on the escape of
 *      Brownian motion from (-1, 1) from 0, E tau = 1 / (2D): every fpt
 *      dataset byte for byte that of a plain run of paths_used paths, with
 *      and without --dt-check, every targeted SE <= EPS;
 *   h. --dt-check (the coarse path's own boundary rows): the same escape
 *      under euler at dt = 0.04: the reported bias of the mean exit time
 *      agrees within 3 SE with value(dt) - exact, and --extrapolate's value
 *      is closer to the exact one; with --no-bridge-correction (order 1/2)
 *      the extrapolated value is closer too, and the values of the fine
 *      path are bitwise those of a run without --dt-check.
 * Runs on $SDK_TEST_BACKEND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define K 5.0 /* tolerance in standard errors */

static void base(sdk_run_config *c, const char *text, int64_t paths, double dt, double tend) {
  st_config_text(c, "fpt-test.sde", text, paths, dt, tend);
  c->observe = "fpt";
  c->seed = 20261125;
}

static void scan(sdk_run_config *c, const char *spec) {
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse(spec, &c->scan[0], &eb) == SDK_OK, "scan %s: %s", spec, eb.msg);
  c->nscan = 1;
}

static const int64_t *ds_i64(const sdk_results *R, const char *path) {
  const sdk_dataset *d = sdk_store_find(&R->store, path);
  TU_CHECK(d && d->type == SDK_I64, "no int64 dataset %s", path);
  return d && d->type == SDK_I64 ? sdk_ds_i64(d) : NULL;
}

/* |est - exact| <= K se, printed */
static const char BM[] = "[model]\nname = bm\nvars = x\n[params]\nD = 1\nL = 1\nx0 = 0.5\n"
                         "[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = x0\n"
                         "[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n";

/* a: mean exit time from (0, L), with and without the bridge correction */
static void exit_time(void) {
  const double x0[3] = {0.2, 0.5, 0.8}, D = 1, L = 1;
  for (int bridge = 1; bridge >= 0; bridge--) {
    sdk_run_config c;
    base(&c, BM, 20000, 0.001, 1.5);
    scan(&c, "x0=0.2:0.8:3");
    c.no_bridge_correction = !bridge;
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "exit-time run");
    if (r) {
      const sdk_results *R = sdk_run_results(r);
      const double *m = st_f64(R, "fpt/exit_mean"), *e = st_f64(R, "fpt/exit_err");
      const int64_t *cen = ds_i64(R, "fpt/censored");
      for (int g = 0; m && e && cen && g < 3; g++) {
        double exact = x0[g] * (L - x0[g]) / (2 * D);
        char what[96];
        snprintf(what, sizeof what, "a. exit time x0=%.1f %s", x0[g],
                 bridge ? "bridge" : "no bridge");
        TU_CHECK(cen[g] == 0, "%s: %lld censored", what, (long long)cen[g]);
        if (bridge) {
          st_within(what, m[g], e[g], exact, K);
        } else {
          double rel = (m[g] - exact) / exact;
          printf("%-34s estimate %.6f  exact %.6f  se %.6f  off %+.1f%%\n", what, m[g], exact, e[g],
                 100 * rel);
          TU_CHECK(rel > 0.03, "%s: discrete monitoring off by only %.2f%%", what, 100 * rel);
        }
      }
    }
    sdk_run_destroy(&r);
    sdk_scan_free(&c.scan[0]);
  }
}

/* a scanned level (L), in double precision: x0 (L - x0) / (2D) per grid point */
static void scanned_level(void) {
  const double L[3] = {0.8, 1.0, 1.2}, x0 = 0.5, D = 1;
  sdk_run_config c;
  base(&c, BM, 20000, 0.001, 2);
  scan(&c, "L=0.8:1.2:3");
  c.single = 0;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "scanned-level run");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *m = st_f64(R, "fpt/exit_mean"), *e = st_f64(R, "fpt/exit_err");
    const int64_t *cen = ds_i64(R, "fpt/censored");
    for (int g = 0; m && e && cen && g < 3; g++) {
      char what[96];
      snprintf(what, sizeof what, "a. exit time L=%.1f (double)", L[g]);
      TU_CHECK(cen[g] == 0, "%s: %lld censored", what, (long long)cen[g]);
      st_within(what, m[g], e[g], x0 * (L[g] - x0) / (2 * D), K);
    }
  }
  sdk_run_destroy(&r);
  sdk_scan_free(&c.scan[0]);
}

/* b, f: splitting probability of drifted BM, one exact answer per mu */
static void splitting(void) {
  static const char text[] = "[model]\nname = dbm\nvars = x\n[params]\nD = 0.5\nL = 1\n"
                             "mu = 1\nx0 = 0.3\n[drift]\nx = mu\n[noise]\nx = sqrt(2*D)\n"
                             "[init]\nx = x0\n[boundaries]\nleft = absorb x <= 0\n"
                             "right = absorb x >= L\n";
  const double mu[3] = {-1, 0.5, 2}, D = 0.5, L = 1, x0 = 0.3;
  sdk_run_config c;
  base(&c, text, 20000, 0.001, 4);
  scan(&c, "mu=-1:2:3");
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "splitting run");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *s = st_f64(R, "fpt/split"), *e = st_f64(R, "fpt/split_err");
    const int64_t *cen = ds_i64(R, "fpt/censored");
    for (int g = 0; s && e && cen && g < 3; g++) {
      double exact = (1 - exp(-mu[g] * x0 / D)) / (1 - exp(-mu[g] * L / D));
      char what[96];
      snprintf(what, sizeof what, "b. split at L, mu=%g", mu[g]);
      TU_CHECK(cen[g] == 0, "%s: %lld censored", what, (long long)cen[g]);
      st_within(what, s[g * 2 + 1], e[g * 2 + 1], exact, K);
      /* the two boundaries share the paths */
      TU_CHECK(fabs(s[g * 2] + s[g * 2 + 1] - 1) < 1e-12, "%s: splits add to 1", what);
    }
  }
  sdk_run_destroy(&r);
  sdk_scan_free(&c.scan[0]);
}

/* composite Simpson of f over [a, b] with n (even) intervals */
static double simpson(double (*f)(double, double), double p, double a, double b, int n) {
  double h = (b - a) / n, s = f(a, p) + f(b, p);
  for (int i = 1; i < n; i++)
    s += (i % 2 ? 4 : 2) * f(a + i * h, p);
  return s * h / 3;
}
static double dw_u(double x) {
  return x * x * x * x / 4 - x * x / 2;
}
static double dw_inner(double z, double D) {
  return exp(-dw_u(z) / D);
}
static double dw_outer(double y, double D) {
  /* int_{-inf}^{y} e^{-U/D}: the integrand is below e^-100 left of -6 */
  return exp(dw_u(y) / D) * simpson(dw_inner, D, -6, y, 4000);
}

/* c: over the barrier of the double well (each scheme) */
static void double_well(const char *scheme) {
  static const char text[] = "[model]\nname = dw\nvars = x\n[params]\nD = 0.5\n"
                             "[drift]\nx = x - x*x*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = -1\n"
                             "[boundaries]\nover = absorb x >= 1\n";
  const double D = 0.5;
  double exact = simpson(dw_outer, D, -1, 1, 800) / D;
  sdk_run_config c;
  base(&c, text, 4000, 0.005, 100);
  c.scheme = scheme;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "double-well run");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *m = st_f64(R, "fpt/mean"), *e = st_f64(R, "fpt/mean_err"),
                 *s = st_f64(R, "fpt/split");
    const int64_t *cen = ds_i64(R, "fpt/censored");
    if (m && e && s && cen) {
      TU_CHECK(cen[0] == 0 && s[0] == 1, "double well: every path over (%lld censored)",
               (long long)cen[0]);
      char what[96];
      snprintf(what, sizeof what, "c. double-well MFPT -1 -> 1, %s", scheme);
      st_within(what, m[0], e[0], exact, K);
    }
  }
  sdk_run_destroy(&r);
}

/* d: reflecting at 0, absorbing at L */
static void reflection(const char *scheme) {
  static const char text[] = "[model]\nname = rbm\nvars = x\n[params]\nD = 1\nL = 1\n"
                             "[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0.5\n"
                             "[boundaries]\nwall = reflect x <= 0\nexit = absorb x >= L\n";
  const double D = 1, L = 1, x0 = 0.5;
  sdk_run_config c;
  base(&c, text, 20000, 0.001, 5);
  c.scheme = scheme;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "reflection run");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *m = st_f64(R, "fpt/exit_mean"), *e = st_f64(R, "fpt/exit_err"),
                 *s = st_f64(R, "fpt/split");
    const int64_t *cen = ds_i64(R, "fpt/censored");
    if (m && e && s && cen) {
      TU_CHECK(cen[0] == 0, "reflection: %lld censored", (long long)cen[0]);
      TU_CHECK(s[0] == 0 && s[1] == 1, "reflection: no path absorbed at the wall (%g, %g)", s[0],
               s[1]);
      char what[96];
      snprintf(what, sizeof what, "d. reflect at 0, exit at L, %s", scheme);
      st_within(what, m[0], e[0], (L * L - x0 * x0) / (2 * D), K);
    }
  }
  sdk_run_destroy(&r);
}

/* d2: two reflecting walls and a step wider than the gap between them: a
 * path mirrored at one wall past the other is never brought back, so it
 * must come out as a blown-up path, not as a number outside the walls;
 * with steps that fit the paths stay between the walls. */
static void two_walls(int single, int compensate) {
  static const char text[] = "[model]\nname = walls\nvars = x\n[params]\ns = 10\n"
                             "[drift]\nx = 0\n[noise]\nx = s\n"
                             "[boundaries]\nup = reflect x >= 1\nlo = reflect x <= -1\n";
  sdk_run_config c;
  st_config_text(&c, "walls.sde", text, 2000, 0.1, 5);
  c.observe = "range";
  c.single = single;
  c.no_compensation = !compensate;
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  st_env(&c.env);
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_NONFINITE && strstr(eb.msg, "smaller --dt"),
           "d2. a step wider than the walls' gap (single %d, compensation %d): got %s: %s", single,
           compensate, sdk_err_name(e), eb.msg);
  sdk_run_destroy(&r);
  c.dt = 0.001;
  c.t_end = 0.5;
  r = st_run(&c);
  TU_CHECK(r != NULL, "d2. two walls, dt 0.001");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *lo = st_f64(R, "range/min_x"), *hi = st_f64(R, "range/max_x");
    const sdk_dataset *d = sdk_store_find(&R->store, "range/max_x");
    int64_t ns = d ? d->dims[d->rank - 1] : 1;
    TU_CHECK(lo && hi && lo[ns - 1] >= -1 && hi[ns - 1] <= 1 && hi[ns - 1] > 0.9,
             "d2. between the walls: [%g, %g]", lo ? lo[ns - 1] : 0, hi ? hi[ns - 1] : 0);
  }
  sdk_run_destroy(&r);
}

/* e: a run too short to absorb every path */
static void censoring(void) {
  sdk_run_config c;
  base(&c, BM, 2000, 0.001, 0.1);
  c.sample_every = 10;
  c.obs.bins = 10; /* (the bins' edges are the sample times) */
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "censoring run");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *S = st_f64(R, "fpt/survival"), *m = st_f64(R, "fpt/exit_mean");
    const int64_t *cen = ds_i64(R, "fpt/censored"), *lb = ds_i64(R, "fpt/lower_bound");
    const sdk_dataset *t = sdk_store_find(&R->store, "fpt/t");
    if (S && m && cen && lb && t) {
      int64_t ns = t->dims[t->rank - 1], up = 0;
      for (int64_t s = 1; s < ns; s++)
        up += S[s] > S[s - 1];
      printf("e. censoring: %lld of 2000 censored, lower_bound %lld, S(0) = %g, S(%g) = %g, "
             "exit_mean %.6f < 0.125\n",
             (long long)cen[0], (long long)lb[0], S[0], sdk_ds_f64(t)[ns - 1], S[ns - 1], m[0]);
      TU_CHECK(cen[0] > 0 && lb[0] == 1, "censored %lld, lower_bound %lld", (long long)cen[0],
               (long long)lb[0]);
      TU_CHECK(ns == 11 && S[0] == 1 && up == 0 && S[ns - 1] == (double)cen[0] / 2000,
               "S(t): %lld samples, S(0) = %g, %lld increases, S(t_end) = %g", (long long)ns, S[0],
               (long long)up, S[ns - 1]);
      TU_CHECK(m[0] < 0.1 + 1e-12, "exit_mean %g is a lower bound (<= t_end)", m[0]);
      /* the histogram's bin (t_k, t_k+1] holds the paths S(t) lost between
       * those samples, exactly (a hit is the end of its step: [lo, hi) bins
       * put each one a step late) */
      const uint64_t *h = (const uint64_t *)sdk_store_find(&R->store, "fpt/hist")->data;
      int64_t off = 0;
      for (int64_t k = 0; ns == 11 && k < 10; k++) {
        int64_t lost = llround((S[k] - S[k + 1]) * 2000), got = (int64_t)(h[k] + h[10 + k]);
        off += got != lost;
        if (got != lost)
          printf("e. bin %lld: %lld hits, S(t) lost %lld\n", (long long)k, (long long)got,
                 (long long)lost);
      }
      TU_CHECK(off == 0, "fpt/hist against the survival: %lld of 10 bins differ", (long long)off);
    }
  }
  sdk_run_destroy(&r);
}

/* the same results, bitwise, whatever the cut of the paths into shards
 * (observe/paths.h): the host reduction follows the global path order */
static void shards(void) {
  static const char *const names[] = {"fpt/split",    "fpt/mean", "fpt/mean_err", "fpt/exit_mean",
                                      "fpt/survival", "fpt/hist", "fpt/censored"};
  sdk_run *r[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    sdk_run_config c;
    base(&c, BM, 1500, 0.001, 0.15);
    c.sample_every = 10;
    c.shards = k ? 4 : 1;
    r[k] = st_run(&c);
    TU_CHECK(r[k] != NULL, "shards run %d", k);
  }
  int same = r[0] && r[1];
  for (size_t i = 0; same && i < sizeof names / sizeof *names; i++) {
    const sdk_dataset *a = sdk_store_find(&sdk_run_results(r[0])->store, names[i]);
    const sdk_dataset *b = sdk_store_find(&sdk_run_results(r[1])->store, names[i]);
    same = a && b && sdk_ds_count(a) == sdk_ds_count(b) &&
           !memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8);
    TU_CHECK(same, "%s: 1 shard and 4 shards differ", names[i]);
  }
  printf("f. 1 shard and 4 shards: fpt bitwise identical\n");
  sdk_run_destroy(&r[0]);
  sdk_run_destroy(&r[1]);
}

static const char BM2[] = "[model]\nname = bm2\nvars = x\n[params]\nD = 1\nL = 1\n"
                          "[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n"
                          "[boundaries]\nleft = absorb x <= -L\nright = absorb x >= L\n";

/* every fpt/ dataset of a byte for byte in b */
static int same_fpt(const sdk_run *a, const sdk_run *b) {
  const sdk_results *A = sdk_run_results(a), *B = sdk_run_results(b);
  int n = 0;
  for (int i = 0; i < A->store.n; i++) {
    const sdk_dataset *x = A->store.ds[i], *y = sdk_store_find(&B->store, x->path);
    if (strncmp(x->path, "fpt/", 4)) continue;
    if (!y || sdk_ds_count(x) != sdk_ds_count(y) ||
        memcmp(x->data, y->data, (size_t)sdk_ds_count(x) * 8)) {
      printf("  %s differs\n", x->path);
      return 0;
    }
    n++;
  }
  return n;
}

/* the largest standard error of the fpt values (NaN: not all finite) */
static double worst_se(const sdk_run *r) {
  const sdk_results *R = sdk_run_results(r);
  double worst = 0;
  for (int i = 0; i < R->store.n; i++) {
    const sdk_dataset *v = R->store.ds[i];
    const sdk_attr *a = sdk_attr_find(v->attr, v->nattr, "standard_error");
    if (strncmp(v->path, "fpt/", 4) || !a || a->kind != SDK_ATTR_STR) continue;
    const double *e = sdk_results_f64(R, sdk_store_findf(&R->store, "fpt/%s", a->s)->path);
    for (int64_t k = 0; e && k < sdk_ds_count(v); k++)
      worst = isnan(e[k]) ? NAN : e[k] > worst ? e[k] : worst;
  }
  return worst;
}

/* g: --target-se over windows, against the plain run of paths_used paths */
static void target(void) {
  const double eps = 0.0025;
  for (int dtc = 0; dtc < 2; dtc++) {
    sdk_run_config c;
    base(&c, BM2, 1, 0.01, 6); /* (--paths: the batches' business) */
    c.single = 0;
    c.dt_check = dtc;
    c.target_se = eps;
    c.target_on = "fpt";
    sdk_run *t = st_run(&c);
    const sdk_dataset *u = t ? sdk_store_find(&sdk_run_results(t)->store, "paths_used") : NULL;
    TU_CHECK(u && sdk_ds_i64(u)[0] > 2 * SDK_PATH_WINDOW_UNIT, "g. more than two batches");
    if (!u) {
      sdk_run_destroy(&t);
      continue;
    }
    base(&c, BM2, sdk_ds_i64(u)[0], 0.01, 6);
    c.single = 0;
    c.dt_check = dtc;
    sdk_run *p = st_run(&c);
    int n = p ? same_fpt(t, p) : 0;
    double w = worst_se(t);
    const double *m = st_f64(sdk_run_results(t), "fpt/exit_mean");
    const double *e = st_f64(sdk_run_results(t), "fpt/exit_err");
    printf("g. --target-se %g%s: %lld paths, exit_mean %.6f +- %.6f (exact 0.5), largest SE %.6f, "
           "%d fpt datasets byte for byte the plain run's\n",
           eps, dtc ? " --dt-check" : "", (long long)sdk_ds_i64(u)[0], m ? m[0] : NAN,
           e ? e[0] : NAN, w, n);
    TU_CHECK(n >= (dtc ? 22 : 14), "g. windows%s: the plain run's bytes (%d datasets)",
             dtc ? " with --dt-check" : "", n);
    TU_CHECK(w <= eps, "g. every SE <= %g: %g", eps, w);
    sdk_run_destroy(&t);
    sdk_run_destroy(&p);
  }
}

static double value_of(const sdk_run *r, const char *path) {
  const double *v = r ? sdk_results_f64(sdk_run_results(r), path) : NULL;
  TU_CHECK(v != NULL, "no dataset %s", path);
  return v ? v[0] : NAN;
}

/* h: the bias of the mean exit time, with and without the bridge */
static void dt_check(void) {
  const double exact = 0.5, dt = 0.04;
  for (int bridge = 1; bridge >= 0; bridge--) {
    sdk_run *r[3] = {NULL, NULL, NULL}; /* --dt-check, --extrapolate, neither */
    for (int k = 0; k < 3; k++) {
      sdk_run_config c;
      base(&c, BM2, 1 << 19, dt, 6);
      c.single = 0;
      c.sample_every = 10; /* (even: the default would become so under --dt-check) */
      c.scheme = "euler";
      c.no_bridge_correction = !bridge;
      c.dt_check = k < 2;
      c.extrapolate = k == 1;
      r[k] = st_run(&c);
      TU_CHECK(r[k] != NULL, "h. run %d", k);
    }
    double v = value_of(r[0], "fpt/exit_mean"), e = value_of(r[0], "fpt/exit_err");
    double b = value_of(r[0], "fpt/bias_exit_mean"), be = value_of(r[0], "fpt/bias_err_exit_mean");
    double x = value_of(r[1], "fpt/exit_mean"), xe = value_of(r[1], "fpt/exit_err");
    double z = (v - exact - b) / sqrt(e * e + be * be);
    printf("h. euler dt %g %s: exit_mean %.6f +- %.6f, value - exact %+.6f, bias %+.6f +- %.6f "
           "(%+.2f se), extrapolated %.6f +- %.6f\n",
           dt, bridge ? "bridge (order 1)" : "no bridge (order 1/2)", v, e, v - exact, b, be, z, x,
           xe);
    if (bridge) {
      TU_CHECK(b > 5 * be, "h. the bias %g is resolved (its SE %g)", b, be);
      TU_CHECK(fabs(z) <= 3, "h. bias %g vs value - exact %g: %.2f se", b, v - exact, z);
    }
    TU_CHECK(fabs(x - exact) < fabs(v - exact), "h. extrapolated %g closer to %g than %g", x, exact,
             v);
    TU_CHECK(r[2] && same_fpt(r[2], r[0]) == 16, "h. the fine path's values without --dt-check");
    for (int k = 0; k < 3; k++)
      sdk_run_destroy(&r[k]);
  }
}

int main(void) {
  st_require_backend();
  exit_time();
  scanned_level();
  splitting();
  double_well("srk2");
  double_well("euler");
  reflection("srk2");
  two_walls(0, 0);
  two_walls(1, 1);
  two_walls(1, 0);
  censoring();
  shards();
  target();
  dt_check();
  return tu_finish("test_fpt");
}
