/* The CPU backend's moments reduction (backend/cpu_reduce.h): chunks side by
 * side in vectors and shared out among threads give bitwise the sums of the
 * one-chunk-at-a-time scalar Welford loop, for every layout (grid points,
 * a last chunk shorter than SDK_RED_CHUNK, shards starting at path0 > 0),
 * both precisions, NaN/Inf left out and counted, displacements (mark,
 * scale), and any number of threads or order of their work; and through the
 * backend, the module's OpenMP team (sdk_parallel) gives the same bits as
 * one thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cpu_reduce.h"
#include "sim/registry.h"
#include "simtest.h"
#include "testutil.h"

/* the reference: chunk by chunk, path by path (the code before the vectors) */
static void scalar_sums(const sdk_cpu_reduce *r, int64_t k, int row, sdk_moments *out,
                        int64_t *bad) {
  int64_t g = k / r->nch, c = k - g * r->nch, i0 = c * SDK_RED_CHUNK;
  int64_t i1 = i0 + SDK_RED_CHUNK < r->ppg ? i0 + SDK_RED_CHUNK : r->ppg;
  size_t es = r->single ? sizeof(float) : sizeof(double);
  const char *x = (const char *)r->rows + (size_t)row * (size_t)r->row_stride * es;
  double n = 0, mean = 0, m2 = 0;
  *bad = 0;
  for (int64_t i = i0; i < i1; i++) {
    int64_t at = g * r->ppg - r->path0 + i;
    double v = r->single ? ((const float *)x)[at] : ((const double *)x)[at];
    if (r->sub) {
      double s = r->single ? ((const float *)r->sub)[at] : ((const double *)r->sub)[at];
      v = (v - s) * r->scale;
    }
    if (!isfinite(v)) {
      (*bad)++;
      continue;
    }
    n += 1;
    double d = v - mean;
    mean += d / n;
    m2 += d * (v - mean);
  }
  *out = (sdk_moments){n, mean, m2};
}

/* a team that runs its threads one after the other, last first */
static void backwards(void (*body)(void *, int, int), void *arg, int nt) {
  for (int t = nt - 1; t >= 0; t--)
    body(arg, t, nt);
}

static unsigned long long rng = 88172645463325252ull;
static double next_value(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) * 0x1p-53 * 8 - 3;
}

/* one layout: ngrid grid points of ppg paths, the shard [path0, path0 + n) */
static void check_layout(int single, int64_t ngrid, int64_t ppg, int64_t path0, int64_t n,
                         int nrows, int disp) {
  size_t es = single ? sizeof(float) : sizeof(double);
  int64_t npad = sdk_padded_paths(n);
  char *rows = malloc((size_t)(nrows * npad) * es), *mark = malloc((size_t)npad * es);
  for (int64_t i = 0; i < nrows * npad; i++) {
    double v = next_value();
    if (i % 997 == 5) v = NAN;
    if (i % 1499 == 7) v = -INFINITY;
    if (single)
      ((float *)rows)[i] = (float)v;
    else
      ((double *)rows)[i] = v;
  }
  for (int64_t i = 0; i < npad; i++) {
    if (single)
      ((float *)mark)[i] = (float)next_value();
    else
      ((double *)mark)[i] = next_value();
  }
  sdk_layout lay = {.nvars = nrows, .ngrid = ngrid, .ppg = ppg, .path0 = path0, .npaths = n};
  sdk_span sp = sdk_layout_span(&lay);
  int64_t nk = sp.c1 - sp.c0;
  sdk_cpu_reduce r = {.single = single,
                      .rows = rows,
                      .row_stride = npad,
                      .nrows = disp ? 1 : nrows,
                      .sub = disp ? mark : NULL,
                      .scale = disp ? 0.37 : 1,
                      .ppg = ppg,
                      .path0 = path0,
                      .nch = sp.nch,
                      .c0 = sp.c0,
                      .c1 = sp.c1};
  int nr = r.nrows;
  sdk_moments *want = malloc((size_t)(nk * nr) * sizeof *want);
  sdk_moments *got = malloc((size_t)(nk * nr) * sizeof *got);
  int64_t *wbad = malloc((size_t)(nk * nr) * sizeof *wbad);
  int64_t *gbad = malloc((size_t)(nk * nr) * sizeof *gbad);
  for (int64_t k = sp.c0; k < sp.c1; k++)
    for (int v = 0; v < nr; v++)
      scalar_sums(&r, k, v, &want[(k - sp.c0) * nr + v], &wbad[(k - sp.c0) * nr + v]);
  const int threads[] = {1, 2, 3, 7, 64};
  for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
    memset(got, 0xff, (size_t)(nk * nr) * sizeof *got);
    memset(gbad, 0xff, (size_t)(nk * nr) * sizeof *gbad);
    r.out = got;
    r.nonfinite = disp ? NULL : gbad;
    r.threads = threads[t];
    r.parallel = backwards;
    sdk_cpu_reduce_moments(&r);
    TU_CHECK(!memcmp(got, want, (size_t)(nk * nr) * sizeof *got),
             "%s, %lld grid x %lld paths from %lld, %d rows%s, %d threads: sums differ from the "
             "scalar loop",
             single ? "float" : "double", (long long)ngrid, (long long)ppg, (long long)path0, nr,
             disp ? " (displacement)" : "", threads[t]);
    if (!disp)
      TU_CHECK(!memcmp(gbad, wbad, (size_t)(nk * nr) * sizeof *gbad),
               "%s, %lld x %lld, %d threads: non-finite counts differ", single ? "float" : "double",
               (long long)ngrid, (long long)ppg, threads[t]);
  }
  int64_t nbad = 0;
  for (int64_t i = 0; i < nk * nr; i++)
    nbad += wbad[i];
  TU_CHECK(disp || nbad > 0, "the data hold non-finite values (%lld counted)", (long long)nbad);
  free(rows), free(mark), free(want), free(got), free(wbad), free(gbad);
}

static void test_layouts(void) {
  for (int single = 0; single < 2; single++)
    for (int disp = 0; disp < 2; disp++) {
      check_layout(single, 1, 100000, 0, 100000, 2, disp);    /* last chunk of 160 */
      check_layout(single, 3, 70000, 0, 210000, 1, disp);     /* groups across grid points */
      check_layout(single, 5, 1000, 0, 5000, 3, disp);        /* chunks of 256, 256, 256, 232 */
      check_layout(single, 4, 70000, 70256, 209744, 2, disp); /* a shard from a chunk edge */
      check_layout(single, 2, 256 * 40, 256 * 3, 256 * 37, 1, disp); /* whole chunks only */
      check_layout(single, 1, 7, 0, 7, 1, disp);                     /* fewer paths than a lane */
    }
}

/* Through the backend: the module's OpenMP team against one thread. */
static void test_backend_threads(void) {
  const int64_t ppg = 70001, ngrid = 2;
  sdk_moments out[2][2 * 274 * 2];
  int64_t bad[2][2 * 274 * 2];
  for (int single = 0; single < 2; single++) {
    for (int k = 0; k < 2; k++) {
      sdk_errbuf eb = {0};
      sdk_run_config c;
      sdk_run_config_defaults(&c);
      c.model = "josephson";
      c.single = single;
      char *src = NULL;
      sdk_backend_opts o = {.threads = k ? 2 : 1, .fast_math = 1};
      st_env(&o.env);
      const sdk_backend *be = &sdk_backend_cpu;
      sdk_bctx *ctx = NULL;
      sdk_module *mod = NULL;
      sdk_ensemble *e = NULL;
      sdk_layout lay = {.nvars = 2, .single = single, .ngrid = ngrid, .ppg = ppg};
      int ok = sdk_run_codegen(&c, be, &src, &eb) == SDK_OK && be->open(&o, &ctx, &eb) == SDK_OK &&
               be->compile(ctx, src, NULL, "josephson", &mod, NULL, 0, &eb) == SDK_OK &&
               be->alloc(ctx, mod, &lay, &e, &eb) == SDK_OK && be->init(e, 3, &eb) == SDK_OK &&
               be->advance(e, 0, 50, 3, &eb) == SDK_OK &&
               be->moments(e, out[k], bad[k], &eb) == SDK_OK;
      TU_CHECK(ok, "josephson on the CPU backend: %s", eb.msg);
      free(src);
      be->free(&e);
      be->module_free(&mod);
      be->close(&ctx);
    }
    /* per fold unit (backend.h): 274 chunks a grid point, runs of 64 */
    sdk_layout all = {.nvars = 2, .ngrid = ngrid, .ppg = ppg};
    sdk_span sp = sdk_layout_span(&all);
    int64_t nk = sdk_span_units(&sp, NULL);
    TU_CHECK(nk == ngrid * 5, "%lld fold units (want %lld)", (long long)nk, (long long)ngrid * 5);
    TU_CHECK(nk * 2 <= (int64_t)(sizeof out[0] / sizeof out[0][0]), "buffer size");
    TU_CHECK(!memcmp(out[0], out[1], (size_t)(nk * 2) * sizeof out[0][0]) &&
                 !memcmp(bad[0], bad[1], (size_t)(nk * 2) * sizeof bad[0][0]),
             "%s: moments with 2 threads (the module's team) differ from 1 thread",
             single ? "single" : "double");
    TU_CHECK(out[0][0].n == 256 * SDK_RED_FOLD &&
                 out[0][nk * 2 - 1].n == ppg - 4 * 256 * SDK_RED_FOLD,
             "unit sizes %g, %g", out[0][0].n, out[0][nk * 2 - 1].n);
  }
}

int main(void) {
  test_layouts();
  if (!strcmp(st_backend(), "cpu")) test_backend_threads();
  return tu_finish("test_cpu_reduce");
}
