/* --sample-times (issue 28), on the backend of $SDK_TEST_BACKEND:
 *   a) Brownian motion dx = sqrt(2 D) dW, x(0) = 0, has E[x^2] = 2 D t at
 *      every time; at log-spaced sample times (with dt chosen to fit them,
 *      and rounded to the steps of a --dt with :round) the mean of x^2 is
 *      2 D t within K_SIGMA of its standard error, and the times recorded
 *      are those given (rounded: the steps');
 *   b) the times of a --sample-every run listed as --sample-times give
 *      bitwise the same datasets (every observable that samples, and the
 *      saved paths);
 *   c) --dt-check with dt chosen: every sample on an even step;
 *   d) batches of paths (--target-se) sample at the times given. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 4.0
static const double D = 0.5;

static void base(sdk_run_config *c, const char *model) {
  sdk_run_config_defaults(c);
  c->model = model;
  c->backend = st_backend();
  c->single = 0;
  c->seed = 28;
  c->quiet = 1;
}

/* E[x^2] = 2 D t at every sample of observable expr (x2 = x*x) */
static void check_msd(const char *model, const char *times, double dt, const char *label) {
  sdk_run_config c;
  base(&c, model);
  c.paths = 1 << 15;
  c.dt = dt;
  c.observe = "expr";
  const char *e[] = {"x2=x*x"};
  c.nobs_expr = 1;
  c.obs_expr[0] = e[0];
  c.sample_times = times;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "%s: run", label);
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const double *mean, *err;
  int64_t ns = 0;
  st_expr_series(R, "x2", &mean, &err, &ns);
  const sdk_dataset *t = sdk_store_find(&R->store, "expr/t");
  const sdk_dataset *st = sdk_store_find(&R->store, "expr/step");
  TU_CHECK(t && st && ns == R->nsample_times && ns >= 5, "%s: %lld samples", label, (long long)ns);
  if (!t || !st || ns != R->nsample_times) {
    sdk_run_destroy(&run);
    return;
  }
  printf("%s: dt %.17g, %lld steps\n", label, R->dt[0], (long long)R->nsteps);
  TU_CHECK(R->nsteps == sdk_ds_i64(st)[ns - 1], "%s: the run ends at the last time", label);
  for (int64_t s = 0; s < ns; s++) {
    double ts = sdk_ds_f64(t)[s];
    int64_t step = sdk_ds_i64(st)[s];
    TU_CHECK(ts == R->sample_times[s], "%s: t[%lld] recorded as given", label, (long long)s);
    TU_CHECK(fabs((double)step * R->dt[0] - ts) <= 1e-9 * ts, "%s: t[%lld] = %.17g on step %lld",
             label, (long long)s, ts, (long long)step);
    char what[160];
    snprintf(what, sizeof what, "%s: <x^2>(t = %g) = 2 D t", label, ts);
    TU_NEAR(mean[s], 2 * D * ts, K_SIGMA * err[s], what);
    printf("  t = %-10.6g <x^2> = %-12.6g 2Dt = %-10.6g (%+.2f se)\n", ts, mean[s], 2 * D * ts,
           (mean[s] - 2 * D * ts) / err[s]);
  }
  sdk_run_destroy(&run);
}

/* every dataset of a and b bitwise equal (all are 8-byte elements) */
static void same_store(const sdk_results *a, const sdk_results *b, const char *label) {
  TU_CHECK(a->store.n == b->store.n, "%s: %d and %d datasets", label, a->store.n, b->store.n);
  for (int i = 0; i < a->store.n; i++) {
    const sdk_dataset *x = a->store.ds[i], *y = sdk_store_find(&b->store, x->path);
    int same = y && x->type == y->type && x->rank == y->rank &&
               !memcmp(x->dims, y->dims, (size_t)x->rank * sizeof x->dims[0]) &&
               !memcmp(x->data, y->data, (size_t)sdk_ds_count(x) * 8);
    TU_CHECK(same, "%s: dataset %s differs", label, x->path);
  }
}

static void check_bitwise(const char *model) {
  sdk_run_config c;
  base(&c, model);
  c.paths = 3000;
  c.dt = 0.01;
  c.t_end = 1;
  c.observe = "moments,expr,range,cov,density";
  c.nobs_expr = 1;
  c.obs_expr[0] = "x2=x*x";
  c.obs.nsave = 2;
  c.obs.save_index[0] = 0, c.obs.save_index[1] = 5;
  c.sample_every = 10;
  sdk_run *a = st_run(&c);
  TU_CHECK(a != NULL, "bitwise: the --sample-every run");
  if (!a) return;
  const sdk_results *R = sdk_run_results(a);
  const sdk_dataset *t = sdk_store_find(&R->store, "moments/t");
  char list[2000] = "";
  for (int64_t s = 0; t && s < t->dims[0]; s++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%.17g", s ? "," : "",
             sdk_ds_f64(t)[s]);
  c.sample_every = 0;
  c.sample_times = list;
  sdk_run *b = st_run(&c);
  TU_CHECK(b != NULL, "bitwise: the --sample-times run");
  if (b) same_store(R, sdk_run_results(b), "sample-every 10 = sample-times");
  printf("bitwise: --sample-times %s == --sample-every 10\n", list);
  sdk_run_destroy(&a);
  sdk_run_destroy(&b);
}

/* moments at the times given, with --dt-check or to a standard error */
static sdk_run *run_moments(const char *model, int64_t paths, const char *times, int dt_check,
                            double target_se, const char *label) {
  sdk_run_config c;
  base(&c, model);
  c.paths = paths;
  c.observe = "moments";
  c.dt_check = dt_check;
  c.target_se = target_se;
  c.sample_times = times;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "%s with the times", label);
  return r;
}

static void check_dt_check(const char *model) {
  sdk_run *r = run_moments(model, 1024, "0.1,0.25,1", 1, 0, "--dt-check");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const sdk_dataset *st = sdk_store_find(&R->store, "moments/step");
  for (int64_t s = 0; st && s < st->dims[0]; s++)
    TU_CHECK(sdk_ds_i64(st)[s] % 2 == 0, "--dt-check: sample %lld on step %lld (odd)", (long long)s,
             (long long)sdk_ds_i64(st)[s]);
  printf("--dt-check: dt %.17g, %lld steps\n", R->dt[0], (long long)R->nsteps);
  TU_CHECK(st && st->dims[0] == 3 && R->nsteps % 2 == 0, "--dt-check: 3 samples, even steps");
  sdk_run_destroy(&r);
}

static void check_batches(const char *model) {
  sdk_run *r = run_moments(model, 4096, "lin:0:2:5", 0, 0.02, "--target-se");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const sdk_dataset *t = sdk_store_find(&R->store, "moments/t");
  const double want[] = {0, 0.5, 1, 1.5, 2};
  TU_CHECK(t && t->dims[0] == 5, "--target-se: 5 samples");
  for (int64_t s = 0; t && s < 5 && s < t->dims[0]; s++)
    TU_CHECK(sdk_ds_f64(t)[s] == want[s], "--target-se: t[%lld] = %g", (long long)s,
             sdk_ds_f64(t)[s]);
  sdk_run_destroy(&r);
}

int main(void) {
  st_require_backend();
  const char *bm = st_model_file("[model]\nname = bm\nvars = x\n[params]\nD = 0.5\n"
                                 "[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n",
                                 0);
  const char *ou = st_model_file("[model]\nname = ou\nvars = x\n[params]\nk = 1\nD = 0.5\n"
                                 "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1\n",
                                 1);
  TU_CHECK(bm && ou, "model files");
  if (!bm || !ou) return tu_finish("test_sample_times");
  /* decades: commensurate, dt chosen (0.01, the default, fits) */
  check_msd(bm, "log:0.01:100:5", 0, "log decades, dt chosen");
  /* 13 per decade: incommensurate, rounded to the steps of --dt */
  check_msd(bm, "log:0.01:10:40:round", 0.001, "log rounded to dt 0.001");
  check_bitwise(ou);
  check_dt_check(ou);
  check_batches(ou);
  unlink(bm);
  unlink(ou);
  return tu_finish("test_sample_times");
}
