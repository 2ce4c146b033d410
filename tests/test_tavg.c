/* Time averages (--observe tavg, observe/obs_tavg.c; codegen.h: the
 * accumulator rows) and histograms of user observables, on $SDK_TEST_BACKEND:
 *  - a constant 1 averages to exactly 1 with standard error exactly 0, and
 *    0.1 in single precision to (double)0.1f within 1e-9 relative over 2e5
 *    steps (a plain float sum is off by ~1e-3 there: the pair is compensated);
 *  - OU: the time average of x^2 is the exact stationary variance D/k within
 *    5 standard errors, that of x is 0 within 5;
 *  - Josephson junction: the time average of v is the drift <<v>> of x of
 *    the same run within 5 (combined) standard errors;
 *  - bitwise the same cut into 3 shards, and stopped half way (before and
 *    after the transient) and resumed from the checkpoint;
 *  - the histogram of the user observable sq = x*x at t_end is bitwise the
 *    one computed here from the saved x of every path of the same run
 *    (x*x rounded to float as the kernel does), also with --hist-range sq;
 *  - the density over time of sq cut into 3 shards is bitwise that of 1;
 *  - in a two-parameter scan of OU (k and D: scanned parameters per grid
 *    point), <<x^2>> = D/k at every grid point within 5 standard errors;
 *    in a scan of the Josephson junction's omega (dt per grid point, spp
 *    fixed) <<v>> equals the drift at every grid point within 5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "simtest.h"
#include "testutil.h"

static void ou_config(sdk_run_config *c) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = "ou"; /* dx = -k x dt + sqrt(2 D) dW, k = 1, D = 0.5, x(0) = 1 */
  c->paths = 4096;
  c->dt = 0.01;
  c->t_end = 25;
  c->transient = 5;
  c->seed = 13;
  c->observe = "tavg";
  c->nobs_expr = 3;
  c->obs_expr[0] = "one=1+0*x";
  c->obs_expr[1] = "sq=x*x";
  c->obs_expr[2] = "tenth=0.1+0*x";
}

static double f64(const sdk_results *R, const char *path) {
  const double *v = sdk_results_f64(R, path);
  TU_CHECK(v != NULL, "dataset %s", path);
  return v ? v[0] : NAN;
}

static void check_exact(int single) {
  sdk_run_config c;
  ou_config(&c);
  c.single = single;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU run with tavg");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  double one = f64(R, "tavg/mean_one"), one_e = f64(R, "tavg/err_one");
  TU_CHECK(one == 1 && one_e == 0, "%s: <one> = %.17g, error %g (want exactly 1, 0)",
           single ? "single" : "double", one, one_e);
  double tenth = f64(R, "tavg/mean_tenth"), want = single ? (double)0.1f : 0.1;
  TU_CHECK(fabs(tenth - want) <= 1e-9 * want, "%s: <0.1> = %.17g (want %.17g)",
           single ? "single" : "double", tenth, want);
  double sq = f64(R, "tavg/mean_sq"), sq_e = f64(R, "tavg/err_sq");
  double x = f64(R, "tavg/mean_x"), x_e = f64(R, "tavg/err_x");
  /* stationary variance of OU: D / k = 0.5 (the transient e^{-2 k 5} is gone) */
  TU_CHECK(fabs(sq - 0.5) < 5 * sq_e && sq_e > 0 && sq_e < 0.01,
           "%s: <<x^2>> = %.6f +- %.6f, exact 0.5 (%.2f se)", single ? "single" : "double", sq,
           sq_e, (sq - 0.5) / sq_e);
  TU_CHECK(fabs(x) < 5 * x_e && x_e > 0, "<<x>> = %.6f +- %.6f, exact 0", x, x_e);
  printf("OU %s: <<1>> = %.17g +- %g, <<0.1>> = %.17g, <<x^2>> = %.6f +- %.6f (exact 0.5, "
         "%.2f se), <<x>> = %.6f +- %.6f\n",
         single ? "single" : "double", one, one_e, tenth, sq, sq_e, (sq - 0.5) / sq_e, x, x_e);
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "tavg");
  const sdk_attr *t0 = ga ? sdk_attr_find(ga->attr, ga->nattr, "transient") : NULL;
  const sdk_attr *t1 = ga ? sdk_attr_find(ga->attr, ga->nattr, "t_end") : NULL;
  TU_CHECK(t0 && t1 && t0->f == 5 && t1->f == 25, "attributes transient = 5, t_end = 25");
  sdk_run_destroy(&r);
}

/* <<v>> of a Josephson junction: the time average of v against the drift of x */
static void check_josephson(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = "josephson";
  c.paths = 512;
  c.spp = 100;
  c.periods = 200;
  c.transient_periods = 20;
  c.seed = 2010;
  c.observe = "drift,tavg";
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "josephson run");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  double d = f64(R, "drift/value"), de = f64(R, "drift/error");
  double v = f64(R, "tavg/mean_v"), ve = f64(R, "tavg/err_v");
  double se = sqrt(de * de + ve * ve);
  TU_CHECK(fabs(v - d) < 5 * se && ve > 0, "<<v>> = %.6f +- %.6f against the drift %.6f +- %.6f", v,
           ve, d, de);
  printf("josephson: time average of v %.6f +- %.6f, drift of x %.6f +- %.6f (%.2f se)\n", v, ve, d,
         de, (v - d) / se);
  sdk_run_destroy(&r);
}

static int same_store(const sdk_results *A, const sdk_results *B, const char *prefix) {
  int n = 0;
  for (int i = 0; i < A->store.n; i++) {
    const sdk_dataset *a = A->store.ds[i], *b = sdk_store_find(&B->store, a->path);
    if (strncmp(a->path, prefix, strlen(prefix))) continue;
    n++;
    if (!b || a->rank != b->rank || memcmp(a->dims, b->dims, sizeof a->dims) ||
        memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8))
      return 0;
  }
  return n > 0;
}

static volatile int g_stop;
static double g_at;
static int stop_asked(void *user) {
  (void)user;
  return g_stop;
}
static void stop_at(void *user, double frac, double sps) {
  (void)user, (void)sps;
  if (frac >= g_at) g_stop = 1;
}

/* stopped at fraction `at` with a checkpoint, then resumed: the same bits */
static void check_resume(const sdk_results *whole, double at) {
  sdk_run_config c;
  ou_config(&c);
  c.paths = 1024;
  char ck[4200];
  snprintf(ck, sizeof ck, "%s/sdk-tavg-ck-XXXXXX", tu_scratch());
  int fd = mkstemp(ck);
  if (fd >= 0) close(fd);
  c.checkpoint = ck;
  c.checkpoint_every = 0;
  c.sample_every = 100; /* progress (and so the stop) at every 100 steps */
  g_stop = 0;
  g_at = at;
  c.cancel = stop_asked;
  c.progress = stop_at;
  st_env(&c.env);
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_INTERRUPTED, "stopped at %.0f%% (%s)", 100 * at, eb.msg);
  sdk_run_destroy(&r);
  sdk_ckpt *k = NULL;
  e = sdk_ckpt_read(ck, &k, &eb);
  TU_CHECK(e == SDK_OK, "checkpoint read (%s)", eb.msg);
  if (e == SDK_OK) {
    sdk_run_config c2;
    ou_config(&c2);
    c2.paths = 1024;
    c2.sample_every = 100;
    c2.resume = k;
    sdk_run *r2 = st_run(&c2);
    TU_CHECK(r2 && same_store(whole, sdk_run_results(r2), "tavg/"),
             "resumed from step %lld (transient ends at 500, %lld carried rows): bitwise the "
             "uninterrupted time averages",
             (long long)k->step, (long long)k->ncomp);
    sdk_run_destroy(&r2);
  }
  sdk_ckpt_destroy(&k);
  unlink(ck);
}

static void check_shards_resume(void) {
  sdk_run_config c;
  ou_config(&c);
  c.paths = 1024;
  c.sample_every = 100;
  sdk_run *r1 = st_run(&c);
  c.shards = 3;
  sdk_run *r3 = st_run(&c);
  TU_CHECK(r1 && r3 && same_store(sdk_run_results(r1), sdk_run_results(r3), "tavg/"),
           "time averages: 3 shards give bitwise those of 1");
  if (r1) {
    check_resume(sdk_run_results(r1), 0.1);
    check_resume(sdk_run_results(r1), 0.6);
  }
  sdk_run_destroy(&r1);
  sdk_run_destroy(&r3);
}

/* hist of sq = x*x against the saved x of all paths */
static void check_hist(int fixed) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = "ou";
  c.paths = 1000;
  c.dt = 0.01;
  c.t_end = 1;
  c.seed = 7;
  c.observe = "hist";
  c.nobs_expr = 1;
  c.obs_expr[0] = "sq=x*x";
  c.obs.bins = 16;
  if (fixed) {
    c.obs.nhist_range = 1;
    snprintf(c.obs.hist_range_var[0], sizeof c.obs.hist_range_var[0], "sq");
    c.obs.hist_range_lo[0] = 0.1, c.obs.hist_range_hi[0] = 1.5;
  }
  c.sample_every = 50;
  c.obs.nsave = 1000;
  for (int i = 0; i < 1000; i++)
    c.obs.save_index[i] = i;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "hist run with sq = x*x");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *den = sdk_results_f64(R, "hist/sq/density"), *lo = sdk_results_f64(R, "hist/sq/lo"),
               *hi = sdk_results_f64(R, "hist/sq/hi"), *x = sdk_results_f64(R, "paths/x");
  const uint64_t *un = sdk_ds_u64(sdk_store_find(&R->store, "hist/sq/underflow"));
  const uint64_t *ov = sdk_ds_u64(sdk_store_find(&R->store, "hist/sq/overflow"));
  const sdk_dataset *ps = sdk_store_find(&R->store, "paths/step");
  TU_CHECK(den && lo && hi && x && un && ov && ps, "datasets hist/sq/..., paths/x");
  if (den && lo && hi && x && un && ov && ps) {
    int64_t ns = ps->dims[0], cnt[16] = {0}, below = 0, above = 0;
    double a = INFINITY, b = -INFINITY;
    for (int k = 0; k < 1000; k++) {
      float xf = (float)x[k * ns + ns - 1];
      double v = (double)(float)(xf * xf);
      a = fmin(a, v), b = fmax(b, v);
    }
    if (fixed) a = 0.1, b = 1.5;
    double w = (b - a) / 16;
    for (int k = 0; k < 1000; k++) {
      float xf = (float)x[k * ns + ns - 1];
      double v = (double)(float)(xf * xf);
      if (v < a)
        below++;
      else if (v > b)
        above++;
      else
        cnt[(int64_t)((v - a) / w) < 16 ? (int64_t)((v - a) / w) : 15]++;
    }
    int same = lo[0] == a && hi[0] == b && un[0] == (uint64_t)below && ov[0] == (uint64_t)above;
    for (int j = 0; j < 16; j++)
      same &= den[j] == (double)cnt[j] / (1000.0 * w);
    TU_CHECK(same && ps->dims[0] == 3 && ((const int64_t *)ps->data)[ns - 1] == 100,
             "hist of sq = x*x%s: bitwise the histogram of the saved x (range [%.9g, %.9g], "
             "%lld below, %lld above)",
             fixed ? " with --hist-range sq=0.1:1.5" : "", a, b, (long long)below,
             (long long)above);
    printf("hist of sq = x*x%s: [%.6f, %.6f], first bins %lld %lld %lld, %lld below, %lld above: "
           "equal to the saved paths' (bitwise)\n",
           fixed ? " (fixed range)" : "", a, b, (long long)cnt[0], (long long)cnt[1],
           (long long)cnt[2], (long long)below, (long long)above);
  }
  sdk_run_destroy(&r);
}

/* the density over time of a user observable: 3 shards give the bits of 1 */
static void check_density_shards(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = "ou";
  c.paths = 3000;
  c.dt = 0.01;
  c.t_end = 1;
  c.observe = "density";
  c.obs.density_var = "sq";
  c.nobs_expr = 1;
  c.obs_expr[0] = "sq=x*x";
  c.obs.bins = 20;
  c.sample_every = 20;
  sdk_run *r1 = st_run(&c);
  c.shards = 3;
  sdk_run *r3 = st_run(&c);
  const sdk_dataset *P = r1 ? sdk_store_find(&sdk_run_results(r1)->store, "density/sq/P") : NULL;
  TU_CHECK(P && P->dims[0] == 6 && P->dims[1] == 20, "density/sq/P [6, 20]");
  TU_CHECK(r1 && r3 && same_store(sdk_run_results(r1), sdk_run_results(r3), "density/"),
           "density of sq = x*x: 3 shards give bitwise that of 1");
  if (P)
    printf("density of sq: P(t = 1) first bins %.6f %.6f (1 and 3 shards bitwise equal)\n",
           sdk_ds_f64(P)[5 * 20], sdk_ds_f64(P)[5 * 20 + 1]);
  sdk_run_destroy(&r1);
  sdk_run_destroy(&r3);
}

static void check_scans(void) {
  sdk_run_config c;
  ou_config(&c);
  c.paths = 2048;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("k=0.5:2:3", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(sdk_scan_parse("D=0.2:0.6:2", &c.scan[1], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 2;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU scan of k and D");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *m = sdk_results_f64(R, "tavg/mean_sq"), *e = sdk_results_f64(R, "tavg/err_sq");
    double worst = 0;
    for (int64_t g = 0; m && e && g < R->ngrid; g++) {
      double k = R->scan[0].values[g / 2], D = R->scan[1].values[g % 2];
      worst = fmax(worst, fabs(m[g] - D / k) / e[g]);
    }
    TU_CHECK(m && e && R->ngrid == 6 && worst < 5,
             "OU scan: <<x^2>> = D/k at 6 grid points (worst %.2f se)", worst);
    printf("OU scan k x D: <<x^2>> = D/k within %.2f se at all 6 grid points\n", worst);
  }
  sdk_run_destroy(&r);
  for (int i = 0; i < 2; i++)
    sdk_scan_free(&c.scan[i]);

  sdk_run_config j;
  sdk_run_config_defaults(&j);
  j.backend = st_backend();
  j.model = "josephson";
  j.paths = 256;
  j.spp = 100;
  j.periods = 200;
  j.transient_periods = 20;
  j.observe = "drift,tavg";
  TU_CHECK(sdk_scan_parse("omega=3:5:3", &j.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  j.nscan = 1;
  r = st_run(&j);
  TU_CHECK(r != NULL, "josephson scan of omega");
  if (r) {
    const sdk_results *R = sdk_run_results(r);
    const double *d = sdk_results_f64(R, "drift/value"), *de = sdk_results_f64(R, "drift/error");
    const double *v = sdk_results_f64(R, "tavg/mean_v"), *ve = sdk_results_f64(R, "tavg/err_v");
    double worst = 0;
    for (int64_t g = 0; d && de && v && ve && g < R->ngrid; g++)
      worst = fmax(worst, fabs(v[g] - d[g]) / sqrt(de[g] * de[g] + ve[g] * ve[g]));
    TU_CHECK(d && v && R->ngrid == 3 && worst < 5,
             "josephson omega scan: <<v>> = drift at 3 grid points (worst %.2f se)", worst);
    printf("josephson omega scan: <<v>> = drift within %.2f se at all 3 grid points\n", worst);
  }
  sdk_run_destroy(&r);
  sdk_scan_free(&j.scan[0]);
}

/* Absorbing boundaries stop paths before t_end: refused; reflecting ones
 * keep every path alive: the time average of x of a Brownian motion
 * reflected at 0 from x = 0 is positive and finite. */
static void check_boundaries(void) {
  sdk_run_config c;
  ou_config(&c);
  c.paths = 512;
  c.t_end = 2;
  c.transient = 0;
  c.model = st_model_file("[model]\nname = walls\nvars = x\n[params]\nL = 1\n[drift]\nx = 0\n"
                          "[noise]\nx = 1\n[init]\nx = 0\n[boundaries]\nfloor = reflect x < 0\n"
                          "top = absorb x >= L\n",
                          3);
  st_env(&c.env);
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "absorbing boundary ('top')"),
           "tavg with an absorbing boundary refused: %s", eb.msg);
  sdk_run_destroy(&r);
  c.model = st_model_file("[model]\nname = wall\nvars = x\n[drift]\nx = 0\n[noise]\nx = 1\n"
                          "[init]\nx = 0\n[boundaries]\nfloor = reflect x < 0\n",
                          3);
  sdk_run *ok = st_run(&c);
  TU_CHECK(ok != NULL, "tavg with a reflecting boundary runs");
  if (ok) {
    double m = f64(sdk_run_results(ok), "tavg/mean_x"), se = f64(sdk_run_results(ok), "tavg/err_x");
    /* mirroring at the step ends gives x_m the law of |W(t_m)|, mean
     * sqrt(2 t_m / pi): the right-point average over the 200 steps */
    double want = 0;
    for (int k = 1; k <= 200; k++)
      want += sqrt(2 * k * 0.01 / M_PI) / 200;
    TU_CHECK(fabs(m - want) < 5 * se && se > 0, "reflected BM: <<x>> = %.5f +- %.5f, exact %.5f", m,
             se, want);
    printf("reflected BM: <<x>> = %.5f +- %.5f, exact %.5f (%+.2f se)\n", m, se, want,
           (m - want) / se);
  }
  sdk_run_destroy(&ok);
}

int main(void) {
  st_require_backend();
  check_boundaries();
  check_exact(1);
  check_exact(0);
  check_josephson();
  check_shards_resume();
  check_hist(0);
  check_hist(1);
  check_density_shards();
  check_scans();
  return tu_finish("test_tavg");
}
