/* The time-step bias of the observables' values (bias.h). */
#include "observe/bias.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* p < 0: the scheme's weak order (attribute weak_order), else p (order) */
static sdk_err setup(const sdk_obs_ctx *c, const char *group, const char *name, sdk_dataset *value,
                     int nextra, const int64_t *extra, int sample_axis, double p, sdk_bias *b,
                     sdk_errbuf *eb) {
  b->bias = b->err = NULL;
  b->order = p < 0 ? c->weak_order : p;
  if (!c->dt_check) return SDK_OK;
  if (c->extrapolate) SDK_CHECK(sdk_ds_attr_i64(value, "extrapolated", 1, eb));
  char path[160], err[128];
  sdk_dataset *d;
  snprintf(err, sizeof err, "bias_err_%s", name);
  snprintf(path, sizeof path, "%s/bias_%s", group, name);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, nextra, extra, sample_axis, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
  if (p < 0)
    SDK_CHECK(sdk_ds_attr_i64(d, "weak_order", c->weak_order, eb));
  else
    SDK_CHECK(sdk_ds_attr_f64(d, "order", p, eb));
  b->bias = sdk_ds_f64(d);
  snprintf(path, sizeof path, "%s/%s", group, err);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, nextra, extra, sample_axis, 0, &d, eb));
  b->err = sdk_ds_f64(d);
  return SDK_OK;
}

sdk_err sdk_bias_setup(const sdk_obs_ctx *c, const char *group, const char *name,
                       sdk_dataset *value, int nextra, const int64_t *extra, int sample_axis,
                       sdk_bias *b, sdk_errbuf *eb) {
  return setup(c, group, name, value, nextra, extra, sample_axis, -1, b, eb);
}

sdk_err sdk_bias_setup_order(const sdk_obs_ctx *c, const char *group, const char *name,
                             sdk_dataset *value, int nextra, const int64_t *extra, int sample_axis,
                             double p, sdk_bias *b, sdk_errbuf *eb) {
  return setup(c, group, name, value, nextra, extra, sample_axis, p, b, eb);
}

void sdk_bias_set(const sdk_obs_ctx *c, const sdk_bias *b, int64_t i, const sdk_moments *d,
                  double scale, double *v, double *err) {
  if (!b->bias) return;
  double den = pow(2.0, b->order) - 1; /* (exact for whole p: 2^p - 1 as before) */
  double bias = d->n > 0 ? d->mean * scale / den : NAN;
  double se = sdk_se_mean(d->n, d->m2) * fabs(scale) / den;
  b->bias[i] = bias;
  b->err[i] = se;
  if (!c->extrapolate) return;
  *v -= bias;
  *err += se;
}

sdk_err sdk_bias_moments(const sdk_obs_ctx *c, int64_t step, sdk_moments **out, sdk_errbuf *eb) {
  int n = c->nobs_eval;
  *out = malloc((size_t)(c->R->ngrid * (n > 0 ? n : 1)) * sizeof **out);
  if (!*out) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  return sdk_paths_observe(c->paths, step, n, *out, NULL, NULL, eb);
}
