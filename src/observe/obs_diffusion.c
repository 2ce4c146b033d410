/* diffusion: the effective diffusion coefficient of one variable at every
 * sample time, and its long-time value (the last sample) with standard
 * errors: the estimator over the window [T0, t], D_eff(t) = var(x(t) -
 * x(T0)) / (2 (t - T0)), NaN at the samples t <= T0, T0 the end of
 * --transient (0 without one).  x(T0) is the drift mark, kept for --drift's
 * variable: with a transient another variable is refused; without one,
 * another variable's D_eff(t) is var x(t) / (2 t), the same where every path
 * starts at one value (sim/notes.c says so where they do not: the start's
 * spread would add var x(0) / (2 t)).
 *
 *   diffusion/step             [nsamples] step of each sample
 *   diffusion/t                [grid..., nsamples] step * dt
 *   diffusion/D, D_err         [grid..., nsamples] (NaN at t = 0); D's
 *                              standard_error names "D_err"
 *   diffusion/value, error     [grid...] D and D_err of the last sample;
 *                              value's standard_error names "error"
 *   attribute var on /diffusion and the datasets
 *
 * The variance is the unbiased one (n - 1); its standard error is
 * sqrt((mu4 - var^2) / n) with mu4 the fourth central moment, so D_err =
 * that / (2 t).  Reduced on the host from the variable's row (one transfer
 * per sample), per chunk of SDK_RED_CHUNK paths of a grid point in the fixed
 * order of the global path index: bitwise the same on any cut into shards.
 * Chunks' (mean, m2) are merged in order (Chan et al.); the fourth-order
 * sums are taken about the first chunk's mean.  Paths that are NaN/Inf are
 * left out (the run reports their grid point and sets it to NaN). */
#include <math.h>
#include <stdlib.h>

#include "codegen/abi.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int var, mark_var; /* the variable, and the one the drift mark holds */
  double buf[SDK_RED_CHUNK], origin[SDK_RED_CHUNK];
  sdk_rowcache rc;
} state;

static void diffusion_free(void *p) {
  state *st = p;
  if (st) sdk_rowcache_free(&st->rc);
  free(p);
}

static sdk_err diffusion_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  SDK_CHECK(sdk_obs_no_windows(c, "diffusion",
                               "it reads the paths' rows and its fold is not carried from batch "
                               "to batch; run it with a fixed --paths",
                               eb));
  SDK_CHECK(sdk_obs_check_size(c, "diffusion", 2.0, eb));
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  const char *name = c->opts->diffusion_var ? c->opts->diffusion_var : c->opts->drift_var;
  SDK_CHECK(sdk_obs_var(c, "--diffusion-var", name, &st->var, eb));
  SDK_CHECK(sdk_obs_var(c, "--drift", c->opts->drift_var, &st->mark_var, eb));
  const char *vn = c->model->vars[st->var];
  if (c->R->transient_steps > 0 && st->var != st->mark_var)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe diffusion with a transient measures the displacement since its "
                    "end, which the run keeps for --drift's variable (%s) alone: give --drift %s "
                    "too, or no --diffusion-var",
                    c->model->vars[st->mark_var], vn);
  SDK_CHECK(sdk_obs_times(c, "diffusion", c->nsamples_max, eb));
  const char *paths[4] = {"diffusion/D", "diffusion/D_err", "diffusion/value", "diffusion/error"};
  const char *se[4] = {"D_err", NULL, "error", NULL};
  for (int k = 0; k < 4; k++) {
    sdk_dataset *d;
    int nextra = k < 2 ? 1 : 0;
    SDK_CHECK(sdk_obs_dataset(c, paths[k], SDK_F64, nextra, &c->nsamples_max, nextra ? 0 : -1, 0,
                              &d, eb));
    SDK_CHECK(sdk_ds_attr_str(d, "var", vn, eb));
    if (se[k]) SDK_CHECK(sdk_ds_attr_str(d, "standard_error", se[k], eb));
  }
  return sdk_store_group_str(c->store, "diffusion", "var", vn, eb);
}

/* The window's origin x(T0) of every path, kept as the drift's is (the
 * same variable, so the two marks are one). */
static sdk_err diffusion_mark(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  return sdk_paths_mark(c->paths, st->mark_var, eb);
}

/* D_eff and its standard error of grid point g (paths [g * per, (g + 1) *
 * per)) over a window of length t; from_mark: of x - x(T0) */
static sdk_err reduce(const sdk_obs_ctx *c, state *st, int64_t g, int64_t per, double t,
                      int from_mark, double *D, double *err, sdk_errbuf *eb) {
  double n = 0, mean = 0, m2 = 0, ref = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  int mark_row = c->model->nvars; /* backend.h: the drift mark */
  for (int64_t first = 0; first < per; first += SDK_RED_CHUNK) {
    int64_t len = per - first < SDK_RED_CHUNK ? per - first : SDK_RED_CHUNK;
    SDK_CHECK(sdk_paths_rows_cached(c->paths, &st->rc, st->var, g * per + first, len, st->buf, eb));
    if (from_mark) {
      SDK_CHECK(
          sdk_paths_rows_cached(c->paths, &st->rc, mark_row, g * per + first, len, st->origin, eb));
      for (int64_t i = 0; i < len; i++)
        st->buf[i] -= st->origin[i];
    }
    double nb = 0, cm = 0, c2 = 0;
    for (int64_t i = 0; i < len; i++)
      if (isfinite(st->buf[i])) nb += 1, cm += st->buf[i];
    if (nb == 0) continue;
    cm /= nb;
    if (n == 0) ref = cm;
    for (int64_t i = 0; i < len; i++) {
      if (!isfinite(st->buf[i])) continue;
      double d = st->buf[i] - cm, u = st->buf[i] - ref;
      c2 += d * d;
      s1 += u, s2 += u * u, s3 += u * u * u, s4 += u * u * u * u;
    }
    double nn = n + nb, delta = cm - mean;
    m2 += c2 + delta * delta * n * nb / nn;
    mean += delta * nb / nn;
    n = nn;
  }
  if (n < 2 || !(t > 0)) {
    *D = *err = NAN; /* (one path has no spread: not an exact-looking 0) */
    return SDK_OK;
  }
  double a = s1 / n, e2 = s2 / n, e3 = s3 / n, e4 = s4 / n;
  double mu4 = e4 - 4 * a * e3 + 6 * a * a * e2 - 3 * a * a * a * a, v = m2 / n;
  *D = m2 / (n - 1) / (2 * t);
  *err = mu4 > v * v ? sqrt((mu4 - v * v) / n) / (2 * t) : 0;
  return SDK_OK;
}

static sdk_err diffusion_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step,
                                sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  double *D = sdk_ds_f64(sdk_store_find(c->store, "diffusion/D"));
  double *E = sdk_ds_f64(sdk_store_find(c->store, "diffusion/D_err"));
  if (!D || !E) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "diffusion: no datasets");
  sdk_rowcache_reset(&st->rc);
  int64_t total = P->nshards > 0 ? P->shard[P->nshards - 1].end : 0;
  int64_t per = c->R->ngrid > 0 ? total / c->R->ngrid : 0, ns = c->nsamples_max;
  int64_t t0 = c->R->transient_steps;
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    if (step <= t0) { /* the window has not begun (no mark yet; at t = 0 too) */
      D[g * ns + s] = E[g * ns + s] = NAN;
      continue;
    }
    SDK_CHECK(reduce(c, st, g, per, (double)(step - t0) * c->R->dt[g],
                     t0 > 0 || st->var == st->mark_var, &D[g * ns + s], &E[g * ns + s], eb));
  }
  sdk_obs_time_at(c, "diffusion", s, step);
  return SDK_OK;
}

/* The long-time value: the last sample taken (the sample axes are cut to
 * the samples taken before finish). */
static sdk_err diffusion_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  (void)p;
  const sdk_dataset *dD = sdk_store_find(c->store, "diffusion/D");
  const sdk_dataset *dE = sdk_store_find(c->store, "diffusion/D_err");
  double *val = sdk_ds_f64(sdk_store_find(c->store, "diffusion/value"));
  double *err = sdk_ds_f64(sdk_store_find(c->store, "diffusion/error"));
  if (!dD || !dE || !val || !err) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "diffusion: no datasets");
  int64_t ns = dD->dims[dD->rank - 1];
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    val[g] = ns > 0 ? sdk_ds_f64(dD)[g * ns + ns - 1] : NAN;
    err[g] = ns > 0 ? sdk_ds_f64(dE)[g * ns + ns - 1] : NAN;
  }
  return SDK_OK;
}

/* The series D_VAR, D_VAR_err per grid point, then (after two blank lines:
 * gnuplot's next index) the long-time value per grid point. */
static sdk_err diffusion_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char n1[80], n2[80];
  const sdk_dataset *t = sdk_store_find(&R->store, "diffusion/t");
  const sdk_dataset *dD = sdk_store_find(&R->store, "diffusion/D");
  const sdk_dataset *dE = sdk_store_find(&R->store, "diffusion/D_err");
  const sdk_dataset *dv = sdk_store_find(&R->store, "diffusion/value");
  const sdk_dataset *de = sdk_store_find(&R->store, "diffusion/error");
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "diffusion");
  if (!t || !dD || !dE || !dv || !de || !ga || ga->nattr < 1)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "diffusion: incomplete results");
  const char *vn = ga->attr[0].s;
  fprintf(f, "# diffusion of: %s\n", vn);
  snprintf(n1, sizeof n1, "D_%s", vn);
  snprintf(n2, sizeof n2, "D_%s_err", vn);
  const char *names[2] = {n1, n2};
  const double *cols[2] = {sdk_ds_f64(dD), sdk_ds_f64(dE)};
  SDK_CHECK(sdk_tsv_series(R, f, "diffusion", "\n\n", t->dims[t->rank - 1], sdk_ds_f64(t), 2, names,
                           cols, eb));
  fputs("\n\n", f);
  const double *vals[2] = {sdk_ds_f64(dv), sdk_ds_f64(de)};
  return sdk_tsv_grid_rows(R, f, "diffusion", 2, names, vals, eb);
}

const sdk_obs_type sdk_obs_diffusion = {
    .name = "diffusion",
    .description = "effective diffusion coefficient D_eff(t) = var / 2t of one variable (over "
                   "[transient, t]), with standard errors",
    .flags = SDK_OBS_SAMPLED,
    .setup = diffusion_setup,
    .transient_end = diffusion_mark,
    .sample = diffusion_sample,
    .finish = diffusion_finish,
    .free = diffusion_free,
    .write_tsv = diffusion_tsv,
};
