/* Windows of the paths with a carry (sim/run.h sdk_path_window,
 * observe/paths.h sdk_carry): runs over windows of whole fold units, one
 * after another with one carry, give bitwise the results of one run over all
 * their paths (the same keys: path i of grid point g is g * key_ppg + i), for
 * every observable that takes windows, with grid points taking part in
 * different windows, and for any cut into shards; the observables that
 * cannot refuse windows by name.  Runs on $SDK_TEST_BACKEND. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe/paths.h"
#include "simtest.h"
#include "testutil.h"

#define U SDK_PATH_WINDOW_UNIT

static const char *MODEL = "[model]\nname = ouw\nvars = x\n[params]\nk = 1.0\nD = 0.5\n"
                           "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1.0\n"
                           "[observe]\nx2 = x*x\n";

static void base(sdk_run_config *c, const char *model) {
  sdk_run_config_defaults(c);
  c->model = model;
  c->backend = st_backend();
  c->seed = 5;
  c->scheme = "euler";
  c->t_end = 0.2;
  c->dt = 0.01;
  c->sample_every = 5;
  c->nscan = 1;
  snprintf(c->scan[0].name, sizeof c->scan[0].name, "k");
  c->scan[0].start = 0.5, c->scan[0].stop = 1.5, c->scan[0].n = 2;
  c->observe = "drift,moments,range,tavg,hist,density,expr";
  c->obs.nhist_range = 2;
  snprintf(c->obs.hist_range_var[0], sizeof c->obs.hist_range_var[0], "x");
  c->obs.hist_range_lo[0] = -3, c->obs.hist_range_hi[0] = 3;
  snprintf(c->obs.hist_range_var[1], sizeof c->obs.hist_range_var[1], "x2");
  c->obs.hist_range_lo[1] = 0, c->obs.hist_range_hi[1] = 9;
  c->obs.bins = 20;
}

/* every dataset of A (but paths_used) is in B with the same bytes */
static void same(const sdk_results *A, const sdk_results *B, const char *what) {
  int ok = 1, ndiff = 0, n = 0;
  for (int i = 0; i < A->store.n; i++) {
    const sdk_dataset *a = A->store.ds[i], *b = sdk_store_find(&B->store, a->path);
    int s = b && a->type == b->type && !memcmp(a->dims, b->dims, sizeof a->dims) &&
            !memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8);
    if (!s && ndiff++ < 3) printf("  %s: %s differs\n", what, a->path);
    ok &= s, n++;
  }
  TU_CHECK(ok && n > 20, "%s: %d datasets bitwise equal to the one run's (%d differ)", what, n,
           ndiff);
}

/* the windows: grid point 0 in two of 1 unit, grid point 1 in one of 2 units
 * then none; the result against one run of 2 units a grid point */
static void windows(const char *model, int shards, const sdk_results *one) {
  sdk_run_config c;
  base(&c, model);
  c.shards = shards;
  sdk_carry *carry = sdk_carry_create();
  int64_t f1[2] = {0, 0}, n1[2] = {U, 2 * U}, f2[2] = {U, 0}, n2[2] = {U, 0};
  sdk_path_window w1 = {2 * U, f1, n1, 0}, w2 = {2 * U, f2, n2, 0};
  c.carry = carry;
  c.window = &w1;
  sdk_run *a = st_run(&c);
  c.window = &w2;
  sdk_run *b = a ? st_run(&c) : NULL;
  char what[80];
  snprintf(what, sizeof what, "two windows, %d shards", shards);
  TU_CHECK(a && b, "%s ran", what);
  if (b) {
    same(one, sdk_run_results(b), what);
    const sdk_dataset *u = sdk_store_find(&sdk_run_results(b)->store, "paths_used");
    TU_CHECK(u && sdk_ds_i64(u)[0] == 2 * U && sdk_ds_i64(u)[1] == 2 * U,
             "%s: paths_used %lld %lld", what, u ? (long long)sdk_ds_i64(u)[0] : -1,
             u ? (long long)sdk_ds_i64(u)[1] : -1);
    const sdk_dataset *u1 = sdk_store_find(&sdk_run_results(a)->store, "paths_used");
    TU_CHECK(u1 && sdk_ds_i64(u1)[0] == U, "%s: paths_used after the first %lld", what,
             u1 ? (long long)sdk_ds_i64(u1)[0] : -1);
  }
  sdk_run_destroy(&a);
  sdk_run_destroy(&b);
  sdk_carry_destroy(&carry);
}

static void refused(const char *model, const char *observe, int fixed, const char *want) {
  sdk_run_config c;
  base(&c, model);
  c.observe = observe;
  if (!fixed) c.obs.nhist_range = 0;
  int64_t f[2] = {0, 0}, n[2] = {U, U};
  sdk_path_window w = {U, f, n, 0};
  c.window = &w;
  sdk_run *r = NULL;
  sdk_errbuf eb = {0};
  sdk_backend_env env;
  st_env(&env);
  c.env = env;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, want), "--observe %s refuses windows: %s", observe,
           eb.msg);
  sdk_run_destroy(&r);
}

int main(void) {
  st_require_backend();
  const char *model = st_model_file(MODEL, 0);
  sdk_run_config c;
  base(&c, model);
  c.paths = 2 * U;
  sdk_run *one = st_run(&c);
  TU_CHECK(one != NULL, "one run of %lld paths a grid point", (long long)(2 * U));
  if (one) {
    windows(model, 1, sdk_run_results(one));
    windows(model, 3, sdk_run_results(one));
  }
  sdk_run_destroy(&one);
  refused(model, "cov", 1, "--observe cov cannot be run in batches");
  refused(model, "diffusion", 1, "--observe diffusion cannot");
  refused(model, "hist", 0, "give --hist-range x=LO:HI");
  refused(model, "density", 0, "give --hist-range");
  return tu_finish("test_windows");
}
