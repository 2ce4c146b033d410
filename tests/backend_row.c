/* A third backend is one file and one row (docs/ARCHITECTURE.md, "Add a
 * backend"): tests/backend_twin.c, registered by this program's own copy of
 * the registry (SDK_EXTRA_BACKEND).  Nothing else knows it, yet --backend
 * takes it, the listings and --help name it, the code generator targets its
 * row's target, a run on it gives the CPU's results bit for bit under its
 * name, and --backend auto leaves it alone (auto_rank 0). */
#include <sdekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/registry.h"
#include "sim/run.h"
#include "sim/run_internal.h" /* sdk_backend_hold */
#include "simtest.h"
#include "testutil.h"

static void test_rows(void) {
  const sdk_backend *t = sdk_find_backend("twin");
  TU_CHECK(t && t->target == SDK_TARGET_CPU && !t->device && t->auto_rank == 0, "twin's row");
  int i = 0;
  while (sdekit_registry_name("backend", i) && strcmp(sdekit_registry_name("backend", i), "twin"))
    i++;
  TU_CHECK(sdekit_registry_name("backend", i) != NULL, "listed by sdekit_registry_name");
  const char *d = sdekit_registry_description("backend", i);
  TU_CHECK(d && strstr(d, "test of the backend recipe"), "its description");
  TU_CHECK(sdekit_registry_value("backend", i, "device") == 0 &&
               sdekit_registry_value("backend", i, "bench-paths") == 4096,
           "its values");
  char *h = sdekit_config_help();
  TU_CHECK(h && strstr(h, "cpu | cuda | twin | auto (default cpu)"), "run --help names it");
  sdekit_free(h);
}

static void test_option(void) {
  sdekit_config *c = NULL;
  sdekit_error err;
  TU_CHECK(sdekit_config_create(&c, &err) == SDEKIT_OK, "config");
  TU_CHECK(sdekit_config_option(c, "backend", "twin", &err) == SDEKIT_OK, "--backend twin");
  TU_CHECK(sdekit_config_option(c, "backend", "nope", &err) != SDEKIT_OK &&
               strstr(err.message, "expected cpu, cuda, twin or auto"),
           "--backend nope: %s", err.message);
  sdekit_config_destroy(&c);
}

/* the same kernel source as the CPU's (its row's target), the same results */
static void test_run(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "ou";
  c.paths = 2000;
  c.observe = "moments";
  char *a = NULL, *b = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_run_codegen(&c, sdk_find_backend("twin"), &a, &eb) == SDK_OK &&
               sdk_run_codegen(&c, &sdk_backend_cpu, &b, &eb) == SDK_OK && !strcmp(a, b),
           "twin's kernel is the CPU target's");
  free(a);
  free(b);
  const st_view *v[2];
  for (int k = 0; k < 2; k++) {
    c.backend = k ? "twin" : "cpu";
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "a run on %s", c.backend);
    if (!r) return;
    const sdk_results *R = sdk_run_results(r);
    TU_CHECK(!strcmp(R->backend, c.backend), "results name the backend %s", R->backend);
    v[k] = st_view_of(R);
  }
  size_t n = (size_t)v[0]->nsamples * 1; /* ou: one variable, one grid point */
  TU_CHECK(v[0]->nsamples == v[1]->nsamples && v[0]->nsamples > 0 &&
               !memcmp(v[0]->mean, v[1]->mean, n * sizeof(double)) &&
               !memcmp(v[0]->var, v[1]->var, n * sizeof(double)),
           "twin's moments are the CPU's bit for bit");
}

/* fpt's survival at every sample: counted where the paths live by the CPU's
 * count_zero, from the status rows read to the host on twin, which has no
 * count_zero (paths.h, sdk_paths_count_zero): the same numbers bit for bit,
 * over several shards and a scan; the last sample (t_end) is the fraction the
 * final fold finds censored. */
static void test_fpt_counted(void) {
  static const char BM[] = "[model]\nname = bm\nvars = x\n[params]\nD = 1\nL = 1\n"
                           "x0 = 0.5\n[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\n"
                           "x = x0\n[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n";
  sdk_run_config c;
  st_config_text(&c, "bm", BM, 3000, 0.002, 0.4);
  c.observe = "fpt";
  c.shards = 3;
  TU_CHECK(sdk_scan_parse("x0=0.3:0.7:2", &c.scan[0], NULL) == SDK_OK, "scan");
  c.nscan = 1;
  sdk_run *r[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    c.backend = k ? "twin" : "cpu";
    r[k] = st_run(&c);
    TU_CHECK(r[k] != NULL, "fpt on %s", c.backend);
  }
  if (r[0] && r[1]) {
    const sdk_results *A = sdk_run_results(r[0]), *B = sdk_run_results(r[1]);
    const sdk_dataset *sa = sdk_store_find(&A->store, "fpt/survival"),
                      *sb = sdk_store_find(&B->store, "fpt/survival"),
                      *ca = sdk_store_find(&A->store, "fpt/censored");
    int ok = sa && sb && ca && sa->rank == 2 && sb->rank == 2 && sa->dims[0] == 2 &&
             sb->dims[0] == 2 && sa->dims[1] == sb->dims[1] && sa->dims[1] > 2;
    TU_CHECK(ok, "survival datasets [2][samples]");
    if (ok) {
      TU_CHECK(!memcmp(sa->data, sb->data, (size_t)(2 * sa->dims[1]) * sizeof(double)),
               "survival counted on the CPU is twin's bit for bit");
      int64_t ns = sa->dims[1];
      const double *S = sdk_ds_f64(sa);
      const int64_t *cen = sdk_ds_i64(ca);
      for (int g = 0; g < 2; g++)
        TU_CHECK(S[g * ns + ns - 1] == (double)cen[g] / 3000.0 && S[g * ns + 1] < 1,
                 "grid point %d: S(t_end) %.17g, censored %lld", g, S[g * ns + ns - 1],
                 (long long)cen[g]);
    }
  }
  sdk_run_destroy(&r[0]);
  sdk_run_destroy(&r[1]);
  sdk_scan_free(&c.scan[0]);
}

/* --backend auto opens the backends of auto_rank > 0 only */
static void test_auto(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = "auto";
  const sdk_backend *be = NULL;
  sdk_bctx *ctx = NULL;
  sdk_backend_hold(&c, &be, &ctx);
  TU_CHECK(be && strcmp(be->name, "twin"), "auto: %s", be ? be->name : "none");
  if (be && ctx) be->close(&ctx);
}

int main(void) {
  test_rows();
  test_option();
  test_run();
  test_fpt_counted();
  test_auto();
  return tu_finish("backend_row");
}
