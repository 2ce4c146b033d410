/* events: counts, rates and intervals of the [events] of a model (model.h;
 * the kernels' side: codegen/resets.c, whose per-path rows this reads).
 * Per grid point and event k, t_end = nsteps dt:
 *
 *   attribute events on /events       the event names in model order
 *   events/count [grid..., ne]        mean number of events per path,
 *                                     events/count_err sd / sqrt(paths)
 *   events/rate  [grid..., ne]        count / t_end, events/rate_err
 *                                     (the reset takes effect at the end of
 *                                     its step: each event costs (1 - theta)
 *                                     dt of dead time, dt / 2 on average, so
 *                                     the rate is low by O(dt))
 *   events/interval_mean [grid..., ne]  mean interval between consecutive
 *                                     events of a path (from a reset to the
 *                                     next crossing time; the time from the
 *                                     start to a path's first event is none),
 *                                     the ratio sum u / sum n over the paths,
 *                                     events/interval_mean_err its standard
 *                                     error by the delta method over paths
 *                                     (sum_p (s_p - m n_p)^2)^(1/2) / N: right
 *                                     also when a path's intervals are not
 *                                     independent
 *   events/interval_var [grid..., ne]   their variance sum u^2 / N - m^2,
 *                                     events/interval_var_err likewise from
 *                                     the per-path influence s2_p - 2 m s_p -
 *                                     (v - m^2) n_p
 *   events/intervals [grid..., ne] int64  the number N of intervals
 *   events/stuck [grid..., ne] int64  resets that left the variable inside
 *                                     the condition (it then fires again only
 *                                     after leaving it and crossing back)
 *   events/hist [grid..., ne, bins] uint64  intervals per bin, bins of the
 *                                     interval in steps: [0, 1), then
 *                                     [2^((b-1)/2), 2^(b/2)) (two per octave),
 *                                     the last one open (codegen/resets.c);
 *                                     events/hist_edges [grid..., bins + 1]
 *                                     the edges in time (the last: t_end, or
 *                                     the last bin's lower edge times sqrt 2
 *                                     when larger)
 *
 * Intervals ending before t_end only are counted: the window's censoring
 * biases interval_mean low by about var / t_end (renewal theory), so t_end
 * should be long against the intervals.  Everything is read from the final
 * state's rows path by path in the global path order: independent of
 * threads, shards and ranks; checkpoints carry the rows.  Windows of the
 * paths (--target-se, --mlmc) are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/abi.h"
#include "codegen/resets.h"
#include "core/strbuf.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

#define NB SDK_CG_RESET_BINS
#define NR SDK_CG_RESET_ROWS
/* sums per event: n, s, s2, then n^2, s^2, s2^2, n s, n s2, s s2 per path;
 * count: its Welford (n, mean, m2) */
#define NS 12

typedef struct {
  int ne;
  double *count, *count_err, *rate, *rate_err, *imean, *imean_err, *ivar, *ivar_err;
  int64_t *nint, *stuck;
  uint64_t *hist;
  double *edges;
  double *buf; /* [NR][SDK_RED_CHUNK] */
  sdk_rowcache rc;
} state;

static void ev_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->buf);
  sdk_rowcache_free(&st->rc);
  free(st);
}

/* events/NAME [grid..., ne] and its error dataset */
static sdk_err pair_ds(const sdk_obs_ctx *c, const char *name, const char *err, int64_t ne,
                       double **val, double **ev, sdk_errbuf *eb) {
  char path[64];
  sdk_dataset *d;
  snprintf(path, sizeof path, "events/%s", name);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &ne, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
  *val = sdk_ds_f64(d);
  snprintf(path, sizeof path, "events/%s", err);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &ne, -1, 0, &d, eb));
  *ev = sdk_ds_f64(d);
  return SDK_OK;
}

static sdk_err ev_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  if (m->nevent == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe events needs a model with [events] (model '%s' has none; e.g. "
                    "[events] spike = when v >= 1 : v = 0)",
                    m->name);
  SDK_CHECK(sdk_obs_no_windows(c, "events", "its interval folds are not continued", eb));
  /* a path's bin counts are `real` rows, exact below 2^24 in single
   * precision, and a run of n steps fires an event at most n times */
  if (c->R->precision && !strcmp(c->R->precision, "single") && c->R->nsteps >= (1 << 24))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe events: %lld steps in single precision could count more than 2^24 "
                    "intervals in one bin of a path (inexact); use --precision double",
                    (long long)c->R->nsteps);
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for events");
  st->ne = m->nevent;
  st->buf = malloc((size_t)NR * SDK_RED_CHUNK * sizeof *st->buf);
  if (!st->buf) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for events");
  int64_t ne = st->ne, hb[2] = {ne, NB}, nedge = NB + 1;
  SDK_CHECK(pair_ds(c, "count", "count_err", ne, &st->count, &st->count_err, eb));
  SDK_CHECK(pair_ds(c, "rate", "rate_err", ne, &st->rate, &st->rate_err, eb));
  SDK_CHECK(pair_ds(c, "interval_mean", "interval_mean_err", ne, &st->imean, &st->imean_err, eb));
  SDK_CHECK(pair_ds(c, "interval_var", "interval_var_err", ne, &st->ivar, &st->ivar_err, eb));
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(c, "events/intervals", SDK_I64, 1, &ne, -1, 0, &d, eb));
  st->nint = sdk_ds_i64(d);
  SDK_CHECK(sdk_obs_dataset(c, "events/stuck", SDK_I64, 1, &ne, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_attr_str(d, "note",
                            "resets that left the variable inside the event's condition; such a "
                            "path fires again only after leaving it",
                            eb));
  st->stuck = sdk_ds_i64(d);
  SDK_CHECK(sdk_obs_dataset(c, "events/hist", SDK_U64, 2, hb, -1, 0, &d, eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 2, "event", eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "bin", eb));
  st->hist = (uint64_t *)d->data;
  SDK_CHECK(sdk_obs_dataset(c, "events/hist_edges", SDK_F64, 1, &nedge, -1, 0, &d, eb));
  st->edges = sdk_ds_f64(d);
  sdk_strbuf names;
  sdk_sb_init(&names);
  for (int k = 0; k < st->ne; k++)
    sdk_sb_printf(&names, "%s%s", k ? "," : "", m->event[k].name);
  char *joined = sdk_sb_take(&names);
  if (!joined) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for events");
  sdk_err e = sdk_store_group_str(c->store, "events", "events", joined, eb);
  free(joined);
  return e;
}

/* the value of a (mod 2^20, >> 20) pair of rows */
static double pair_value(const double *lo, const double *hi, int64_t i) {
  return lo[i] + hi[i] * 1048576.0;
}

/* one chunk of len paths (rows of event k in st->buf) onto the sums f,
 * the count's Welford w, the histogram h and the stuck count */
static void fold_chunk(const state *st, int64_t len, double *f, double *w, uint64_t *h,
                       int64_t *stuck) {
  const double *B = st->buf;
  const int64_t R = SDK_RED_CHUNK;
  for (int64_t i = 0; i < len; i++) {
    double cnt = pair_value(B, B + R, i);
    double n = cnt > 0 ? cnt - 1 : 0, s = B[4 * R + i] + B[5 * R + i],
           s2 = B[6 * R + i] + B[7 * R + i];
    const double x[3] = {n, s, s2};
    for (int a = 0; a < 3; a++)
      f[a] += x[a];
    f[3] += n * n, f[4] += s * s, f[5] += s2 * s2;
    f[6] += n * s, f[7] += n * s2, f[8] += s * s2;
    w[0] += 1;
    double d = cnt - w[1];
    w[1] += d / w[0];
    w[2] += d * (cnt - w[1]);
    *stuck += (int64_t)B[8 * R + i];
    for (int b = 0; b < NB; b++)
      h[b] += (uint64_t)B[(9 + b) * R + i];
  }
}

/* event k of grid point g from its sums (u in steps; dt, t_end) */
static void values(state *st, int64_t i, const double *f, const double *w, double dt, double tend) {
  double N = f[0], P = w[0];
  st->count[i] = P > 0 ? w[1] : NAN;
  st->count_err[i] = sdk_se_mean(P, w[2]);
  st->rate[i] = st->count[i] / tend;
  st->rate_err[i] = st->count_err[i] / tend;
  st->nint[i] = (int64_t)N;
  if (!(N > 0)) {
    st->imean[i] = st->imean_err[i] = st->ivar[i] = st->ivar_err[i] = NAN;
    return;
  }
  double m = f[1] / N, v = f[2] / N - m * m;
  /* sum_p (s - m n)^2 and sum_p (s2 - 2 m s - (v - m^2) n)^2 from the sums */
  double qm = f[4] - 2 * m * f[6] + m * m * f[3];
  double a = -2 * m, c = -(v - m * m);
  double qv = f[5] + a * a * f[4] + c * c * f[3] + 2 * a * f[8] + 2 * c * f[7] + 2 * a * c * f[6];
  double corr = P > 1 ? P / (P - 1) : NAN;
  st->imean[i] = m * dt;
  st->imean_err[i] = sqrt(fmax(qm, 0) * corr) / N * dt;
  st->ivar[i] = fmax(v, 0) * dt * dt; /* (E u^2 - m^2 rounds below 0 at no spread) */
  st->ivar_err[i] = sqrt(fmax(qv, 0) * corr) / N * dt * dt;
}

static sdk_err ev_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  if (P->event_row < 0) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "events: the paths have no rows");
  sdk_rowcache_reset(&st->rc);
  int ne = st->ne;
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    double dt = c->R->dt[g], tend = (double)c->R->nsteps * dt;
    int64_t first, held;
    sdk_paths_held(P, g, &first, &held);
    for (int k = 0; k < ne; k++) {
      double f[NS] = {0}, w[3] = {0};
      int64_t stuck = 0;
      uint64_t *h = st->hist + (g * ne + k) * NB;
      memset(h, 0, NB * sizeof *h);
      for (int64_t a = first; a < first + held; a += SDK_RED_CHUNK) {
        int64_t len = first + held - a < SDK_RED_CHUNK ? first + held - a : SDK_RED_CHUNK;
        for (int r = 0; r < NR; r++)
          SDK_CHECK(sdk_paths_rows_cached(P, &st->rc, P->event_row + k * NR + r, g * c->ppg + a,
                                          len, st->buf + r * SDK_RED_CHUNK, eb));
        fold_chunk(st, len, f, w, h, &stuck);
      }
      values(st, g * ne + k, f, w, dt, tend);
      st->stuck[g * ne + k] = stuck;
    }
    double *e = st->edges + g * (NB + 1);
    e[0] = 0;
    for (int b = 1; b < NB; b++)
      e[b] = pow(2, (b - 1) / 2.0) * dt;
    e[NB] = fmax(tend, e[NB - 1] * sqrt(2.0));
  }
  return SDK_OK;
}

static const char *const VALS[] = {"count",        "count_err",       "rate",
                                   "rate_err",     "interval_mean",   "interval_mean_err",
                                   "interval_var", "interval_var_err"};
#define NVALS (int)(sizeof VALS / sizeof VALS[0])

/* Two kinds of block (gnuplot's index): a line per grid point with every
 * event's values, then per grid point and event the interval histogram. */
static sdk_err ev_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char names[SDK_MODEL_MAX_BOUNDARIES][64], path[64], num[64];
  int ne = sdk_obs_group_names(R, "events", "events", names, SDK_MODEL_MAX_BOUNDARIES);
  const double *v[NVALS];
  for (int j = 0; j < NVALS; j++) {
    snprintf(path, sizeof path, "events/%s", VALS[j]);
    v[j] = sdk_results_f64(R, path);
  }
  const sdk_dataset *ni = sdk_store_find(&R->store, "events/intervals"),
                    *su = sdk_store_find(&R->store, "events/stuck"),
                    *h = sdk_store_find(&R->store, "events/hist");
  const double *ed = sdk_results_f64(R, "events/hist_edges");
  for (int j = 0; j < NVALS; j++)
    if (!v[j]) ne = 0;
  if (ne < 1 || !ni || !su || !h || !ed)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "events: incomplete results");
  sdk_strbuf hd;
  sdk_sb_init(&hd);
  for (int k = 0; k < ne; k++) {
    for (int j = 0; j < NVALS; j++)
      sdk_sb_printf(&hd, "%s_%s\t", VALS[j], names[k]);
    sdk_sb_printf(&hd, "intervals_%s\tstuck_%s%s", names[k], names[k], k + 1 < ne ? "\t" : "");
  }
  sdk_err e = hd.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                     : sdk_tsv_header(R, f, "events", eb, "%s", hd.s ? hd.s : "");
  sdk_sb_free(&hd);
  SDK_CHECK(e);
  for (int64_t g = 0; g < R->ngrid; g++) {
    sdk_tsv_grid_break(R, g, f);
    sdk_tsv_coords(R, g, f);
    for (int k = 0; k < ne; k++) {
      for (int j = 0; j < NVALS; j++)
        fprintf(f, "%s\t", sdk_fmt_stat(num, v[j][g * ne + k]));
      fprintf(f, "%lld\t%lld%s", (long long)sdk_ds_i64(ni)[g * ne + k],
              (long long)sdk_ds_i64(su)[g * ne + k], k + 1 < ne ? "\t" : "\n");
    }
  }
  fprintf(f, "\n\n");
  return sdk_tsv_time_hists(R, f, "events", "event", names, ne, h, ed, eb);
}

const sdk_obs_type sdk_obs_events = {
    .name = "events",
    .description = "[events]: counts per path and rates (with standard errors), mean and "
                   "variance of the intervals between events, their histogram",
    .flags = SDK_OBS_EVENTS,
    .setup = ev_setup,
    .finish = ev_finish,
    .free = ev_free,
    .write_tsv = ev_tsv,
};
