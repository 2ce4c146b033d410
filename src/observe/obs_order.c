/* order: the order parameter of systems of particles (Kuramoto's r, the
 * paper's Eq. 3) of the first variable declared periodic, x of period P:
 * every system's Z = (1/N) sum_i exp(2 pi i x_i / P) is reduced by the
 * system kernel on the device (fused with the mean-field sums); every
 * `every` steps the run hands over, per grid point, the sums over its systems
 * of |Z|, |Z|^2, Re Z and Im Z, from which
 *   r     = mean over systems of |Z|
 *   r_err = its standard error over systems (NaN with one system)
 *   psi   = arg(mean over systems of Z)
 *
 *   order/step             [nsamples]
 *   order/t, r, r_err, psi [grid..., nsamples]; order/r's standard_error names "r_err"
 *   order                  attributes var, period, particles, systems, every
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int64_t nmax;
  int64_t *step;
  double *t, *r, *err, *psi;
} state;

static void order_free(void *p) {
  free(p);
}

static sdk_err order_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (c->sums_var < 0 || c->sums_every < 1)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "order: the system kernel reduces no phase sums");
  st->nmax = c->R->nsteps / c->sums_every + 1;
  SDK_CHECK(sdk_obs_times(c, "order", st->nmax, eb));
  st->step = sdk_ds_i64(sdk_store_find(c->store, "order/step"));
  st->t = sdk_ds_f64(sdk_store_find(c->store, "order/t"));
  double **dst[3] = {&st->r, &st->err, &st->psi};
  const char *name[3] = {"order/r", "order/r_err", "order/psi"};
  for (int k = 0; k < 3; k++) {
    sdk_dataset *d;
    SDK_CHECK(sdk_obs_dataset(c, name[k], SDK_F64, 1, &st->nmax, 0, 0, &d, eb));
    *dst[k] = sdk_ds_f64(d);
    if (k == 0) SDK_CHECK(sdk_ds_attr_str(d, "standard_error", "r_err", eb));
  }
  int64_t np = c->R->particles > 0 ? c->R->particles : 1;
  SDK_CHECK(sdk_store_group_str(c->store, "order", "var", c->model->vars[c->sums_var], eb));
  SDK_CHECK(sdk_store_group_f64(c->store, "order", "period", c->sums_period, eb));
  SDK_CHECK(sdk_store_group_i64(c->store, "order", "particles", np, eb));
  SDK_CHECK(sdk_store_group_i64(c->store, "order", "systems", c->R->paths / np, eb));
  return sdk_store_group_i64(c->store, "order", "every", c->sums_every, eb);
}

/* One row of sums; SDK_ERR_NONFINITE when some particle of a grid point is
 * NaN/Inf (its system's Z, hence r, is then NaN).  A row of a step already
 * recorded (a run resumed there) is ignored. */
static sdk_err order_row(const sdk_obs_ctx *c, void *p, int64_t *nsamples, int64_t step,
                         const double *row, sdk_errbuf *eb) {
  state *st = p;
  const sdk_results *R = c->R;
  int64_t s = *nsamples;
  if (s > 0 && st->step[s - 1] >= step) return SDK_OK;
  for (int64_t g = 0; g < R->ngrid; g++)
    if (!isfinite(row[g * 4]) || !isfinite(row[g * 4 + 2]) || !isfinite(row[g * 4 + 3]))
      return SDK_FAIL(eb, SDK_ERR_NONFINITE,
                      "particles became NaN/Inf at grid point %lld by step %lld (t = %g); a "
                      "smaller --dt may help",
                      (long long)g, (long long)step, (double)step * (R->dt ? R->dt[g] : 0));
  if (s >= st->nmax) return SDK_OK;
  int64_t M = c->systems_per_grid;
  st->step[s] = step;
  for (int64_t g = 0; g < R->ngrid; g++) {
    const double *o = row + g * 4;
    double r = o[0] / (double)M,
           var = M > 1 ? (o[1] - o[0] * o[0] / (double)M) / (double)(M - 1) : 0;
    if (var < 0) var = 0;
    int64_t k = g * st->nmax + s;
    st->t[k] = (double)step * R->dt[g];
    st->r[k] = r;
    st->err[k] = M > 1 ? sqrt(var / (double)M) : NAN;
    st->psi[k] = atan2(o[3], o[2]);
  }
  *nsamples = s + 1;
  return SDK_OK;
}

static sdk_err order_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char b0[32];
  const sdk_store *S = &R->store;
  const sdk_group_attrs *ga = sdk_store_group(S, "order");
  const sdk_dataset *t = sdk_store_find(S, "order/t");
  const double *r = sdk_results_f64(R, "order/r"), *err = sdk_results_f64(R, "order/r_err"),
               *psi = sdk_results_f64(R, "order/psi");
  if (!ga || !t || !r || !err || !psi)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "order: incomplete results");
  const char *var = "?";
  double period = 0;
  for (int i = 0; i < ga->nattr; i++) {
    if (!strcmp(ga->attr[i].name, "var")) var = ga->attr[i].s;
    if (!strcmp(ga->attr[i].name, "period")) period = ga->attr[i].f;
  }
  int64_t ns = t->dims[t->rank - 1];
  fprintf(f, "# order parameter of: %s (period %s), %lld particles per system, %lld systems\n", var,
          sdk_fmt_exact(b0, period), (long long)R->particles,
          (long long)(R->particles > 0 ? R->paths / R->particles : R->paths));
  fputs("# r = mean over systems of |Z|, Z = <exp(2 pi i x / period)> over a system's particles;\n"
        "# r_err = its standard error over systems; psi = arg of the mean of Z\n",
        f);
  const char *names[3] = {"r", "r_err", "psi"};
  const double *cols[3] = {r, err, psi};
  return sdk_tsv_series(R, f, "order", "\n\n", ns, sdk_ds_f64(t), 3, names, cols, eb);
}

const sdk_obs_type sdk_obs_order = {
    .name = "order",
    .description = "order parameter r and mean phase psi of systems of particles",
    .flags = SDK_OBS_SYSTEMS_ONLY | SDK_OBS_SYSTEM_SUMS,
    .setup = order_setup,
    .sys_row = order_row,
    .free = order_free,
    .write_tsv = order_tsv,
};
