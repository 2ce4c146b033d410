/* tavg: time averages, "as <<v>> is the time-and-ensemble average of v":
 * for every user observable ([observe], --observe-expr) and every variable
 * f, the time average of each path over the drift's window [T0, T] (after
 * the transient), then its mean over the paths of each grid point with the
 * standard error from the path-to-path variance.
 *
 *   tavg/mean_NAME   [grid...] the mean over the paths of the paths' time
 *                    averages; its standard_error names "err_NAME"
 *   tavg/err_NAME    [grid...] sqrt(var / n), var the unbiased variance of
 *                    the paths' time averages (n - 1)
 *   /tavg: attributes names (the user observables, then the variables),
 *                    transient and t_end (T0 and T at grid point 0),
 *                    window_steps (N = nsteps - transient_steps)
 *
 * The kernel accumulates, per path and step (codegen.h: the accumulator rows
 * and the quadrature, the right-point rule: the time average of a path is
 * (1/N) sum of f at the states after the N steps of the window), so nothing
 * is sampled; at the end the host reads the rows (S, E) of every path and
 * reduces (S + E) / N in chunks of SDK_RED_CHUNK paths merged in chunk
 * order: bitwise the same for any thread count or cut into shards.  A path
 * whose time average is NaN/Inf is left out of n. */
#include <math.h>
#include <stdlib.h>

#include "observe/bias.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

/* paths read from the backend at a time (whole chunks) */
#define TAVG_BLOCK ((int64_t)SDK_RED_CHUNK * 256)

typedef struct {
  int nq; /* user observables, then variables */
  double **mean, **err;
  double *buf;    /* S and E of TAVG_BLOCK paths (and with --dt-check the coarse path's) */
  sdk_bias *bias; /* [j]: --dt-check (observe/bias.h) */
} state;

static void tavg_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->mean), free(st->err), free(st->buf), free(st->bias);
  free(st);
}

static const char *qname(const sdk_model *m, int j) {
  return j < m->nobs ? m->obs_names[j] : m->vars[j - m->nobs];
}

static sdk_err tavg_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  const sdk_results *R = c->R;
  int nq = m->nobs + m->nvars;
  *out = NULL;
  if (c->systems)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe tavg: time averages are computed for independent paths only, not "
                    "systems of particles");
  /* an absorbed path stops (its thread leaves on the GPU): its average over
   * the window would be over a time it did not live; refused, not guessed */
  for (int b = 0; b < m->nbound; b++)
    if (m->bound[b].kind == SDK_BOUND_ABSORB)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--observe tavg: model '%s' has an absorbing boundary ('%s'): time "
                      "averages are over the whole window [transient, t_end], which absorbed "
                      "paths do not live through (reflecting boundaries are fine)",
                      m->name, m->bound[b].name);
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st || !(st->mean = calloc((size_t)nq, sizeof *st->mean)) ||
      !(st->err = calloc((size_t)nq, sizeof *st->err)) ||
      !(st->buf = malloc((size_t)(4 * TAVG_BLOCK) * sizeof *st->buf)) ||
      !(st->bias = calloc((size_t)nq, sizeof *st->bias)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the time averages");
  st->nq = nq;
  const char **names = calloc((size_t)nq, sizeof *names);
  if (!names) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  for (int j = 0; j < nq && e == SDK_OK; j++) {
    char path[128], err[96];
    sdk_dataset *d;
    names[j] = qname(m, j);
    snprintf(err, sizeof err, "err_%s", names[j]);
    snprintf(path, sizeof path, "tavg/mean_%s", names[j]);
    e = sdk_obs_dataset(c, path, SDK_F64, 0, NULL, -1, 0, &d, eb);
    if (e == SDK_OK) e = sdk_ds_attr_str(d, "standard_error", err, eb);
    /* (order 1 whatever the scheme: the right-point rule's error, about
     * (f(T) - f(T0)) dt / (2 T), is first order; the scheme's weak order 2
     * put a third of the bias in the estimate) */
    if (e == SDK_OK)
      e = sdk_bias_setup_order(c, "tavg", path + 5, d, 0, NULL, -1, 1, &st->bias[j], eb);
    if (e != SDK_OK) break;
    st->mean[j] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "tavg/%s", err);
    e = sdk_obs_dataset(c, path, SDK_F64, 0, NULL, -1, 0, &d, eb);
    if (e == SDK_OK) st->err[j] = sdk_ds_f64(d);
  }
  if (e == SDK_OK)
    e = sdk_store_group_strs(c->store, "tavg", "names", (const char *const *)names, nq, eb);
  free(names);
  SDK_CHECK(e);
  /* (NaN where dt differs between grid points: the window is steps x dt) */
  double dt = sdk_results_same_dt(R) ? R->dt[0] : NAN;
  SDK_CHECK(
      sdk_store_group_f64(c->store, "tavg", "transient", (double)R->transient_steps * dt, eb));
  SDK_CHECK(sdk_store_group_f64(c->store, "tavg", "t_end", (double)R->nsteps * dt, eb));
  return sdk_store_group_i64(c->store, "tavg", "window_steps", R->nsteps - R->transient_steps, eb);
}

/* the moments over the paths of grid point g of the time averages of
 * quantity j, whose rows (S, E) are `row` and row + 1; crow >= 0 (--dt-check):
 * instead those of the coupled difference coarse - fine, the coarse path's
 * rows crow, crow + 1 summing its nwin / 2 steps.  The fold of the chunks in
 * path order goes on from *tot (a window of the paths goes on from the
 * earlier windows' fold: the same sums as one run's) */
static sdk_err grid_moments(const sdk_obs_ctx *c, state *st, int row, int crow, int64_t g,
                            double nwin, sdk_moments *tot, sdk_errbuf *eb) {
  int64_t ppg = c->ppg, first, held;
  sdk_paths_held(c->paths, g, &first, &held);
  for (int64_t a = first; a < first + held; a += TAVG_BLOCK) {
    int64_t n = first + held - a < TAVG_BLOCK ? first + held - a : TAVG_BLOCK;
    double *S = st->buf, *E = st->buf + TAVG_BLOCK;
    double *Sc = st->buf + 2 * TAVG_BLOCK, *Ec = st->buf + 3 * TAVG_BLOCK;
    SDK_CHECK(sdk_paths_rows(c->paths, row, g * ppg + a, n, S, 0, eb));
    SDK_CHECK(sdk_paths_rows(c->paths, row + 1, g * ppg + a, n, E, 0, eb));
    if (crow >= 0) {
      SDK_CHECK(sdk_paths_rows(c->paths, crow, g * ppg + a, n, Sc, 0, eb));
      SDK_CHECK(sdk_paths_rows(c->paths, crow + 1, g * ppg + a, n, Ec, 0, eb));
    }
    for (int64_t k = 0; k < n; k += SDK_RED_CHUNK) {
      sdk_moments ch = {0, 0, 0};
      for (int64_t i = k; i < n && i < k + SDK_RED_CHUNK; i++) {
        double f = (S[i] + E[i]) / nwin;
        if (crow >= 0) f = (Sc[i] + Ec[i]) / (nwin / 2) - f;
        if (!isfinite(f)) continue;
        sdk_moments one = {1, f, 0};
        sdk_moments_merge(&ch, &one);
      }
      sdk_moments_merge(tot, &ch);
    }
  }
  return SDK_OK;
}

static sdk_err tavg_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_results *R = c->R;
  int nv = c->model->nvars;
  /* the accumulators' rows where the kernel's row layout puts them (codegen.h;
   * row nvars + 1 + k is the carried row k: backend.h), whatever rows follow
   * them (adaptive steps, events, per-path parameters, the coarse path) */
  int row0 = c->tavg_row;
  /* (a window of no paths, which gives the earlier windows' results from
   * the carry alone, has no rows to read: --mlmc's resumed levels) */
  int64_t held_all = 0, first, held;
  for (int64_t g = 0; g < R->ngrid; g++)
    sdk_paths_held(c->paths, g, &first, &held), held_all += held;
  if (held_all > 0 && (row0 <= nv || row0 + 2 * st->nq > nv + 1 + sdk_paths_carried_rows(c->paths)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "tavg: the kernel keeps no time averages");
  double nwin = (double)(R->nsteps - R->transient_steps);
  sdk_moments *slot = NULL; /* windows of the paths: the carried folds [j][g] */
  int fresh;
  if (c->paths->carry)
    SDK_CHECK(sdk_carry_slot(c->paths->carry,
                             (size_t)((c->dt_check ? 2 : 1) * st->nq * R->ngrid) * sizeof *slot,
                             (void **)&slot, &fresh, eb));
  for (int j = 0; j < st->nq; j++)
    for (int64_t g = 0; g < R->ngrid; g++) {
      sdk_moments m = slot ? slot[j * R->ngrid + g] : (sdk_moments){0, 0, 0};
      SDK_CHECK(grid_moments(c, st, row0 + 2 * j, -1, g, nwin, &m, eb));
      if (slot) slot[j * R->ngrid + g] = m;
      st->mean[j][g] = m.n > 0 ? m.mean : NAN;
      st->err[j][g] = sdk_se_mean(m.n, m.m2);
      if (!c->dt_check) continue;
      /* the coupled differences' folds are carried after the values' */
      sdk_moments *dslot = slot ? &slot[(st->nq + j) * R->ngrid + g] : NULL;
      m = dslot ? *dslot : (sdk_moments){0, 0, 0};
      SDK_CHECK(grid_moments(c, st, row0 + 2 * j, c->dtc_tavg_row + 2 * j, g, nwin, &m, eb));
      if (dslot) *dslot = m;
      sdk_bias_set(c, &st->bias[j], g, &m, 1, &st->mean[j][g], &st->err[j][g]);
    }
  return SDK_OK;
}

static sdk_err tavg_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char b1[32], b2[32];
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "tavg");
  const sdk_attr *a = ga ? sdk_attr_find(ga->attr, ga->nattr, "names") : NULL;
  const sdk_attr *t0 = ga ? sdk_attr_find(ga->attr, ga->nattr, "transient") : NULL;
  const sdk_attr *t1 = ga ? sdk_attr_find(ga->attr, ga->nattr, "t_end") : NULL;
  if (!a || a->kind != SDK_ATTR_STRS || !t0 || !t1)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "tavg: incomplete results");
  int nq = (int)a->nstr;
  const double **mean = calloc((size_t)nq, sizeof *mean), **err = calloc((size_t)nq, sizeof *err);
  const double **bias = calloc((size_t)(2 * nq + 1), sizeof *bias);
  sdk_err e = mean && err && bias ? SDK_OK : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int j = 0; j < nq && e == SDK_OK; j++) {
    mean[j] = sdk_ds_f64(sdk_store_findf(&R->store, "tavg/mean_%s", a->strs[j]));
    err[j] = sdk_ds_f64(sdk_store_findf(&R->store, "tavg/err_%s", a->strs[j]));
    if (!mean[j] || !err[j]) e = SDK_FAIL(eb, SDK_ERR_INTERNAL, "tavg: no %s", a->strs[j]);
  }
  if (e == SDK_OK) {
    if (isnan(t0->f))
      fprintf(f,
              "# time averages over steps [%lld, %lld] (times per grid point: steps x dt; per "
              "path, then over the paths)\n",
              (long long)R->transient_steps, (long long)R->nsteps);
    else
      fprintf(f, "# time averages over [%s, %s] (per path, then over the paths)\n",
              sdk_fmt_stat(b1, t0->f), sdk_fmt_stat(b2, t1->f));
    sdk_strbuf h;
    sdk_sb_init(&h);
    for (int j = 0; j < nq; j++)
      sdk_sb_printf(&h, "%smean_%s\terr_%s", j ? "\t" : "", a->strs[j], a->strs[j]);
    /* --dt-check: bias_mean_NAME, bias_err_mean_NAME after all the others,
     * as sdk_tsv_series gives them (README) */
    for (int j = 0; j < nq; j++) {
      char name[200];
      snprintf(name, sizeof name, "mean_%s", a->strs[j]);
      if (sdk_tsv_bias_cols(R, "tavg", name, &bias[2 * j], &bias[2 * j + 1]))
        sdk_sb_printf(&h, "\tbias_%s\tbias_err_%s", name, name);
    }
    e = h.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
              : sdk_tsv_header(R, f, "tavg", eb, "%s", h.s ? h.s : "");
    sdk_sb_free(&h);
  }
  if (e == SDK_OK) {
    for (int64_t g = 0; g < R->ngrid; g++) {
      sdk_tsv_grid_break(R, g, f);
      sdk_tsv_coords(R, g, f);
      for (int j = 0; j < nq; j++)
        fprintf(f, "%s%s\t%s", j ? "\t" : "", sdk_fmt_stat(b1, mean[j][g]),
                sdk_fmt_stat(b2, err[j][g]));
      for (int k = 0; k < 2 * nq; k++)
        if (bias[k]) fprintf(f, "\t%s", sdk_fmt_stat(b1, bias[k][g]));
      fputc('\n', f);
    }
  }
  free(mean), free(err), free(bias);
  return e;
}

const sdk_obs_type sdk_obs_tavg = {
    .name = "tavg",
    .description = "time average over [transient, t_end] of every user observable and variable, "
                   "with its standard error",
    .flags = SDK_OBS_TIME_AVERAGES | SDK_OBS_BIAS,
    .setup = tavg_setup,
    .finish = tavg_finish,
    .free = tavg_free,
    .write_tsv = tavg_tsv,
};
