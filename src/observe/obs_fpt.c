/* fpt: first-passage (escape) statistics of a model with [boundaries]
 * (model.h; the kernels' side: codegen/boundary.c).  Per grid point and
 * absorbing boundary b, from the paths' boundary rows (observe/paths.h,
 * bound_row: status 0 alive or b + 1, and the hitting step m; tau = m dt,
 * the end of the step in which the path crossed):
 *
 *   attribute boundaries on /fpt   the boundary names in model order, comma
 *                                  separated (reflecting ones too: their
 *                                  entries stay 0 / NaN)
 *   fpt/split     [grid..., nb]    fraction of the paths absorbed at b (the
 *                                  splitting probability), fpt/split_err
 *                                  sqrt(p (1 - p) / n)
 *   fpt/mean      [grid..., nb]    mean tau of the paths absorbed at b (NaN
 *                                  where none), fpt/mean_err sd / sqrt(n_b)
 *                                  (NaN below two paths)
 *   fpt/exit_mean [grid...]        mean of min(tau, t_end) over all paths,
 *                                  fpt/exit_err its standard error
 *   fpt/censored  [grid...] int64  paths not absorbed by t_end
 *   fpt/lower_bound [grid...] int64  1 where censored > 0: exit_mean (and
 *                                  mean, which leaves those paths out) is
 *                                  then a lower bound (attribute `note`)
 *   fpt/hist      [grid..., nb, bins] uint64  counts of tau of the paths
 *                                  absorbed at b in bins of [0, t_end]
 *                                  (--bins), t_end = nsteps dt;
 *                                  fpt/hist_edges [grid..., bins + 1]
 *   fpt/step [nsamples], fpt/t [grid..., nsamples]  the sample times, and
 *   fpt/survival  [grid..., nsamples]  S(t): fraction of the paths not
 *                                  absorbed by t, fpt/survival_err
 *                                  sqrt(S (1 - S) / n)
 *
 * Value datasets carry the attribute standard_error naming their error
 * dataset.  Everything is reduced on the host from the state rows, path by
 * path in the order of the global path index (as obs_cov.c): the results
 * do not depend on the backend's threads or on how the paths are cut into
 * shards.  Only the survival is sampled (and kept by checkpoints); the rest
 * comes from the final state, whose boundary rows checkpoints carry.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/abi.h"
#include "core/strbuf.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int nb;
  int64_t bins;
  double *split, *split_err, *mean, *mean_err, *exit_mean, *exit_err; /* [g][b], [g] */
  int64_t *censored, *lower;                                          /* [g] */
  uint64_t *hist;                                                     /* [g][b][bins] */
  double *edges;                                                      /* [g][bins + 1] */
  double *surv, *surv_err;                                            /* [g][s] */
  double *buf;                                                        /* [3][SDK_RED_CHUNK] */
  sdk_rowcache rc;
  double *acc; /* per boundary: n, mean, m2 */
} state;

static void fpt_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->buf);
  sdk_rowcache_free(&st->rc);
  free(st->acc);
  free(st);
}

/* a value dataset [grid..., extra...] and, err != NULL, its error dataset */
static sdk_err value_ds(const sdk_obs_ctx *c, const char *name, const char *err, int nextra,
                        const int64_t *extra, int sample_axis, double **val, double **everr,
                        sdk_errbuf *eb) {
  char path[64];
  sdk_dataset *d;
  snprintf(path, sizeof path, "fpt/%s", name);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, nextra, extra, sample_axis, 0, &d, eb));
  *val = sdk_ds_f64(d);
  if (!err) return SDK_OK;
  SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
  snprintf(path, sizeof path, "fpt/%s", err);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, nextra, extra, sample_axis, 0, &d, eb));
  *everr = sdk_ds_f64(d);
  return SDK_OK;
}

static sdk_err fpt_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  SDK_CHECK(sdk_obs_no_windows(c, "fpt",
                               "its hitting times are folded from the paths' rows and not carried "
                               "from batch to batch; run it with a fixed --paths",
                               eb));
  if (m->nbound == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe fpt needs a model with [boundaries] (model '%s' has none; e.g. "
                    "[boundaries] right = absorb x >= L)",
                    m->name);
  int64_t bins = c->opts->bins;
  if (bins < 1 || bins > 100000000)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--bins must be between 1 and 1e8");
  SDK_CHECK(sdk_obs_check_size(c, "fpt", 2.0, eb));
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for fpt");
  st->nb = m->nbound;
  st->bins = bins;
  st->buf = malloc(3 * (size_t)SDK_RED_CHUNK * sizeof *st->buf);
  st->acc = calloc(3 * (size_t)(st->nb + 1), sizeof *st->acc);
  if (!st->buf || !st->acc) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for fpt");
  int64_t nb = st->nb, ns = c->nsamples_max, hb[2] = {nb, bins}, ne = bins + 1;
  SDK_CHECK(value_ds(c, "split", "split_err", 1, &nb, -1, &st->split, &st->split_err, eb));
  SDK_CHECK(value_ds(c, "mean", "mean_err", 1, &nb, -1, &st->mean, &st->mean_err, eb));
  SDK_CHECK(value_ds(c, "exit_mean", "exit_err", 0, NULL, -1, &st->exit_mean, &st->exit_err, eb));
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(c, "fpt/censored", SDK_I64, 0, NULL, -1, 0, &d, eb));
  st->censored = sdk_ds_i64(d);
  SDK_CHECK(sdk_obs_dataset(c, "fpt/lower_bound", SDK_I64, 0, NULL, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "note",
                            "1: some paths were not absorbed by t_end (censored); exit_mean and "
                            "mean are then lower bounds",
                            eb));
  st->lower = sdk_ds_i64(d);
  SDK_CHECK(sdk_obs_dataset(c, "fpt/hist", SDK_U64, 2, hb, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 2, "boundary", eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "bin", eb));
  st->hist = (uint64_t *)d->data;
  SDK_CHECK(sdk_obs_dataset(c, "fpt/hist_edges", SDK_F64, 1, &ne, -1, 0, &d, eb));
  st->edges = sdk_ds_f64(d);
  SDK_CHECK(sdk_obs_times(c, "fpt", ns, eb));
  SDK_CHECK(value_ds(c, "survival", "survival_err", 1, &ns, 0, &st->surv, &st->surv_err, eb));
  sdk_strbuf names;
  sdk_sb_init(&names);
  for (int b = 0; b < st->nb; b++)
    sdk_sb_printf(&names, "%s%s", b ? "," : "", m->bound[b].name);
  char *joined = sdk_sb_take(&names);
  if (!joined) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for fpt");
  sdk_err e = sdk_store_group_str(c->store, "fpt", "boundaries", joined, eb);
  free(joined);
  return e;
}

/* paths per grid point as the rows hold them */
static int64_t per_grid(const sdk_obs_ctx *c) {
  const sdk_paths *P = c->paths;
  int64_t total = P->nshards > 0 ? P->shard[P->nshards - 1].end : 0;
  return c->R->ngrid > 0 ? total / c->R->ngrid : 0;
}

static sdk_err fpt_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  if (P->bound_row < 0) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "fpt: the paths have no boundaries");
  sdk_rowcache_reset(&st->rc);
  int64_t ns = c->nsamples_max, per = per_grid(c);
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    int64_t alive = 0;
    for (int64_t first = 0; first < per; first += SDK_RED_CHUNK) {
      int64_t len = per - first < SDK_RED_CHUNK ? per - first : SDK_RED_CHUNK;
      SDK_CHECK(sdk_paths_rows_cached(P, &st->rc, P->bound_row, g * per + first, len, st->buf, eb));
      for (int64_t i = 0; i < len; i++)
        alive += st->buf[i] == 0;
    }
    double n = (double)per, S = per > 0 ? (double)alive / n : NAN;
    st->surv[g * ns + s] = S;
    st->surv_err[g * ns + s] = per > 0 ? sqrt(S * (1 - S) / n) : NAN;
  }
  sdk_obs_time_at(c, "fpt", s, step);
  return SDK_OK;
}

/* Welford: fold x into (n, mean, m2) at a */
static void fold(double *a, double x) {
  a[0] += 1;
  double d = x - a[1];
  a[1] += d / a[0];
  a[2] += d * (x - a[1]);
}

/* One chunk of `len` paths of grid point g (rows in st->buf): into the
 * accumulators (acc[b], acc[nb] the exit times) and the histogram. */
static void fold_chunk(state *st, int64_t g, int64_t len, double dt, double tend,
                       int64_t *censored) {
  int nb = st->nb;
  const double *status = st->buf, *lo = st->buf + SDK_RED_CHUNK, *hi = st->buf + 2 * SDK_RED_CHUNK;
  for (int64_t i = 0; i < len; i++) {
    /* (rows come from checkpoints too: compare before converting) */
    int b = status[i] >= 1 && status[i] <= nb ? (int)status[i] - 1 : -1;
    if (b < 0) { /* alive at t_end (an unknown status counts so too) */
      (*censored)++;
      fold(st->acc + 3 * nb, tend);
      continue;
    }
    double tau = (lo[i] + hi[i] * 1048576.0) * dt;
    fold(st->acc + 3 * b, tau);
    fold(st->acc + 3 * nb, tau < tend ? tau : tend);
    double f = tend > 0 ? tau / tend * (double)st->bins : 0;
    int64_t k = f >= 0 && f < (double)st->bins ? (int64_t)f : f < 0 ? 0 : st->bins - 1;
    /* (tau = t_end, or beyond: the last bin; NaN too) */
    st->hist[(g * nb + b) * st->bins + k]++;
  }
}

static sdk_err fpt_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  if (P->bound_row < 0) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "fpt: the paths have no boundaries");
  int nb = st->nb;
  sdk_rowcache_reset(&st->rc);
  int64_t per = per_grid(c);
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    double dt = c->R->dt[g], tend = (double)c->R->nsteps * dt, n = (double)per;
    memset(st->acc, 0, 3 * (size_t)(nb + 1) * sizeof *st->acc);
    memset(st->hist + g * nb * st->bins, 0, (size_t)(nb * st->bins) * sizeof *st->hist);
    int64_t censored = 0;
    for (int64_t first = 0; first < per; first += SDK_RED_CHUNK) {
      int64_t len = per - first < SDK_RED_CHUNK ? per - first : SDK_RED_CHUNK;
      for (int r = 0; r < 3; r++)
        SDK_CHECK(sdk_paths_rows_cached(P, &st->rc, P->bound_row + r, g * per + first, len,
                                        st->buf + r * SDK_RED_CHUNK, eb));
      fold_chunk(st, g, len, dt, tend, &censored);
    }
    for (int b = 0; b < nb; b++) {
      const double *a = st->acc + 3 * b;
      double f = per > 0 ? a[0] / n : NAN;
      st->split[g * nb + b] = f;
      st->split_err[g * nb + b] = per > 0 ? sqrt(f * (1 - f) / n) : NAN;
      st->mean[g * nb + b] = a[0] > 0 ? a[1] : NAN;
      st->mean_err[g * nb + b] = a[0] > 1 ? sqrt(a[2] / (a[0] - 1) / a[0]) : NAN;
    }
    const double *a = st->acc + 3 * nb;
    st->exit_mean[g] = a[0] > 0 ? a[1] : NAN;
    st->exit_err[g] = a[0] > 1 ? sqrt(a[2] / (a[0] - 1) / a[0]) : NAN;
    st->censored[g] = censored;
    st->lower[g] = censored > 0;
    for (int64_t e = 0; e <= st->bins; e++)
      st->edges[g * (st->bins + 1) + e] = sdk_tsv_bin_edge(0, tend, e, st->bins);
  }
  return SDK_OK;
}

/* the boundary names of the results (the group attribute), split */
static int boundary_names(const sdk_results *R, char names[][64], int max) {
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "fpt");
  const sdk_attr *a = ga ? sdk_attr_find(ga->attr, ga->nattr, "boundaries") : NULL;
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

/* Block 1: one line per grid point with every boundary's splitting
 * probability and mean time, the mean exit time and the censoring. */
static sdk_err tsv_summary(const sdk_results *R, FILE *f, char names[][64], int nb,
                           sdk_errbuf *eb) {
  const double *sp = sdk_results_f64(R, "fpt/split"), *spe = sdk_results_f64(R, "fpt/split_err");
  const double *mn = sdk_results_f64(R, "fpt/mean"), *mne = sdk_results_f64(R, "fpt/mean_err");
  const double *em = sdk_results_f64(R, "fpt/exit_mean"), *ee = sdk_results_f64(R, "fpt/exit_err");
  const int64_t *cen = sdk_ds_i64(sdk_store_find(&R->store, "fpt/censored"));
  const int64_t *lb = sdk_ds_i64(sdk_store_find(&R->store, "fpt/lower_bound"));
  sdk_strbuf h;
  sdk_sb_init(&h);
  for (int b = 0; b < nb; b++)
    sdk_sb_printf(&h, "split_%s\tsplit_err_%s\tmean_%s\tmean_err_%s\t", names[b], names[b],
                  names[b], names[b]);
  sdk_sb_puts(&h, "exit_mean\texit_err\tcensored\tlower_bound");
  sdk_err e = h.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                    : sdk_tsv_header(R, f, "fpt", eb, "%s", h.s ? h.s : "");
  sdk_sb_free(&h);
  SDK_CHECK(e);
  char num[64];
  for (int64_t g = 0; g < R->ngrid; g++) {
    /* 2-D scan: a blank line whenever the axis-0 value changes (splot) */
    if (R->nscan == 2 && g > 0 && g % R->scan[1].n == 0) fputc('\n', f);
    sdk_tsv_coords(R, g, f);
    for (int b = 0; b < nb; b++) {
      const double v[4] = {sp[g * nb + b], spe[g * nb + b], mn[g * nb + b], mne[g * nb + b]};
      for (int k = 0; k < 4; k++)
        fprintf(f, "%s\t", sdk_fmt_stat(num, v[k]));
    }
    fprintf(f, "%s\t", sdk_fmt_stat(num, em[g]));
    fprintf(f, "%s\t%lld\t%lld\n", sdk_fmt_stat(num, ee[g]), (long long)cen[g], (long long)lb[g]);
  }
  return SDK_OK;
}

/* Block 3: per grid point and boundary (blocks separated by two blank
 * lines) the histogram of tau: bin edges and counts. */
static sdk_err tsv_hist(const sdk_results *R, FILE *f, char names[][64], int nb, sdk_errbuf *eb) {
  const sdk_dataset *h = sdk_store_find(&R->store, "fpt/hist");
  const double *ed = sdk_results_f64(R, "fpt/hist_edges");
  int64_t bins = h->dims[h->rank - 1];
  const uint64_t *cnt = (const uint64_t *)h->data;
  char num[64];
  SDK_CHECK(sdk_tsv_header(R, f, "fpt", eb, "boundary\tt_lo\tt_hi\tcount"));
  for (int64_t g = 0; g < R->ngrid; g++)
    for (int b = 0; b < nb; b++) {
      if (g > 0 || b > 0) fprintf(f, "\n\n");
      for (int64_t k = 0; k < bins; k++) {
        sdk_tsv_coords(R, g, f);
        fprintf(f, "%s\t", names[b]);
        fprintf(f, "%s\t", sdk_fmt_stat(num, ed[g * (bins + 1) + k]));
        fprintf(f, "%s\t%llu\n", sdk_fmt_stat(num, ed[g * (bins + 1) + k + 1]),
                (unsigned long long)cnt[(g * nb + b) * bins + k]);
      }
    }
  return SDK_OK;
}

/* Three kinds of block, separated by two blank lines (gnuplot's index):
 * the summary, the survival S(t) per grid point, the histograms. */
static sdk_err fpt_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  const sdk_dataset *t = sdk_store_find(&R->store, "fpt/t");
  const double *S = sdk_results_f64(R, "fpt/survival"),
               *Se = sdk_results_f64(R, "fpt/survival_err");
  char names[SDK_MODEL_MAX_BOUNDARIES][64];
  int nb = boundary_names(R, names, SDK_MODEL_MAX_BOUNDARIES);
  if (!t || !S || !Se || nb < 1 || !sdk_results_f64(R, "fpt/split") ||
      !sdk_results_f64(R, "fpt/mean") || !sdk_results_f64(R, "fpt/exit_mean") ||
      !sdk_store_find(&R->store, "fpt/censored") || !sdk_store_find(&R->store, "fpt/lower_bound") ||
      !sdk_store_find(&R->store, "fpt/hist") || !sdk_results_f64(R, "fpt/hist_edges"))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "fpt: incomplete results");
  SDK_CHECK(tsv_summary(R, f, names, nb, eb));
  fprintf(f, "\n\n");
  const char *cn[2] = {"survival", "survival_err"};
  const double *cols[2] = {S, Se};
  SDK_CHECK(
      sdk_tsv_series(R, f, "fpt", "\n\n", t->dims[t->rank - 1], sdk_ds_f64(t), 2, cn, cols, eb));
  fprintf(f, "\n\n");
  return tsv_hist(R, f, names, nb, eb);
}

const sdk_obs_type sdk_obs_fpt = {
    .name = "fpt",
    .description = "first passage at [boundaries]: splitting probabilities, mean times (with "
                   "standard errors), histograms, survival S(t); censored paths reported",
    .flags = SDK_OBS_SAMPLED | SDK_OBS_BOUNDARIES,
    .setup = fpt_setup,
    .sample = fpt_sample,
    .finish = fpt_finish,
    .free = fpt_free,
    .write_tsv = fpt_tsv,
};
