/* cov: the covariance matrix of the variables over the paths of each grid
 * point, at every sample time, with the standard error of every entry.
 *
 *   cov/step                [nsamples] step of each sample
 *   cov/t                   [grid..., nsamples] step * dt
 *   cov/value               [grid..., nsamples, var, var] (unbiased: n - 1);
 *                           its standard_error names "error"
 *   cov/error               [grid..., nsamples, var, var]
 *   attribute vars on /cov  the variables in matrix order
 *
 * The standard error of c = cov(x, y) estimated from n paths is
 * sqrt((mu22 - c^2) / n), mu22 = E[(x - <x>)^2 (y - <y>)^2]: the variance of
 * the product of the deviations (for x = y the standard error of the
 * variance, (mu4 - var^2) / n).
 *
 * Reduced on the host from the state rows (one transfer of the variables
 * per sample), per chunk of SDK_RED_CHUNK paths of a grid point in the
 * fixed order of the global path index, whatever the backend and however
 * the paths are cut into shards: the results are bitwise reproducible.
 * Each chunk's co-moments (two passes over the chunk) are merged into the
 * running ones in chunk order (Chan et al.); the fourth-order sums are taken
 * about the first chunk's means, close to the final ones, so they lose few
 * digits.  Paths with a non-finite variable are left out (their grid point
 * is reported and set to NaN by the run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/abi.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int nv;
  double *value, *error; /* [g][s][v][w] */
  double *buf;           /* [v][SDK_RED_CHUNK] one chunk's variables */
  sdk_rowcache rc;
  /* running sums of one grid point: n, means, co-moments [v][w], and about
   * the shift ref[v]: s1[v], s21/s12/s11/s22 [v][w] (u = x - ref) */
  double *mean, *cm, *ref, *s1, *s11, *s21, *s12, *s22, *cmean, *ccm;
} state;

static void cov_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->buf);
  sdk_rowcache_free(&st->rc);
  free(st->mean);
  free(st);
}

static sdk_err cov_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  int nv = c->model->nvars;
  SDK_CHECK(sdk_obs_no_windows(c, "cov",
                               "its sums about a reference taken from the first paths are not "
                               "carried from batch to batch; run it with a fixed --paths",
                               eb));
  SDK_CHECK(sdk_obs_check_size(c, "cov", 2.0 * nv * nv, eb));
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the covariance");
  st->nv = nv;
  size_t vv = (size_t)nv * (size_t)nv;
  st->buf = malloc((size_t)nv * SDK_RED_CHUNK * sizeof *st->buf);
  /* one block for the sums: mean, ref, s1, cmean [v]; cm, s11, s21, s12, s22, ccm [v][w] */
  st->mean = calloc(4 * (size_t)nv + 6 * vv, sizeof *st->mean);
  if (!st->buf || !st->mean) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the covariance");
  st->ref = st->mean + nv;
  st->s1 = st->ref + nv;
  st->cmean = st->s1 + nv;
  st->cm = st->cmean + nv;
  st->s11 = st->cm + vv;
  st->s21 = st->s11 + vv;
  st->s12 = st->s21 + vv;
  st->s22 = st->s12 + vv;
  st->ccm = st->s22 + vv;
  SDK_CHECK(sdk_obs_times(c, "cov", c->nsamples_max, eb));
  int64_t extra[3] = {c->nsamples_max, nv, nv};
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(c, "cov/value", SDK_F64, 3, extra, 0, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "standard_error", "error", eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 2, "var", eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "var", eb));
  st->value = sdk_ds_f64(d);
  SDK_CHECK(sdk_obs_dataset(c, "cov/error", SDK_F64, 3, extra, 0, 0, &d, eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 2, "var", eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "var", eb));
  st->error = sdk_ds_f64(d);
  return sdk_store_group_strs(c->store, "cov", "vars", (const char *const *)c->model->vars, nv, eb);
}

/* Fold one chunk of `len` paths (st->buf) into the running sums of n paths. */
static void fold_chunk(state *st, int64_t len, double *n) {
  int nv = st->nv;
  double nb = 0;
  memset(st->cmean, 0, (size_t)nv * sizeof *st->cmean);
  memset(st->ccm, 0, (size_t)nv * (size_t)nv * sizeof *st->ccm);
  for (int64_t i = 0; i < len; i++) {
    int ok = 1;
    for (int v = 0; v < nv; v++)
      ok &= isfinite(st->buf[v * SDK_RED_CHUNK + i]) != 0;
    if (!ok) {
      for (int v = 0; v < nv; v++)
        st->buf[v * SDK_RED_CHUNK + i] = NAN; /* marks the path left out */
      continue;
    }
    nb += 1;
    for (int v = 0; v < nv; v++)
      st->cmean[v] += st->buf[v * SDK_RED_CHUNK + i];
  }
  if (nb == 0) return;
  for (int v = 0; v < nv; v++)
    st->cmean[v] /= nb;
  if (*n == 0) memcpy(st->ref, st->cmean, (size_t)nv * sizeof *st->ref);
  for (int64_t i = 0; i < len; i++) {
    if (isnan(st->buf[i])) continue;
    for (int v = 0; v < nv; v++) {
      double dv = st->buf[v * SDK_RED_CHUNK + i] - st->cmean[v];
      double uv = st->buf[v * SDK_RED_CHUNK + i] - st->ref[v];
      st->s1[v] += uv;
      for (int w = v; w < nv; w++) {
        double dw = st->buf[w * SDK_RED_CHUNK + i] - st->cmean[w];
        double uw = st->buf[w * SDK_RED_CHUNK + i] - st->ref[w];
        int k = v * nv + w;
        st->ccm[k] += dv * dw;
        st->s11[k] += uv * uw;
        st->s21[k] += uv * uv * uw;
        st->s12[k] += uv * uw * uw;
        st->s22[k] += uv * uv * uw * uw;
      }
    }
  }
  /* Chan et al.: merge (n, mean, cm) with the chunk's (nb, cmean, ccm) */
  double na = *n, nn = na + nb;
  for (int v = 0; v < nv; v++)
    for (int w = v; w < nv; w++) {
      int k = v * nv + w;
      double dv = st->cmean[v] - st->mean[v], dw = st->cmean[w] - st->mean[w];
      st->cm[k] += st->ccm[k] + dv * dw * na * nb / nn;
    }
  for (int v = 0; v < nv; v++)
    st->mean[v] += (st->cmean[v] - st->mean[v]) * nb / nn;
  *n = nn;
}

/* Entry (v, w) and its standard error from the sums of n paths. */
static void entry(const state *st, double n, int v, int w, double *val, double *err) {
  int nv = st->nv, k = v * nv + w;
  if (n < 2) { /* (one path has no spread: not an exact-looking 0) */
    *val = NAN;
    *err = NAN;
    return;
  }
  /* central moments from the sums about ref: a, b the means of u and w */
  double a = st->s1[v] / n, b = st->s1[w] / n;
  double e11 = st->s11[k] / n, e21 = st->s21[k] / n, e12 = st->s12[k] / n, e22 = st->s22[k] / n;
  double e20 = st->s11[v * nv + v] / n, e02 = st->s11[w * nv + w] / n;
  double mu22 = e22 - 2 * b * e21 - 2 * a * e12 + b * b * e20 + a * a * e02 + 4 * a * b * e11 -
                3 * a * a * b * b;
  double c = st->cm[k] / n;
  *val = st->cm[k] / (n - 1);
  *err = mu22 > c * c ? sqrt((mu22 - c * c) / n) : 0;
}

static sdk_err cov_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  int nv = st->nv;
  const sdk_paths *P = c->paths;
  sdk_rowcache_reset(&st->rc);
  int64_t ns = c->nsamples_max, vv = (int64_t)nv * nv;
  int64_t total = P->nshards > 0 ? P->shard[P->nshards - 1].end : 0;
  int64_t per = c->R->ngrid > 0 ? total / c->R->ngrid : 0;
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    size_t nsum = 4 * (size_t)nv + 6 * (size_t)vv;
    memset(st->mean, 0, nsum * sizeof *st->mean);
    double n = 0;
    for (int64_t first = 0; first < per; first += SDK_RED_CHUNK) {
      int64_t len = per - first < SDK_RED_CHUNK ? per - first : SDK_RED_CHUNK;
      for (int v = 0; v < nv; v++)
        SDK_CHECK(sdk_paths_rows_cached(P, &st->rc, v, g * per + first, len,
                                        st->buf + v * SDK_RED_CHUNK, eb));
      fold_chunk(st, len, &n);
    }
    double *val = st->value + (g * ns + s) * vv, *err = st->error + (g * ns + s) * vv;
    for (int v = 0; v < nv; v++)
      for (int w = v; w < nv; w++) {
        entry(st, n, v, w, &val[v * nv + w], &err[v * nv + w]);
        val[w * nv + v] = val[v * nv + w];
        err[w * nv + v] = err[v * nv + w];
      }
  }
  sdk_obs_time_at(c, "cov", s, step);
  return SDK_OK;
}

/* Per grid point a block: t, then cov_V_W and its error for V <= W. */
static sdk_err cov_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  const sdk_dataset *t = sdk_store_find(&R->store, "cov/t");
  const sdk_dataset *dv = sdk_store_find(&R->store, "cov/value");
  const sdk_dataset *de = sdk_store_find(&R->store, "cov/error");
  if (!t || !dv || !de) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cov: incomplete results");
  int nv = R->nvars;
  int64_t ns = t->dims[t->rank - 1], vv = (int64_t)nv * nv;
  int np = nv * (nv + 1) / 2;
  char(*names)[160] = calloc(2 * (size_t)np, sizeof *names);
  const char **nm = calloc(2 * (size_t)np, sizeof *nm);
  double **cols = calloc(2 * (size_t)np, sizeof *cols);
  int ok = names && nm && cols;
  for (int k = 0; k < 2 * np && ok; k++)
    ok = (cols[k] = malloc((size_t)(R->ngrid * ns + 1) * sizeof **cols)) != NULL; /* +1: 0 */
  if (ok) {
    int k = 0;
    for (int v = 0; v < nv; v++)
      for (int w = v; w < nv; w++, k += 2) {
        snprintf(names[k], sizeof names[k], "cov_%s_%s", R->var_names[v], R->var_names[w]);
        snprintf(names[k + 1], sizeof names[k + 1], "cov_%s_%s_err", R->var_names[v],
                 R->var_names[w]);
        nm[k] = names[k];
        nm[k + 1] = names[k + 1];
        for (int64_t gs = 0; gs < R->ngrid * ns; gs++) {
          cols[k][gs] = sdk_ds_f64(dv)[gs * vv + v * nv + w];
          cols[k + 1][gs] = sdk_ds_f64(de)[gs * vv + v * nv + w];
        }
      }
  }
  sdk_err e = ok ? sdk_tsv_series(R, f, "cov", "\n\n", ns, sdk_ds_f64(t), 2 * np, nm,
                                  (const double *const *)cols, eb)
                 : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int k = 0; cols && k < 2 * np; k++)
    free(cols[k]);
  free(names), free(nm), free(cols);
  return e;
}

const sdk_obs_type sdk_obs_cov = {
    .name = "cov",
    .description = "covariance matrix of the variables (with standard errors) at every sample time",
    .flags = SDK_OBS_SAMPLED,
    .setup = cov_setup,
    .sample = cov_sample,
    .free = cov_free,
    .write_tsv = cov_tsv,
};
