/* range: the smallest and the largest value of every variable over the paths
 * of each grid point, at every sample time (how far the ensemble has spread;
 * what --hist-range should cover).  Paths that are NaN are left out.
 *
 *   range/step               [nsamples]
 *   range/t                  [grid..., nsamples]
 *   range/min_VAR, max_VAR   [grid..., nsamples]
 */
#include <stdlib.h>

#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int nv;
  double **min, **max; /* [v] -> [g][s] */
  double *lo, *hi;     /* [g] */
} state;

static void range_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->min), free(st->max), free(st->lo), free(st->hi);
  free(st);
}

static sdk_err range_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  int nv = c->model->nvars;
  int64_t ng = c->R->ngrid, ns = c->nsamples_max;
  SDK_CHECK(sdk_obs_check_size(c, "range", 2.0 * nv, eb));
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st || !(st->min = calloc((size_t)nv, sizeof *st->min)) ||
      !(st->max = calloc((size_t)nv, sizeof *st->max)) ||
      !(st->lo = malloc((size_t)ng * sizeof *st->lo)) ||
      !(st->hi = malloc((size_t)ng * sizeof *st->hi)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the range");
  st->nv = nv;
  SDK_CHECK(sdk_obs_times(c, "range", ns, eb));
  for (int v = 0; v < nv; v++) {
    char path[96];
    sdk_dataset *d;
    snprintf(path, sizeof path, "range/min_%s", c->model->vars[v]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &ns, 0, 0, &d, eb));
    st->min[v] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "range/max_%s", c->model->vars[v]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &ns, 0, 0, &d, eb));
    st->max[v] = sdk_ds_f64(d);
  }
  return SDK_OK;
}

static sdk_err range_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step,
                            sdk_errbuf *eb) {
  state *st = p;
  int64_t ns = c->nsamples_max;
  for (int v = 0; v < st->nv; v++) {
    SDK_CHECK(sdk_paths_minmax(c->paths, v, st->lo, st->hi, eb));
    for (int64_t g = 0; g < c->R->ngrid; g++) {
      st->min[v][g * ns + s] = st->lo[g];
      st->max[v][g * ns + s] = st->hi[g];
    }
  }
  sdk_obs_time_at(c, "range", s, step);
  return SDK_OK;
}

static sdk_err range_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  return sdk_tsv_var_pairs(R, f, "range", "min", "max", eb);
}

const sdk_obs_type sdk_obs_range = {
    .name = "range",
    .description = "smallest and largest value of every variable at every sample time",
    .flags = SDK_OBS_SAMPLED,
    .setup = range_setup,
    .sample = range_sample,
    .free = range_free,
    .write_tsv = range_tsv,
};
