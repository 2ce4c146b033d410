/* Shards (observe/paths.h, the seam MPI uses): the paths of a run cut into
 * several ensembles on reduction-chunk boundaries give bitwise the results of
 * one ensemble, for every dataset of every observable, including grid points
 * whose paths blow up.  Grid points of 700 and 1300 paths make partial chunks
 * and cuts in the middle of grid points.  Runs on $SDK_TEST_BACKEND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simtest.h"
#include "testutil.h"

/* every dataset of A is in B with the same shape and bytes, and back */
static void same_results(const sdk_results *A, const sdk_results *B, const char *what) {
  int ok = A->store.n == B->store.n, ndiff = 0;
  for (int i = 0; i < A->store.n; i++) {
    const sdk_dataset *a = A->store.ds[i], *b = sdk_store_find(&B->store, a->path);
    int same = b && a->type == b->type && a->rank == b->rank &&
               !memcmp(a->dims, b->dims, sizeof a->dims) &&
               !memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8);
    if (!same && ndiff++ < 3) printf("  %s: %s differs\n", what, a->path);
    ok &= same;
  }
  int nf = (!A->nonfinite && !B->nonfinite) ||
           (A->nonfinite && B->nonfinite &&
            !memcmp(A->nonfinite, B->nonfinite, (size_t)A->ngrid * sizeof *A->nonfinite));
  TU_CHECK(ok && nf, "%s: %d datasets bitwise equal to one shard's (%d differ)", what, A->store.n,
           ndiff);
}

static void compare(sdk_run_config *c, const int *cuts, int ncuts, const char *name, int blows_up) {
  c->shards = 1;
  sdk_run *one = st_run(c);
  TU_CHECK(one != NULL, "%s: one shard", name);
  if (!one) return;
  for (int i = 0; i < ncuts; i++) {
    c->shards = cuts[i];
    sdk_run *many = st_run(c);
    char what[128];
    snprintf(what, sizeof what, "%s, %d shards", name, cuts[i]);
    TU_CHECK(many != NULL, "%s ran", what);
    if (many) same_results(sdk_run_results(one), sdk_run_results(many), what);
    sdk_run_destroy(&many);
  }
  const sdk_results *R = sdk_run_results(one);
  int64_t nbad = 0;
  for (int64_t g = 0; R->nonfinite && g < R->ngrid; g++)
    nbad += R->nonfinite[g] > 0;
  TU_CHECK(blows_up ? nbad > 0 && nbad < R->ngrid : nbad == 0, "%s: %lld grid points blew up", name,
           (long long)nbad);
  const sdk_dataset *d = sdk_store_find(&R->store, "moments/mean_x");
  if (d)
    printf("%s: mean x at the last sample of grid point 0: %.17g\n", name,
           sdk_ds_f64(d)[d->dims[d->rank - 1] - 1]);
  sdk_run_destroy(&one);
}

static void base(sdk_run_config *c, const char *model) {
  sdk_run_config_defaults(c);
  c->model = model;
  c->backend = st_backend();
  c->seed = 11;
}

int main(void) {
  st_require_backend();
  sdk_run_config c;
  /* OU: three grid points of 700 paths, every observable of independent paths */
  base(&c, "ou");
  c.scheme = "euler";
  c.single = 0;
  c.paths = 700;
  c.t_end = 1;
  c.dt = 0.01;
  c.observe = "drift,moments,hist,density";
  c.obs.nsave = 2;
  c.obs.save_index[0] = 0, c.obs.save_index[1] = 699;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("k=0.5:2:3", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  const int cuts[] = {2, 3, 7, 9};
  compare(&c, cuts, 4, "ou, 3 x 700 paths", 0);
  sdk_scan_free(&c.scan[0]);

  /* josephson: single precision with the compensated update (carried rows),
   * srk2, a period, two grid points of 1300 paths, coarse-grained density */
  base(&c, "josephson");
  c.paths = 1300;
  c.periods = 3;
  c.observe = "drift,moments,density";
  c.obs.coarse_width = -1;
  c.obs.bins = 16;
  TU_CHECK(sdk_scan_parse("a=4:5:2", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  const int cuts2[] = {4};
  compare(&c, cuts2, 1, "josephson single, 2 x 1300 paths", 0);
  sdk_scan_free(&c.scan[0]);

  /* OU: two grid points of 40000 paths, 157 chunks each: runs of
   * SDK_RED_FOLD chunks that backends fold whole (backend.h: fold units) and
   * runs that shard boundaries cut, whose chunks the host folds */
  base(&c, "ou");
  c.scheme = "euler";
  c.single = 1;
  c.paths = 40000;
  c.t_end = 0.2;
  c.dt = 0.01;
  c.observe = "drift,moments";
  c.obs.nsave = 0;
  TU_CHECK(sdk_scan_parse("k=0.5:2:2", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  const int cuts4[] = {2, 3, 5};
  compare(&c, cuts4, 3, "ou, 2 x 40000 paths", 0);
  sdk_scan_free(&c.scan[0]);

  /* a grid point whose paths blow up: NaN there, its count, the rest equal */
  const char *model = st_model_file("[model]\nname = blowup\nvars = x\n[params]\nc = 0\n"
                                    "[drift]\nx = c * x * x * x\n[noise]\nx = 0.5\n"
                                    "[init]\nx = normal(1, 0.5)\n",
                                    0);
  base(&c, model);
  c.scheme = "euler";
  c.paths = 600;
  c.t_end = 2;
  c.dt = 0.05;
  c.observe = "moments,hist";
  TU_CHECK(sdk_scan_parse("c=0:4:3", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  const int cuts3[] = {3, 5};
  compare(&c, cuts3, 2, "blow-up at c > 0", 1);
  sdk_scan_free(&c.scan[0]);
  unlink(model);
  return tu_finish("test_shards");
}
