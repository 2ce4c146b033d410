/* Runs to a requested standard error (--target-se, sim/target.c):
 *   coverage  over 200 seeds of OU E x(1)^2 under euler (dt = 0.05, SE 0.00305), the
 *             exact value of the Euler recursion lies within 2 reported SE in
 *             90-98% of the runs (the stopping rule does not bias it beyond
 *             its SE);
 *   bitwise   one grid point: the values are byte for byte those of a plain
 *             run of paths_used paths; a scan is the same bits for 1 and 2
 *             threads, 1 and 3 shards, and stopped after some batches and
 *             resumed from its checkpoint;
 *   per grid point  a scan whose grid points need different counts: each has
 *             its own paths_used, every SE <= EPS; --max-paths reached is
 *             status 1 with paths_used == max;
 *   refusals  both tolerances, --target-on naming an observable not observed
 *             or without an error, observables that take no windows, systems.
 * Runs on $SDK_TEST_BACKEND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "simtest.h"
#include "testutil.h"

static void base(sdk_run_config *c) {
  sdk_run_config_defaults(c);
  c->model = "ou";
  c->backend = st_backend();
  c->scheme = "euler";
  c->single = 0;
  c->dt = 0.05;
  c->t_end = 1;
  c->sample_every = 20;
  c->observe = "moments,expr";
  c->nobs_expr = 1;
  c->obs_expr[0] = "x2=x*x";
  c->target_on = "expr";
  c->target_se = 0.00305;
  c->threads = 1;
  st_env(&c->env);
}

static const double *ds(const sdk_run *r, const char *path) {
  const sdk_dataset *d = r ? sdk_store_find(&sdk_run_results(r)->store, path) : NULL;
  return d ? sdk_ds_f64(d) : NULL;
}
static const int64_t *ids(const sdk_run *r, const char *path) {
  const sdk_dataset *d = r ? sdk_store_find(&sdk_run_results(r)->store, path) : NULL;
  return d ? sdk_ds_i64(d) : NULL;
}

/* E x_n^2 of the Euler recursion x' = (1 - k dt) x + sqrt(2 D dt) xi, x0 = 1 */
static double euler_x2(double k, double D, double dt, int n) {
  double m = 1;
  for (int i = 0; i < n; i++)
    m = (1 - k * dt) * (1 - k * dt) * m + 2 * D * dt;
  return m;
}

static void coverage(void) {
  /* the stopping rule is the driver's, the same code on every backend: its
   * 200 runs are the CPU suite's (on a GPU each run is mostly start-up) */
  if (strcmp(st_backend(), "cpu")) {
    printf("coverage: measured by the CPU suite (the driver is the same on %s)\n", st_backend());
    return;
  }
  double exact = euler_x2(1, 0.5, 0.05, 20);
  int in = 0, n = 200;
  double paths = 0;
  for (int s = 0; s < n; s++) {
    sdk_run_config c;
    base(&c);
    c.seed = 1000 + (uint64_t)s;
    sdk_run *r = st_run(&c);
    const double *m = ds(r, "expr/mean_x2"), *e = ds(r, "expr/err_x2");
    const int64_t *u = ids(r, "paths_used");
    if (!m || !e || !u) {
      TU_CHECK(0, "coverage run %d", s);
      sdk_run_destroy(&r);
      return;
    }
    in += fabs(m[1] - exact) <= 2 * e[1];
    paths += (double)u[0];
    if (e[1] > c.target_se) TU_CHECK(0, "seed %d: SE %g > %g", s, e[1], c.target_se);
    sdk_run_destroy(&r);
  }
  double f = (double)in / n;
  printf("coverage: the Euler recursion's E x(1)^2 = %.6f within 2 SE in %d of %d runs (%.3f; "
         "mean paths %.0f)\n",
         exact, in, n, f, paths / n);
  TU_CHECK(f >= 0.90 && f <= 0.98, "coverage %.3f in [0.90, 0.98]", f);
}

static int same_store(const sdk_run *a, const sdk_run *b, const char *skip) {
  const sdk_results *A = sdk_run_results(a), *B = sdk_run_results(b);
  int n = 0;
  for (int i = 0; i < A->store.n; i++) {
    const sdk_dataset *x = A->store.ds[i], *y = sdk_store_find(&B->store, x->path);
    if (skip && !strcmp(x->path, skip)) continue;
    if (!y || x->rank != y->rank || memcmp(x->dims, y->dims, sizeof x->dims) ||
        memcmp(x->data, y->data, (size_t)sdk_ds_count(x) * 8)) {
      printf("  %s differs\n", x->path);
      return 0;
    }
    n++;
  }
  return n > 0;
}

/* one grid point: the plain run of paths_used paths, the same bytes */
static void against_plain(void) {
  sdk_run_config c;
  base(&c);
  c.seed = 3;
  sdk_run *t = st_run(&c);
  const int64_t *u = ids(t, "paths_used");
  TU_CHECK(u && u[0] > 2 * SDK_PATH_WINDOW_UNIT, "a run of %lld paths (more than two batches)",
           u ? (long long)u[0] : -1);
  if (!u) return;
  sdk_run_config p;
  base(&p);
  p.seed = 3;
  p.target_se = 0, p.target_on = NULL;
  p.paths = u[0];
  sdk_run *q = st_run(&p);
  const char *names[] = {"expr/mean_x2", "expr/err_x2", "moments/mean_x", "moments/var_x",
                         "moments/mean_err_x"};
  for (int i = 0; i < 5; i++) {
    const sdk_dataset *a = sdk_store_find(&sdk_run_results(t)->store, names[i]);
    const sdk_dataset *b = q ? sdk_store_find(&sdk_run_results(q)->store, names[i]) : NULL;
    TU_CHECK(a && b && !memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8),
             "%s: byte for byte the plain run's of --paths %lld", names[i], (long long)u[0]);
  }
  sdk_run_destroy(&t);
  sdk_run_destroy(&q);
}

/* a scan of k: E x^2 and its variance differ, so do the paths needed */
static void scan(sdk_run_config *c) {
  base(c);
  c->seed = 9;
  c->nscan = 1;
  snprintf(c->scan[0].name, sizeof c->scan[0].name, "k");
  c->scan[0].start = 0.2, c->scan[0].stop = 1, c->scan[0].n = 3;
}

/* a stop request at the first report of progress: the whole run's, which
 * begins once the first check has estimated it (after MIN_BATCHES batches) */
static int g_stop;
static int stop_asked(void *u) {
  (void)u;
  return g_stop;
}
static void progress(void *u, double frac, double rate) {
  (void)u, (void)rate, (void)frac;
  g_stop = 1;
}

/* The whole run's estimate where most grid points are done at the first
 * check and one needs 8 times its paths: done points count their paths,
 * not less (a review: their negative shortfalls cancelled the one's, and
 * the bar stood at 91% with 44% of the work to run) */
static double g_first;
static void first_report(void *u, double frac, double rate) {
  (void)u, (void)rate;
  if (g_first < 0) g_first = frac;
}
static void progress_estimate(void) {
  sdk_run_config c;
  base(&c);
  c.model = st_model_file("[model]\nname = ou2\nvars = x\n[params]\nk = 1\ns = 1\n[drift]\n"
                          "x = -k*x\n[noise]\nx = s\n[init]\nx = 0\n",
                          3);
  c.observe = "moments";
  c.target_on = NULL;
  c.target_se = 0.0012;
  c.sample_every = 0;
  c.seed = 5;
  c.nscan = 1;
  snprintf(c.scan[0].name, sizeof c.scan[0].name, "s");
  static double sv[10] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1}; /* (copied) */
  c.scan[0].values = sv, c.scan[0].n = 10;
  c.progress = first_report;
  g_first = -1;
  sdk_run *r = st_run(&c);
  const int64_t *u = ids(r, "paths_used");
  double total = 0;
  for (int g = 0; u && g < 10; g++)
    total += (double)u[g];
  printf("--target-se, 9 easy grid points and 1 hard: the first report %.3f, %.0f paths in all\n",
         g_first, total);
  TU_CHECK(u && g_first >= 0 && g_first < 0.75,
           "the first report of the whole run (%.3f) is not near its end", g_first);
  sdk_run_destroy(&r);
  unlink(c.model);
}

static void per_grid_point(void) {
  sdk_run_config c;
  scan(&c);
  sdk_run *r = st_run(&c);
  const int64_t *u = ids(r, "paths_used"), *st = ids(r, "target/status");
  const double *e = ds(r, "expr/err_x2");
  TU_CHECK(u && st && e, "scan ran");
  if (!u || !st || !e) return;
  printf("scan of k = 0.2, 0.6, 1: paths_used %lld %lld %lld\n", (long long)u[0], (long long)u[1],
         (long long)u[2]);
  TU_CHECK(u[0] != u[1] && u[1] != u[2], "paths_used differs across the grid points");
  for (int g = 0; g < 3; g++)
    TU_CHECK(st[g] == 0 && e[2 * g + 1] <= c.target_se && e[2 * g] <= c.target_se,
             "grid point %d: reached, SE %g <= %g", g, e[2 * g + 1], c.target_se);

  /* the same bits for threads, shards, a stop and resume */
  sdk_run_config c2;
  scan(&c2);
  c2.threads = 2;
  sdk_run *r2 = st_run(&c2);
  TU_CHECK(r2 && same_store(r, r2, NULL), "--threads 1 and 2: the same bits");
  sdk_run_destroy(&r2);
  scan(&c2);
  c2.shards = 3;
  r2 = st_run(&c2);
  TU_CHECK(r2 && same_store(r, r2, NULL), "1 and 3 shards: the same bits");
  sdk_run_destroy(&r2);

  char ck[4200];
  snprintf(ck, sizeof ck, "%s/sdk-target-ck-XXXXXX", tu_scratch());
  int fd = mkstemp(ck);
  if (fd >= 0) close(fd);
  scan(&c2);
  c2.checkpoint = ck, c2.checkpoint_every = 0;
  c2.cancel = stop_asked;
  c2.progress = progress;
  g_stop = 0;
  sdk_errbuf eb = {0};
  sdk_err err = sdk_run_execute(&c2, &r2, &eb);
  TU_CHECK(err == SDK_ERR_INTERRUPTED, "stopped (%s)", eb.msg);
  sdk_ckpt *k = NULL;
  err = sdk_ckpt_read(ck, &k, &eb);
  TU_CHECK(err == SDK_OK && k->target, "checkpoint with the batches' state (%s)", eb.msg);
  if (err == SDK_OK) {
    int64_t batch;
    memcpy(&batch, (const char *)k->target + 8, 8); /* (the state's head) */
    printf("stopped in batch %lld at step %lld\n", (long long)batch, (long long)k->step);
    TU_CHECK(batch >= 2, "stopped after some batches (in batch %lld)", (long long)batch);
    scan(&c2);
    c2.checkpoint = ck, c2.checkpoint_every = 0;
    c2.resume = k;
    r2 = st_run(&c2);
    TU_CHECK(r2 && same_store(r, r2, NULL), "stopped and resumed: the same bits");
    sdk_run_destroy(&r2);
  }
  sdk_ckpt_destroy(&k);
  unlink(ck);
  sdk_run_destroy(&r);

  /* --max-seconds: a bound in time, recorded as such */
  scan(&c);
  c.target_se = 1e-4;
  c.max_seconds = 1e-9;
  r = st_run(&c);
  st = ids(r, "target/status"), u = ids(r, "paths_used");
  const sdk_group_attrs *ga = r ? sdk_store_group(&sdk_run_results(r)->store, "target") : NULL;
  const sdk_attr *td = ga ? sdk_attr_find(ga->attr, ga->nattr, "timing_dependent") : NULL;
  TU_CHECK(st && st[0] == 2 && st[2] == 2 && u[0] == SDK_PATH_WINDOW_UNIT && td && td->i == 1,
           "--max-seconds: status 2 after the first batch, recorded as timing-dependent");
  sdk_run_destroy(&r);

  /* --max-paths: reached, recorded, paths_used == max */
  scan(&c);
  c.target_se = 1e-4;
  c.max_paths = 2 * SDK_PATH_WINDOW_UNIT;
  r = st_run(&c);
  u = ids(r, "paths_used"), st = ids(r, "target/status");
  TU_CHECK(u && st, "--max-paths run");
  for (int g = 0; u && st && g < 3; g++)
    TU_CHECK(st[g] == 1 && u[g] == c.max_paths, "grid point %d: status %lld, paths_used %lld", g,
             (long long)st[g], (long long)u[g]);
  sdk_run_destroy(&r);
}

static void refused(sdk_run_config *c, const char *want) {
  sdk_run *r = NULL;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_run_execute(c, &r, &eb);
  TU_CHECK(e != SDK_OK && strstr(eb.msg, want), "refused with '%s': %s", want, eb.msg);
  sdk_run_destroy(&r);
}

static void refusals(void) {
  sdk_run_config c;
  base(&c);
  c.target_rse = 0.01;
  refused(&c, "give one of them");
  base(&c);
  c.target_on = "drift";
  refused(&c, "--target-on drift: the run does not observe it");
  base(&c);
  c.observe = "moments,expr,range";
  c.target_on = "range";
  refused(&c, "--target-on range: --observe range reports no standard error");
  base(&c);
  c.observe = "moments,cov";
  c.target_on = NULL;
  refused(&c, "--observe cov cannot be run in batches");
  base(&c);
  c.target_on = NULL;
  c.observe = "range";
  c.nobs_expr = 0;
  refused(&c, "none of the run's observables reports a standard error");
  base(&c);
  c.model = "kuramoto-meanfield";
  c.particles = 8;
  c.observe = "moments";
  c.nobs_expr = 0, c.target_on = NULL;
  refused(&c, "systems of particles");
  base(&c);
  c.target_se = 0;
  c.max_paths = 100000;
  refused(&c, "--max-paths bounds a run to a requested error: give --target-se, --target-rse, "
              "--target-error or --mlmc");
  base(&c);
  c.max_paths = 1000;
  refused(&c, "--max-paths 1000: at least 16384");
}

int main(void) {
  st_require_backend();
  refusals();
  against_plain();
  per_grid_point();
  sdk_run_config c;
  scan(&c);
  st_progress_whole(&c, "--target-se over 3 grid points");
  progress_estimate();
  coverage();
  return tu_finish("test_target");
}
