/* paths: the variables of chosen paths (--save-paths I,J,...: indices within
 * each grid point) at every sample time.
 *
 *   paths/index      [nsaved] the path indices
 *   paths/step       [nsamples]
 *   paths/t          [grid..., nsamples]
 *   paths/VAR        [grid..., nsaved, nsamples]
 *
 * The nsaved dimension is called "path" (the dimension names: observe/store.h).
 */
#include <stdlib.h>
#include <string.h>

#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int nv, nsaved;
  double **x; /* [v] -> [g][k][s] */
  double *buf;
} state;

static void paths_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->x);
  free(st->buf);
  free(st);
}

static sdk_err paths_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_observe_opts *o = c->opts;
  int nv = c->model->nvars;
  SDK_CHECK(sdk_obs_no_windows(c, "paths (--save-paths)",
                               "the saved paths would be those of one batch; save them from a run "
                               "with a fixed --paths",
                               eb));
  for (int k = 0; k < o->nsave; k++)
    if (o->save_index[k] < 0 || o->save_index[k] >= c->ppg)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--save-paths: path %lld does not exist (paths are 0..%lld)",
                      (long long)o->save_index[k], (long long)c->ppg - 1);
  SDK_CHECK(sdk_obs_check_size(c, "paths", (double)nv * (double)o->nsave, eb));
  /* paths/VAR beside the indices and sample steps of the saved paths */
  for (int v = 0; v < nv; v++)
    if (!strcmp(c->model->vars[v], "index") || !strcmp(c->model->vars[v], "step"))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--save-paths: variable '%s' would make the dataset 'paths/%s', the %s of "
                      "the saved paths: rename the variable (docs/API.md, names the results make)",
                      c->model->vars[v], c->model->vars[v],
                      c->model->vars[v][0] == 'i' ? "indices" : "sample steps");
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st || !(st->x = calloc((size_t)nv, sizeof *st->x)) ||
      !(st->buf = malloc((size_t)nv * sizeof *st->buf)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the saved paths");
  st->nv = nv;
  st->nsaved = o->nsave;
  sdk_dataset *d;
  int64_t nk = o->nsave, ks[2] = {nk, c->nsamples_max};
  SDK_CHECK(sdk_store_add(c->store, "paths/index", SDK_I64, 1, &nk, 0, -1, SDK_DS_COORD, &d, eb));
  SDK_CHECK(sdk_ds_dim_name(d, 0, "path", eb));
  for (int k = 0; k < o->nsave; k++)
    sdk_ds_i64(d)[k] = o->save_index[k];
  SDK_CHECK(sdk_obs_times(c, "paths", c->nsamples_max, eb));
  for (int v = 0; v < nv; v++) {
    char path[96];
    snprintf(path, sizeof path, "paths/%s", c->model->vars[v]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 2, ks, 1, SDK_DS_COMPRESS, &d, eb));
    SDK_CHECK(sdk_ds_dim_name(d, d->grid_rank, "path", eb));
    st->x[v] = sdk_ds_f64(d);
  }
  return SDK_OK;
}

static sdk_err paths_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step,
                            sdk_errbuf *eb) {
  state *st = p;
  int64_t ns = c->nsamples_max, nk = st->nsaved;
  for (int64_t g = 0; g < c->R->ngrid; g++)
    for (int64_t q = 0; q < nk; q++) {
      int64_t first = g * c->ppg + c->opts->save_index[q];
      for (int v = 0; v < st->nv; v++)
        SDK_CHECK(sdk_paths_rows(c->paths, v, first, 1, &st->buf[v], 0, eb));
      for (int v = 0; v < st->nv; v++)
        st->x[v][(g * nk + q) * ns + s] = st->buf[v];
    }
  sdk_obs_time_at(c, "paths", s, step);
  return SDK_OK;
}

static sdk_err paths_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char b[32];
  const sdk_store *S = &R->store;
  const sdk_dataset *ix = sdk_store_find(S, "paths/index"), *t = sdk_store_find(S, "paths/t");
  if (!ix || !t) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "paths: incomplete results");
  int64_t nk = ix->dims[0], ns = t->dims[t->rank - 1], nv = R->nvars;
  const double **x = calloc((size_t)nv, sizeof *x);
  if (!x) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int64_t v = 0; v < nv; v++)
    x[v] = sdk_ds_f64(sdk_store_findf(S, "paths/%s", R->var_names[v]));
  sdk_strbuf h;
  sdk_sb_init(&h);
  sdk_sb_puts(&h, "path\tt");
  for (int64_t v = 0; v < nv; v++)
    sdk_sb_printf(&h, "\t%s", R->var_names[v]);
  sdk_err e = h.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                    : sdk_tsv_header(R, f, "paths", eb, "%s", h.s ? h.s : "");
  sdk_sb_free(&h);
  if (e != SDK_OK) {
    free(x);
    return e;
  }
  for (int64_t g = 0; g < R->ngrid; g++)
    for (int64_t k = 0; k < nk; k++) {
      if (g > 0 || k > 0) fputs("\n\n", f);
      for (int64_t s = 0; s < ns; s++) {
        sdk_tsv_coords(R, g, f);
        fprintf(f, "%lld\t%s", (long long)sdk_ds_i64(ix)[k],
                sdk_fmt_stat(b, sdk_ds_f64(t)[g * ns + s]));
        for (int64_t v = 0; v < nv; v++)
          fprintf(f, "\t%s", sdk_fmt_stat(b, x[v] ? x[v][(g * nk + k) * ns + s] : 0));
        fputc('\n', f);
      }
    }
  free(x);
  return SDK_OK;
}

const sdk_obs_type sdk_obs_paths = {
    .name = "paths",
    .description = "the variables of chosen paths at every sample time (--save-paths)",
    .flags = SDK_OBS_SAMPLED | SDK_OBS_BY_OPTION,
    .setup = paths_setup,
    .sample = paths_sample,
    .free = paths_free,
    .write_tsv = paths_tsv,
};
