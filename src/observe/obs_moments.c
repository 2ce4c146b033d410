/* moments: mean and variance of every variable over the paths of each grid
 * point, at every sample time.
 *
 *   moments/step               [nsamples] step of each sample
 *   moments/t                  [grid..., nsamples] step * dt
 *   moments/mean_VAR, var_VAR  [grid..., nsamples] (variance unbiased: n - 1)
 *   moments/mean_err_VAR       [grid..., nsamples] the standard error of the
 *                              mean, sqrt(var / n) over the n finite paths;
 *                              mean_VAR's standard_error names it
 *
 * The moments are Welford sums per chunk of SDK_RED_CHUNK paths merged in
 * chunk order (Chan et al.), on the backend; paths that are NaN/Inf are left
 * out (their grid point is then reported and set to NaN by the run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "observe/bias.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  double **mean, **var, **err; /* [v] -> [g][s] */
  sdk_moments *mom;            /* [g][v], when the run has none at hand */
  sdk_bias *bias;              /* [v]: --dt-check (observe/bias.h) */
} state;

static void moments_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->mean);
  free(st->var);
  free(st->err);
  free(st->mom);
  free(st->bias);
  free(st);
}

/* The error of the mean of X is moments/mean_err_X, the name of the mean of a
 * variable err_X: such a pair is refused (datasets keep the names of files
 * written so far). */
static sdk_err moments_names(const sdk_model *m, sdk_errbuf *eb) {
  for (int v = 0; v < m->nvars; v++)
    for (int w = 0; w < m->nvars; w++)
      if (!strncmp(m->vars[w], "err_", 4) && !strcmp(m->vars[w] + 4, m->vars[v]))
        return SDK_FAIL(eb, SDK_ERR_USAGE,
                        "--observe moments: variables '%s' and '%s' would both make the dataset "
                        "'moments/mean_err_%s' (the standard error of the mean of '%s', and the "
                        "mean of '%s'): rename '%s' (docs/API.md, names the results make)",
                        m->vars[v], m->vars[w], m->vars[v], m->vars[v], m->vars[w], m->vars[w]);
  return SDK_OK;
}

static sdk_err moments_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  int nv = c->model->nvars;
  *out = NULL;
  SDK_CHECK(moments_names(c->model, eb));
  SDK_CHECK(sdk_obs_check_size(c, "moments", 3.0 * nv, eb));
  state *st = calloc(1, sizeof *st);
  if (st) {
    st->mean = calloc((size_t)nv, sizeof *st->mean);
    st->var = calloc((size_t)nv, sizeof *st->var);
    st->err = calloc((size_t)nv, sizeof *st->err);
    st->mom = malloc((size_t)(c->R->ngrid * nv) * sizeof *st->mom);
    st->bias = calloc((size_t)(nv > 0 ? nv : 1), sizeof *st->bias);
  }
  *out = st;
  if (!st || !st->mean || !st->var || !st->err || !st->mom || !st->bias)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the moments");
  SDK_CHECK(sdk_obs_times(c, "moments", c->nsamples_max, eb));
  for (int v = 0; v < nv; v++) {
    char path[128];
    sdk_dataset *d;
    snprintf(path, sizeof path, "moments/mean_%s", c->model->vars[v]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &c->nsamples_max, 0, 0, &d, eb));
    st->mean[v] = sdk_ds_f64(d);
    char errname[96];
    snprintf(errname, sizeof errname, "mean_err_%s", c->model->vars[v]);
    SDK_CHECK(sdk_ds_attr_str(d, "standard_error", errname, eb));
    SDK_CHECK(sdk_bias_setup(c, "moments", path + 8, d, 1, &c->nsamples_max, 0, &st->bias[v], eb));
    snprintf(path, sizeof path, "moments/var_%s", c->model->vars[v]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &c->nsamples_max, 0, 0, &d, eb));
    st->var[v] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "moments/mean_err_%s", c->model->vars[v]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &c->nsamples_max, 0, 0, &d, eb));
    st->err[v] = sdk_ds_f64(d);
  }
  return SDK_OK;
}

static sdk_err moments_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step,
                              sdk_errbuf *eb) {
  state *st = p;
  int nv = c->model->nvars;
  const sdk_moments *mom = c->moments_now;
  if (!mom) {
    SDK_CHECK(sdk_paths_moments(c->paths, st->mom, NULL, eb));
    mom = st->mom;
  }
  int64_t ns = c->nsamples_max;
  for (int64_t g = 0; g < c->R->ngrid; g++)
    for (int v = 0; v < nv; v++) {
      const sdk_moments *m = &mom[g * nv + v];
      st->mean[v][g * ns + s] = m->mean;
      /* (one path has no spread to measure: NaN, not an exact-looking 0) */
      double var = m->n > 1 ? m->m2 / (m->n - 1) : NAN;
      st->var[v][g * ns + s] = var;
      st->err[v][g * ns + s] = sdk_se_mean(m->n, m->m2);
    }
  if (c->dt_check) { /* the coupled differences of the variables (observe/bias.h) */
    sdk_moments *d;
    int n = c->nobs_eval, k0 = 2 * c->model->nobs;
    sdk_err e = sdk_bias_moments(c, step, &d, eb);
    for (int64_t g = 0; g < c->R->ngrid && e == SDK_OK; g++)
      for (int v = 0; v < nv; v++)
        sdk_bias_set(c, &st->bias[v], g * ns + s, &d[g * n + k0 + v], 1, &st->mean[v][g * ns + s],
                     &st->err[v][g * ns + s]);
    free(d);
    SDK_CHECK(e);
  }
  sdk_obs_time_at(c, "moments", s, step);
  return SDK_OK;
}

static sdk_err moments_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  return sdk_tsv_var_cols(R, f, "moments", "mean", "var", "mean_err", eb);
}

const sdk_obs_type sdk_obs_moments = {
    .name = "moments",
    .description =
        "mean (with its standard error) and variance of every variable at every sample time",
    .flags = SDK_OBS_SAMPLED | SDK_OBS_MOMENTS_NOW | SDK_OBS_BIAS,
    .setup = moments_setup,
    .sample = moments_sample,
    .free = moments_free,
    .write_tsv = moments_tsv,
};
