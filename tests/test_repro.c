/* Reproducibility at the level of individual paths:
 *  - a path's trajectory depends only on (seed, global path index): an
 *    ensemble split into two pieces (paths [0,N) and [N,2N) held separately)
 *    gives bitwise the same states as the whole;
 *  - advancing in one launch or in many uneven launches gives the same bits;
 *  - 1 thread and 2 threads give the same bits.
 * Runs on the backend named by $SDK_TEST_BACKEND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "sim/registry.h"
#include "simtest.h"
#include "testutil.h"

typedef struct {
  const sdk_backend *be;
  sdk_bctx *ctx;
  sdk_module *mod;
} kit;

static int open_kit(kit *k, int threads, int single) {
  memset(k, 0, sizeof *k);
  sdk_errbuf eb = {0};
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "josephson";
  c.single = single;
  char *src = NULL;
  k->be = sdk_find_backend(st_backend());
  sdk_backend_opts o = {.threads = threads, .fast_math = 1};
  st_env(&o.env);
  if (sdk_run_codegen(&c, k->be, &src, &eb) != SDK_OK || k->be->open(&o, &k->ctx, &eb) != SDK_OK ||
      k->be->compile(k->ctx, src, NULL, "josephson", &k->mod, NULL, 0, &eb) != SDK_OK) {
    fprintf(stderr, "setup failed: %s\n", eb.msg);
    free(src);
    return 0;
  }
  free(src);
  return 1;
}

static void close_kit(kit *k) {
  k->be->module_free(&k->mod);
  k->be->close(&k->ctx);
}

/* Run paths [path0, path0+n) of two grid points of N paths each (a shard of
 * the global paths, backend.h) for the given launch lengths; return states. */
static double *simulate(kit *k, int single, int64_t path0, int64_t n, const int64_t *launches,
                        int nl) {
  sdk_errbuf eb = {0};
  sdk_layout lay = {
      .nvars = 2, .single = single, .ngrid = 2, .ppg = 1000, .path0 = path0, .npaths = n};
  sdk_ensemble *e = NULL;
  double *out = malloc(2 * (size_t)n * sizeof(double));
  int ok = out && k->be->alloc(k->ctx, k->mod, &lay, &e, &eb) == SDK_OK &&
           k->be->init(e, 42, &eb) == SDK_OK;
  int64_t step = 0;
  for (int i = 0; ok && i < nl; i++) {
    ok = k->be->advance(e, step, launches[i], 42, &eb) == SDK_OK;
    step += launches[i];
  }
  ok = ok && k->be->read_state(e, 0, n, out, &eb) == SDK_OK;
  k->be->free(&e);
  if (!ok) {
    fprintf(stderr, "simulate failed: %s\n", eb.msg);
    free(out);
    return NULL;
  }
  return out;
}

static int same_bits(const double *a, const double *b, size_t n) {
  return !memcmp(a, b, n * sizeof *a);
}

static void check(int single) {
  const int64_t N = 1000; /* not a multiple of any block size on purpose */
  const int64_t one[] = {1000}, many[] = {1, 2, 3, 15, 16, 17, 100, 846};
  kit k1, k2;
  if (!open_kit(&k2, 2, single) || !open_kit(&k1, 1, single)) {
    TU_CHECK(0, "backend setup");
    return;
  }
  double *whole = simulate(&k2, single, 0, 2 * N, one, 1);
  double *lo = simulate(&k2, single, 0, N, one, 1);
  double *hi = simulate(&k2, single, N, N, one, 1);
  double *chopped = simulate(&k2, single, 0, 2 * N, many, 8);
  double *thread1 = simulate(&k1, single, 0, 2 * N, one, 1);
  TU_CHECK(whole && lo && hi && chopped && thread1, "simulations ran");
  if (whole && lo && hi && chopped && thread1) {
    int ok_lo = 1, ok_hi = 1;
    for (int v = 0; v < 2; v++) {
      ok_lo &= same_bits(whole + v * 2 * N, lo + v * N, (size_t)N);
      ok_hi &= same_bits(whole + v * 2 * N + N, hi + v * N, (size_t)N);
    }
    const char *p = single ? "single" : "double";
    TU_CHECK(ok_lo, "%s: paths [0,N) of the whole equal the first piece", p);
    TU_CHECK(ok_hi, "%s: paths [N,2N) of the whole equal the second piece", p);
    TU_CHECK(same_bits(whole, chopped, 4 * (size_t)N), "%s: one launch == 8 uneven launches", p);
    TU_CHECK(same_bits(whole, thread1, 4 * (size_t)N), "%s: 2 threads == 1 thread", p);
    /* and the paths did move and differ */
    TU_CHECK(whole[0] != whole[1] && isfinite(whole[0]), "%s: paths differ", p);
    printf("%s: path 0 x=%.9g v=%.9g, path %lld x=%.9g: pieces, launches, threads identical\n", p,
           whole[0], whole[2 * N], (long long)N, whole[N]);
  }
  free(whole), free(lo), free(hi), free(chopped), free(thread1);
  close_kit(&k1);
  close_kit(&k2);
}

int main(void) {
  st_require_backend();
  check(1);
  check(0);
  return tu_finish("test_repro");
}
