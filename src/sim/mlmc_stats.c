/* --mlmc and --target-error: the statistics read from the levels' runs
 * (sim/mlmc_internal.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/mlmc_internal.h"

/* The values of a run's results that have a measured bias (the datasets
 * GROUP/bias_NAME of --dt-check) and are one number per grid point, or a
 * series whose last sample is t_end. */
int sdk_mlmc_scalar_shape(const sdk_dataset *v) {
  if (v->type != SDK_F64) return 0;
  if (v->sample_axis < 0) return v->rank == v->grid_rank;
  return v->rank == v->grid_rank + 1 && v->sample_axis == v->rank - 1;
}

sdk_err sdk_mlmc_find_quantities(drv *d, const sdk_results *R, sdk_errbuf *eb) {
  d->nq = 0;
  for (int i = 0; i < R->store.n; i++) {
    const char *path = R->store.ds[i]->path, *slash = strrchr(path, '/');
    if (!slash || strncmp(slash + 1, "bias_", 5) || !strncmp(slash + 1, "bias_err_", 9)) continue;
    int glen = (int)(slash - path);
    quantity *q = &d->q[d->nq];
    snprintf(q->value, sizeof q->value, "%.*s/%s", glen, path, slash + 6);
    snprintf(q->bias, sizeof q->bias, "%s", path);
    snprintf(q->bias_err, sizeof q->bias_err, "%.*s/bias_err_%s", glen, path, slash + 6);
    snprintf(q->name, sizeof q->name, "%.*s_%s", glen, path, slash + 6);
    const sdk_dataset *v = sdk_store_find(&R->store, q->value);
    const sdk_attr *a = v ? sdk_attr_find(v->attr, v->nattr, "standard_error") : NULL;
    if (!v || !a || a->kind != SDK_ATTR_STR || !sdk_mlmc_scalar_shape(v)) continue;
    snprintf(q->err, sizeof q->err, "%.*s/%s", glen, path, a->s);
    /* the order of the bias (first-passage values: 1 or 1/2, observe/bias.c) */
    const sdk_dataset *bd = R->store.ds[i];
    const sdk_attr *wo = sdk_attr_find(bd->attr, bd->nattr, "weak_order");
    const sdk_attr *o = sdk_attr_find(bd->attr, bd->nattr, "order");
    q->decay = ldexp(1.0, d->p);
    if (wo && wo->kind == SDK_ATTR_I64) q->decay = ldexp(1.0, (int)wo->i);
    if (o && o->kind == SDK_ATTR_F64) q->decay = pow(2.0, o->f);
    if (++d->nq == MAX_Q)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: more than %d values to estimate", d->opt, MAX_Q);
  }
  if (d->nq == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: the observables give no value to estimate (moments, expr, drift, tavg)",
                    d->opt);
  return SDK_OK;
}

/* the element of a value-shaped dataset at grid point g and t_end */
double sdk_mlmc_at(const sdk_results *R, const char *path, int64_t g) {
  const sdk_dataset *v = sdk_store_find(&R->store, path);
  if (!v || !sdk_mlmc_scalar_shape(v)) return NAN;
  int64_t ns = v->sample_axis >= 0 ? v->dims[v->sample_axis] : 1;
  if (ns < 1) return NAN;
  return sdk_ds_f64(v)[g * ns + ns - 1];
}

int64_t sdk_mlmc_used_of(const sdk_results *R, const level *v, int64_t g) {
  const sdk_dataset *u = sdk_store_find(&R->store, "paths_used");
  return u && sdk_ds_i64(u) ? sdk_ds_i64(u)[g] : v->used[g];
}

/* The mean and variance per path of what level l estimates for quantity q
 * at grid point g: P_0 at level 0 (--mlmc), Y_l = P_l - P_(l-1) above. */
void sdk_mlmc_stats(const drv *d, int l, int q, int64_t g, double *mean, double *var) {
  const level *v = &d->lev[l];
  const sdk_results *R = &v->run->r;
  double n = (double)sdk_mlmc_used_of(R, v, g);
  if (l == 0 && !d->te) {
    double se = sdk_mlmc_at(R, d->q[q].err, g);
    *mean = sdk_mlmc_at(R, d->q[q].value, g), *var = se * se * n;
    return;
  }
  const double den = d->q[q].decay - 1; /* (the bias is the difference over 2^p - 1) */
  double se = den * sdk_mlmc_at(R, d->q[q].bias_err, g);
  *mean = -den * sdk_mlmc_at(R, d->q[q].bias, g), *var = se * se * n;
}
