/* hist: the density of every variable and every user observable ([observe],
 * --observe-expr) over the paths of each grid point at the end of the run,
 * count / (paths x bin width), over the range of the data or a fixed
 * --hist-range (paths outside it are counted, not binned).
 *
 *   hist/VAR/density             [grid..., bins] (the dimension "bin")
 *   hist/VAR/lo, hist/VAR/hi     [grid...] the range
 *   hist/VAR/underflow, overflow [grid...] (u64) paths below / above it
 *   /hist: attribute observables the user observables' names, whose
 *                                histograms follow the variables' (only
 *                                when the model has some)
 *
 * A user observable's values are evaluated per path on the backend (codegen/
 * observe_paths.c) and binned there like a variable's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int nq; /* variables, then user observables */
  int64_t bins;
  double *lo, *hi;
  uint64_t *cnt, *un, *ov;
} state;

static void hist_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->lo), free(st->hi), free(st->cnt), free(st->un), free(st->ov);
  free(st);
}

/* The fixed range of variable v (--hist-range), or -1. */
static int fixed_range(const sdk_observe_opts *o, const char *var) {
  int k = -1;
  for (int i = 0; i < o->nhist_range; i++)
    if (!strcmp(o->hist_range_var[i], var)) k = i;
  return k;
}

static sdk_err hist_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_results *R = c->R;
  int64_t bins = c->opts->bins, ng = R->ngrid;
  /* user observables: independent paths only (systems have no sdk_observe) */
  int nobs = c->systems ? 0 : c->model->nobs, nv = c->model->nvars + nobs;
  if (bins < 1 || bins > 100000000)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--bins must be between 1 and 1e8");
  if ((double)ng * (double)nv * (double)bins > (double)SDK_MAX_SAMPLE_VALUES)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "histograms of %lld grid points x %d variables x %lld bins exceed the maximum "
                    "of %lld values (SDK_MAX_SAMPLE_VALUES): give fewer --bins",
                    (long long)ng, nv, (long long)bins, (long long)SDK_MAX_SAMPLE_VALUES);
  for (int v = 0; v < nv; v++)
    if (fixed_range(c->opts, sdk_obs_quantity_name(c->model, v)) < 0) {
      char why[200];
      snprintf(why, sizeof why,
               "its bins would follow the range of each batch's data; give --hist-range "
               "%s=LO:HI (for every variable and user observable)",
               sdk_obs_quantity_name(c->model, v));
      SDK_CHECK(sdk_obs_no_windows(c, "hist", why, eb));
    }
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  st->bins = bins;
  st->nq = nv;
  st->lo = malloc((size_t)ng * sizeof(double)), st->hi = malloc((size_t)ng * sizeof(double));
  st->cnt = malloc((size_t)(ng * bins) * sizeof(uint64_t));
  st->un = malloc((size_t)ng * sizeof(uint64_t)), st->ov = malloc((size_t)ng * sizeof(uint64_t));
  if (!st->lo || !st->hi || !st->cnt || !st->un || !st->ov)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for histograms");
  static const char *const parts[] = {"density", "lo", "hi", "underflow", "overflow"};
  for (int v = 0; v < nv; v++)
    for (int k = 0; k < 5; k++) {
      char path[160];
      sdk_dataset *d;
      snprintf(path, sizeof path, "hist/%s/%s", sdk_obs_quantity_name(c->model, v), parts[k]);
      SDK_CHECK(sdk_obs_dataset(c, path, k >= 3 ? SDK_U64 : SDK_F64, k == 0, &bins, -1, 0, &d, eb));
      if (k == 0) SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "bin", eb));
    }
  if (nobs == 0) return SDK_OK;
  return sdk_store_group_strs(c->store, "hist", "observables",
                              (const char *const *)c->model->obs_names, nobs, eb);
}

/* The range of variable v at every grid point: fixed, or that of the data
 * (a degenerate one widened so that it has a bin). */
static sdk_err hist_range(const sdk_obs_ctx *c, state *st, int v, sdk_errbuf *eb) {
  int64_t ng = c->R->ngrid;
  int fixed = fixed_range(c->opts, sdk_obs_quantity_name(c->model, v));
  if (fixed >= 0) {
    for (int64_t g = 0; g < ng; g++)
      st->lo[g] = c->opts->hist_range_lo[fixed], st->hi[g] = c->opts->hist_range_hi[fixed];
    return SDK_OK;
  }
  SDK_CHECK(sdk_paths_minmax(c->paths, v, st->lo, st->hi, eb));
  for (int64_t g = 0; g < ng; g++)
    if (!(st->hi[g] > st->lo[g])) {
      double w = fabs(st->lo[g]) > 0 ? 1e-6 * fabs(st->lo[g]) : 1e-6;
      st->lo[g] -= w, st->hi[g] += w;
    }
  return SDK_OK;
}

static sdk_err hist_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_results *R = c->R;
  int64_t ng = R->ngrid, bins = st->bins;
  int nobs = st->nq - c->model->nvars;
  if (nobs > 0) SDK_CHECK(sdk_paths_eval_observe(c->paths, R->nsteps, nobs, eb));
  for (int v = 0; v < st->nq; v++) {
    SDK_CHECK(hist_range(c, st, v, eb));
    /* a grid point whose paths blew up: a NaN range keeps them out of the bins */
    for (int64_t g = 0; g < ng; g++)
      if (c->bad[g]) st->lo[g] = st->hi[g] = NAN;
    SDK_CHECK(sdk_paths_histogram(c->paths, v, bins, st->lo, st->hi, st->cnt, st->un, st->ov, eb));
    const char *vn = sdk_obs_quantity_name(c->model, v);
    double *den = sdk_ds_f64(sdk_store_findf(c->store, "hist/%s/density", vn));
    double *lo = sdk_ds_f64(sdk_store_findf(c->store, "hist/%s/lo", vn));
    double *hi = sdk_ds_f64(sdk_store_findf(c->store, "hist/%s/hi", vn));
    uint64_t *un = sdk_ds_u64(sdk_store_findf(c->store, "hist/%s/underflow", vn));
    uint64_t *ov = sdk_ds_u64(sdk_store_findf(c->store, "hist/%s/overflow", vn));
    for (int64_t g = 0; g < ng; g++) {
      lo[g] = st->lo[g], hi[g] = st->hi[g], un[g] = st->un[g], ov[g] = st->ov[g];
      double w = (st->hi[g] - st->lo[g]) / (double)bins;
      for (int64_t b = 0; b < bins; b++)
        den[g * bins + b] =
            (double)st->cnt[g * bins + b] / ((double)sdk_paths_used(c->paths, g) * w);
    }
  }
  return SDK_OK;
}

static sdk_err hist_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char b1[32], b2[32], b3[32];
  const sdk_store *S = &R->store;
  const sdk_group_attrs *ga = sdk_store_group(S, "hist");
  const sdk_attr *oa = ga ? sdk_attr_find(ga->attr, ga->nattr, "observables") : NULL;
  int64_t nobs = oa && oa->kind == SDK_ATTR_STRS ? oa->nstr : 0;
  for (int64_t v = 0; v < R->nvars + nobs; v++) {
    const char *vn = v < R->nvars ? R->var_names[v] : oa->strs[v - R->nvars];
    const sdk_dataset *dd = sdk_store_findf(S, "hist/%s/density", vn);
    const double *lo = sdk_ds_f64(sdk_store_findf(S, "hist/%s/lo", vn));
    const double *hi = sdk_ds_f64(sdk_store_findf(S, "hist/%s/hi", vn));
    const uint64_t *un = sdk_ds_u64(sdk_store_findf(S, "hist/%s/underflow", vn));
    const uint64_t *ov = sdk_ds_u64(sdk_store_findf(S, "hist/%s/overflow", vn));
    if (!dd || !lo || !hi || !un || !ov)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "hist: incomplete results");
    int64_t nb = dd->dims[dd->rank - 1];
    if (v > 0) fputs("\n\n", f); /* next gnuplot index */
    fprintf(f, "# hist of: %s (index %lld)\n", vn, (long long)(v * R->ngrid));
    unsigned long long under = 0, over = 0;
    for (int64_t g = 0; g < R->ngrid; g++)
      under += un[g], over += ov[g];
    fprintf(f, "# outside the range (paths, all grid points): %llu below, %llu above\n", under,
            over);
    SDK_CHECK(sdk_tsv_header(R, f, "hist", eb, "%s_lo\t%s_hi\tdensity", vn, vn));
    for (int64_t g = 0; g < R->ngrid; g++) {
      if (g > 0) fputs("\n\n", f); /* every grid point's histogram its own index */
      for (int64_t k = 0; k < nb; k++) {
        sdk_tsv_coords(R, g, f);
        fprintf(f, "%s\t%s\t%s\n", sdk_fmt_stat(b1, sdk_tsv_bin_edge(lo[g], hi[g], k, nb)),
                sdk_fmt_stat(b2, sdk_tsv_bin_edge(lo[g], hi[g], k + 1, nb)),
                sdk_fmt_stat(b3, sdk_ds_f64(dd)[g * nb + k]));
      }
    }
  }
  return SDK_OK;
}

const sdk_obs_type sdk_obs_hist = {
    .name = "hist",
    .description = "density of every variable and user observable at the end of the run",
    .setup = hist_setup,
    .finish = hist_finish,
    .free = hist_free,
    .write_tsv = hist_tsv,
};
