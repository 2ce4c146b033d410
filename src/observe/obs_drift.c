/* drift: the time-averaged velocity <<v>> of one variable (the paper's
 * Eq. 4): for every path the displacement x(T) - x(T0) of the variable over
 * the drift window [T0, T] (after the transient), divided by T - T0, averaged
 * over the paths of each grid point with its standard error.
 *
 *   drift/value, drift/error   [grid...]; attribute var (also on /drift);
 *                              drift/value's standard_error names "error"
 *
 * Computed as moments of (x - x(T0)) on the backend, so the paths of a
 * running phase lose no digits to |x| >> the displacement's error. */
#include <math.h>
#include <stdlib.h>

#include "observe/bias.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int var;
  double *value, *error;
  sdk_bias bias; /* --dt-check (observe/bias.h) */
} state;

static void drift_free(void *p) {
  free(p);
}

static sdk_err drift_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  SDK_CHECK(sdk_obs_var(c, "--drift", c->opts->drift_var, &st->var, eb));
  const char *vn = c->model->vars[st->var];
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(c, "drift/value", SDK_F64, 0, NULL, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "var", vn, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "standard_error", "error", eb));
  st->value = sdk_ds_f64(d);
  SDK_CHECK(sdk_bias_setup(c, "drift", "value", d, 0, NULL, -1, &st->bias, eb));
  SDK_CHECK(sdk_obs_dataset(c, "drift/error", SDK_F64, 0, NULL, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "var", vn, eb));
  st->error = sdk_ds_f64(d);
  return sdk_store_group_str(c->store, "drift", "var", vn, eb);
}

static sdk_err drift_mark(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  return sdk_paths_mark(c->paths, st->var, eb);
}

static sdk_err drift_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_results *R = c->R;
  sdk_moments *m = malloc((size_t)R->ngrid * sizeof *m);
  if (!m) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = sdk_paths_displacement(c->paths, st->var, 1.0, m, eb);
  for (int64_t g = 0; g < R->ngrid && e == SDK_OK; g++) {
    double T = (double)(R->nsteps - R->transient_steps) * R->dt[g];
    st->value[g] = m[g].mean / T;
    st->error[g] = sdk_se_mean(m[g].n, m[g].m2) / T;
  }
  free(m);
  if (e != SDK_OK || !c->dt_check) return e;
  /* the coupled difference of the displacement since the transient's end
   * (codegen.h: the coarse path's origin, step dtc_mark) */
  sdk_moments *d;
  int n = c->nobs_eval, k = 2 * c->model->nobs + c->model->nvars + st->var;
  e = sdk_bias_moments(c, R->nsteps, &d, eb);
  for (int64_t g = 0; g < R->ngrid && e == SDK_OK; g++) {
    double T = (double)(R->nsteps - R->transient_steps) * R->dt[g];
    sdk_bias_set(c, &st->bias, g, &d[g * n + k], 1 / T, &st->value[g], &st->error[g]);
  }
  free(d);
  return e;
}

static sdk_err drift_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char b1[32], b2[32];
  const sdk_dataset *dv = sdk_store_find(&R->store, "drift/value"),
                    *de = sdk_store_find(&R->store, "drift/error");
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "drift");
  if (!dv || !de || !ga || ga->nattr < 1)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "drift: incomplete results");
  const char *vn = ga->attr[0].s;
  fprintf(f, "# drift of: %s\n", vn);
  /* grid points that blew up (NaN values) get their count of non-finite paths */
  const double *bias, *berr;
  int hb = sdk_tsv_bias_cols(R, "drift", "value", &bias, &berr);
  SDK_CHECK(sdk_tsv_header(R, f, "drift", eb, "drift_%s\tdrift_%s_err%s%s", vn, vn,
                           hb ? "\tbias\tbias_err" : "", R->nonfinite ? "\tnonfinite" : ""));
  for (int64_t g = 0; g < R->ngrid; g++) {
    /* 2-D scan: a blank line where axis 0 changes (splot); more: blocks */
    sdk_tsv_grid_break(R, g, f);
    sdk_tsv_coords(R, g, f);
    fprintf(f, "%s\t%s", sdk_fmt_stat(b1, sdk_ds_f64(dv)[g]), sdk_fmt_stat(b2, sdk_ds_f64(de)[g]));
    if (hb) fprintf(f, "\t%s\t%s", sdk_fmt_stat(b1, bias[g]), sdk_fmt_stat(b2, berr[g]));
    if (R->nonfinite) fprintf(f, "\t%lld", (long long)R->nonfinite[g]);
    fputc('\n', f);
  }
  return SDK_OK;
}

const sdk_obs_type sdk_obs_drift = {
    .name = "drift",
    .description = "time-averaged velocity <<v>> of one variable with its standard error",
    .flags = SDK_OBS_BIAS,
    .setup = drift_setup,
    .transient_end = drift_mark,
    .finish = drift_finish,
    .free = drift_free,
    .write_tsv = drift_tsv,
};
