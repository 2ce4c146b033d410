#include "observe/observable.h"
#include "observe/obs_corr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sdk_err sdk_obs_dataset(const sdk_obs_ctx *c, const char *path, sdk_dtype type, int nextra,
                        const int64_t *extra, int sample_axis, unsigned flags, sdk_dataset **out,
                        sdk_errbuf *eb) {
  const sdk_results *R = c->R;
  int64_t dims[SDK_DS_MAX_RANK];
  int rank = 0;
  if (R->nscan + nextra > SDK_DS_MAX_RANK)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "dataset '%s' would have %d dimensions (%d scan axes and %d of its own), "
                    "more than %d: scan fewer axes (zip parameters that move together)",
                    path, R->nscan + nextra, R->nscan, nextra, SDK_DS_MAX_RANK);
  for (int i = 0; i < R->nscan; i++)
    dims[rank++] = R->scan[i].n;
  for (int i = 0; i < nextra; i++)
    dims[rank++] = extra[i];
  return sdk_store_add(c->store, path, type, rank, dims, R->nscan,
                       sample_axis < 0 ? -1 : R->nscan + sample_axis, flags, out, eb);
}

sdk_err sdk_obs_times(const sdk_obs_ctx *c, const char *group, int64_t nsamples, sdk_errbuf *eb) {
  char path[256];
  sdk_dataset *d;
  snprintf(path, sizeof path, "%s/step", group);
  SDK_CHECK(sdk_store_add(c->store, path, SDK_I64, 1, &nsamples, 0, 0, SDK_DS_COORD, &d, eb));
  snprintf(path, sizeof path, "%s/t", group);
  return sdk_obs_dataset(c, path, SDK_F64, 1, &nsamples, 0, SDK_DS_COORD, &d, eb);
}

void sdk_obs_time_at(const sdk_obs_ctx *c, const char *group, int64_t s, int64_t step) {
  sdk_dataset *st = sdk_store_findf(c->store, "%s/step", group);
  sdk_dataset *t = sdk_store_findf(c->store, "%s/t", group);
  if (!st || !t) return;
  int64_t ns = st->dims[0];
  sdk_ds_i64(st)[s] = step;
  /* (--sample-times: the times as given, each within SDK_TIME_TOL of its step) */
  const double *given = s < c->R->nsample_times ? c->R->sample_times : NULL;
  for (int64_t g = 0; g < c->R->ngrid; g++)
    sdk_ds_f64(t)[g * ns + s] = given ? given[s] : (double)step * c->R->dt[g];
}

sdk_err sdk_obs_var(const sdk_obs_ctx *c, const char *option, const char *name, int *v,
                    sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  *v = name ? sdk_model_var_index(m, name) : 0;
  if (*v >= 0) return SDK_OK;
  char *known = sdk_model_var_list(m);
  sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE, "%s %s: model '%s' has no variable '%s' (variables: %s)",
                       option, name, m->name, name, known ? known : "?");
  free(known);
  return e;
}

static int obs_index(const sdk_model *m, const char *name) {
  for (int k = 0; name && k < m->nobs; k++)
    if (!strcmp(m->obs_names[k], name)) return k;
  return -1;
}

sdk_err sdk_obs_quantity(const sdk_obs_ctx *c, const char *option, const char *name, int *q,
                         sdk_errbuf *eb) {
  int k = obs_index(c->model, name);
  if (k >= 0 && sdk_model_var_index(c->model, name) < 0) {
    *q = c->model->nvars + k;
    return SDK_OK;
  }
  return sdk_obs_var(c, option, name, q, eb);
}

const char *sdk_obs_quantity_name(const sdk_model *m, int q) {
  return q < m->nvars ? m->vars[q] : m->obs_names[q - m->nvars];
}

sdk_err sdk_obs_check_size(const sdk_obs_ctx *c, const char *what, double nper, sdk_errbuf *eb) {
  double nsmp = (double)c->nsamples_max, vals = (double)c->R->ngrid * nsmp * nper;
  if (vals <= (double)SDK_MAX_SAMPLE_VALUES) return SDK_OK;
  (void)what;
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "%.4g samples x %lld grid points would hold %.4g values, more than the "
                  "maximum of %lld (SDK_MAX_SAMPLE_VALUES): give a larger --sample-every",
                  nsmp, (long long)c->R->ngrid, vals, (long long)SDK_MAX_SAMPLE_VALUES);
}

sdk_err sdk_observe_opts_check(const sdk_observe_opts *o, const sdk_model *m, const sdk_results *R,
                               sdk_errbuf *eb) {
  SDK_CHECK(sdk_corr_opts_check(o, R, eb));
  for (int i = 0; i < o->nhist_range; i++) {
    if (sdk_model_var_index(m, o->hist_range_var[i]) < 0 &&
        obs_index(m, o->hist_range_var[i]) < 0) {
      char *known = sdk_model_var_list(m);
      sdk_err e = SDK_FAIL(
          eb, SDK_ERR_USAGE, "--hist-range %s: model '%s' has no variable '%s' (variables: %s)",
          o->hist_range_var[i], m->name, o->hist_range_var[i], known ? known : "?");
      free(known);
      return e;
    }
    if (!(o->hist_range_hi[i] > o->hist_range_lo[i]))
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--hist-range %s: HI must be greater than LO",
                      o->hist_range_var[i]);
  }
  return SDK_OK;
}

typedef struct {
  const double *pv;
  const int *scanned;
  int hit_scan;
} pctx;

static double pval(void *user, sdk_symkind k, int idx) {
  pctx *c = user;
  if (k != SDK_SYM_PARAM) return NAN;
  if (c->scanned && c->scanned[idx] >= 0) c->hit_scan = 1;
  return c->pv[idx];
}

double sdk_var_period(const sdk_model *m, int v, const double *pvalues, const int *scanned) {
  if (v < 0 || v >= m->nvars || !m->var_period || !m->var_period[v]) return 0;
  pctx c = {pvalues, scanned, 0};
  double p = sdk_expr_eval(m->var_period[v], pval, &c);
  return c.hit_scan ? NAN : p;
}

void sdk_obs_grid_params(const sdk_obs_ctx *c, int64_t g, double *pv) {
  for (int i = 0; i < c->model->nparams; i++)
    pv[i] = c->scan_column[i] >= 0 ? c->sv[g * c->nsv + c->scan_column[i]] : c->param_values[i];
}

sdk_err sdk_obs_no_windows(const sdk_obs_ctx *c, const char *name, const char *why,
                           sdk_errbuf *eb) {
  if (!c->windowed) return SDK_OK;
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "--observe %s cannot be run in batches of paths (--target-se, --target-rse, "
                  "--mlmc): %s",
                  name, why);
}

int sdk_obs_group_names(const sdk_results *R, const char *group, const char *attr, char names[][64],
                        int max) {
  const sdk_group_attrs *ga = sdk_store_group(&R->store, group);
  const sdk_attr *a = ga ? sdk_attr_find(ga->attr, ga->nattr, attr) : NULL;
  if (!a || a->kind != SDK_ATTR_STR) return 0;
  int n = 0;
  const char *s = a->s;
  while (*s && n < max) {
    size_t k = strcspn(s, ",");
    snprintf(names[n++], 64, "%.*s", (int)(k < 63 ? k : 63), s);
    s += k + (s[k] == ',');
  }
  return n;
}
