/* expr: the user observables of the model ([observe] NAME = EXPR and
 * --observe-expr NAME=EXPR, model.h), averaged over the paths of each grid
 * point at every sample time, with the standard error of the mean.
 *
 *   expr/step                  [nsamples]
 *   expr/t                     [grid..., nsamples]
 *   expr/mean_NAME             [grid..., nsamples] the mean over the paths;
 *                              its standard_error names "err_NAME"
 *   expr/err_NAME              [grid..., nsamples] sqrt(var / n), var the
 *                              unbiased path-to-path variance (n - 1)
 *   /expr: attribute names     the NAMEs in order
 *
 * The module evaluates every expression per path on the device (codegen/
 * observe_paths.c) and the backend reduces the values as it reduces the
 * variables (Welford sums per chunk merged in chunk order): bitwise the same
 * for any thread count or cut into shards.  A value that is NaN/Inf (a
 * path that blew up, or log of a negative) is left out of n. */
#include <math.h>
#include <stdlib.h>

#include "observe/bias.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int n;
  double **mean, **err; /* [k] -> [g][s] */
  sdk_moments *mom;     /* [g][k] */
  sdk_bias *bias;       /* [k]: --dt-check (observe/bias.h) */
} state;

static void expr_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->mean), free(st->err), free(st->mom), free(st->bias);
  free(st);
}

static sdk_err expr_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  int n = m->nobs;
  int64_t ns = c->nsamples_max;
  *out = NULL;
  if (n == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe expr: model '%s' has no user observables (give [observe] NAME = "
                    "EXPR in the model or --observe-expr NAME=EXPR)",
                    m->name);
  if (c->systems)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe expr: user observables are computed for independent paths only, "
                    "not systems of particles");
  SDK_CHECK(sdk_obs_check_size(c, "expr", 2.0 * n, eb));
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st || !(st->mean = calloc((size_t)n, sizeof *st->mean)) ||
      !(st->err = calloc((size_t)n, sizeof *st->err)) ||
      !(st->mom = malloc((size_t)(c->R->ngrid * n) * sizeof *st->mom)) ||
      !(st->bias = calloc((size_t)n, sizeof *st->bias)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the user observables");
  st->n = n;
  SDK_CHECK(sdk_obs_times(c, "expr", ns, eb));
  for (int k = 0; k < n; k++) {
    char path[128], err[96];
    sdk_dataset *d;
    snprintf(err, sizeof err, "err_%s", m->obs_names[k]);
    snprintf(path, sizeof path, "expr/mean_%s", m->obs_names[k]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &ns, 0, 0, &d, eb));
    SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
    st->mean[k] = sdk_ds_f64(d);
    SDK_CHECK(sdk_bias_setup(c, "expr", path + 5, d, 1, &ns, 0, &st->bias[k], eb));
    snprintf(path, sizeof path, "expr/%s", err);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &ns, 0, 0, &d, eb));
    st->err[k] = sdk_ds_f64(d);
  }
  return sdk_store_group_strs(c->store, "expr", "names", (const char *const *)m->obs_names, n, eb);
}

static sdk_err expr_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  int64_t ns = c->nsamples_max;
  const sdk_moments *mom = c->observe_now;
  sdk_moments *all = NULL; /* --dt-check: the values and their coupled differences */
  int n = st->n;
  if (c->dt_check) {
    sdk_err e = sdk_bias_moments(c, step, &all, eb);
    if (e != SDK_OK) free(all);
    SDK_CHECK(e);
    mom = all, n = c->nobs_eval;
  } else if (!mom) {
    SDK_CHECK(sdk_paths_observe(c->paths, step, st->n, st->mom, NULL, NULL, eb));
    mom = st->mom;
  }
  for (int64_t g = 0; g < c->R->ngrid; g++)
    for (int k = 0; k < st->n; k++) {
      const sdk_moments *m = &mom[g * n + k];
      st->mean[k][g * ns + s] = m->n > 0 ? m->mean : NAN;
      st->err[k][g * ns + s] = sdk_se_mean(m->n, m->m2);
      if (all)
        sdk_bias_set(c, &st->bias[k], g * ns + s, &mom[g * n + st->n + k], 1,
                     &st->mean[k][g * ns + s], &st->err[k][g * ns + s]);
    }
  free(all);
  sdk_obs_time_at(c, "expr", s, step);
  return SDK_OK;
}

static sdk_err expr_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "expr");
  const sdk_attr *a = ga ? sdk_attr_find(ga->attr, ga->nattr, "names") : NULL;
  const sdk_dataset *t = sdk_store_find(&R->store, "expr/t");
  if (!a || a->kind != SDK_ATTR_STRS || !t)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "expr: incomplete results");
  int nc = 2 * (int)a->nstr;
  char(*names)[80] = calloc((size_t)nc, sizeof *names);
  const char **np = calloc((size_t)nc, sizeof *np);
  const double **cols = calloc((size_t)nc, sizeof *cols);
  sdk_err e = names && np && cols ? SDK_OK : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int k = 0; k < nc && e == SDK_OK; k++) {
    snprintf(names[k], sizeof names[k], "%s_%s", k % 2 ? "err" : "mean", a->strs[k / 2]);
    np[k] = names[k];
    if (!(cols[k] = sdk_ds_f64(sdk_store_findf(&R->store, "expr/%s", names[k]))))
      e = SDK_FAIL(eb, SDK_ERR_INTERNAL, "expr: no %s", names[k]);
  }
  if (e == SDK_OK)
    e = sdk_tsv_series(R, f, "expr", "\n\n", t->dims[t->rank - 1], sdk_ds_f64(t), nc, np, cols, eb);
  free(names), free(np), free(cols);
  return e;
}

const sdk_obs_type sdk_obs_expr = {
    .name = "expr",
    .description = "mean and standard error of every user observable ([observe]) at every "
                   "sample time",
    .flags = SDK_OBS_SAMPLED | SDK_OBS_BY_MODEL | SDK_OBS_OBSERVE_NOW | SDK_OBS_BIAS,
    .setup = expr_setup,
    .sample = expr_sample,
    .free = expr_free,
    .write_tsv = expr_tsv,
};
