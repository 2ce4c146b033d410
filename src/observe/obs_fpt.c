/* fpt: first-passage (escape) statistics of a model with [boundaries]
 * (model.h; the kernels' side: codegen/boundary.c).  Per grid point and
 * absorbing boundary b, from the paths' boundary rows (observe/paths.h,
 * bound_row: status 0 alive or b + 1, and the hitting step m; tau = m dt,
 * the end of the step in which the path crossed; with --adaptive the end of
 * the sub-step, earlier by the controller's row SDK_CG_ADAPT_HIT):
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
 *   fpt/overshoot [grid..., nb]    mean overshoot of the paths absorbed at b:
 *                                  max(0, x - E) at an upper level E (E - x
 *                                  at a lower one), x the boundary's
 *                                  variable at the end of the step in which
 *                                  the path was absorbed (its frozen state),
 *                                  fpt/overshoot_err sd / sqrt(n_b) (NaN as
 *                                  mean's; NaN too where the level is a
 *                                  per-path parameter: no grid value)
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
 * The overshoot.  A path with jumps ([levy], [jumps]) leaves over the level:
 * the overshoot is its distance beyond it, with a law of its own (for the
 * symmetric alpha-stable process leaving (-L, L) that of Blumenthal, Getoor
 * & Ray 1961; its mean is finite for alpha > 1 only, its variance infinite
 * for alpha < 2, so overshoot_err is then not a reliable error).  Monitored
 * at the steps, it is taken at the first step found past the level.  A
 * continuous path (Gaussian noise) crosses with overshoot 0: the reported
 * number is then the discretisation's, O(sqrt(dt)): with discrete
 * monitoring (--no-bridge-correction) and levels far from the start it
 * tends to 0.5826 g sqrt(dt) (Siegmund's constant -zeta(1/2)/sqrt(2 pi),
 * g the noise coefficient); with the bridge correction a path the bridge
 * absorbed inside the step is on the near side at the step end and counts
 * 0 (it touched the level), so the mean is smaller, still O(sqrt(dt)).
 * It is computed here, on the host, from the absorbed path's state, which
 * the kernels freeze at the absorbing step's end (codegen/boundary.c):
 * no row and no kernel code of its own.
 *
 * Value datasets carry the attribute standard_error naming their error
 * dataset.  Everything is reduced on the host from the state rows, path by
 * path in the order of the global path index (as obs_cov.c): the results
 * do not depend on the backend's threads or on how the paths are cut into
 * shards.  Only the survival is sampled (and kept by checkpoints); the rest
 * comes from the final state, whose boundary rows checkpoints carry.
 *
 * Windows of the paths (sim/run.h, --target-se): every fold above is
 * sequential over the paths in their order (Welford per path, counts), so
 * its state after the windows so far is all a later window needs: it lives
 * in the carry (observe/paths.h: one slot for the survival counts at each
 * sample, one for the final fold: accumulators, censored count, histogram),
 * each window folds only the paths it holds (sdk_paths_held) onto it, and
 * the fractions divide by the paths so far (sdk_paths_used).  A window of
 * whole fold units after the earlier ones thus gives bitwise the results of
 * one run over all their paths.
 *
 * --dt-check (observe/bias.h; the coarse path's own boundary rows: codegen.h
 * dtc_bound, boundary.c) gives every value above its bias_NAME and
 * bias_err_NAME from the per-path coupled difference coarse - fine:
 *   exit_mean   D = min(tau_c, t_end) - min(tau_f, t_end), a path not
 *               absorbed by t_end counting t_end (the censoring of
 *               exit_mean itself), so a path absorbed in one copy alone
 *               contributes the difference of its capped times;
 *   split[b]    D = 1[coarse absorbed at b] - 1[fine absorbed at b];
 *   survival    D = 1[coarse alive at t] - 1[fine alive at t];
 *   mean[b]     a ratio, E[tau 1_b] / P(b), in each copy: its difference is
 *               R_c - R_f of the ratios, the standard error by the delta
 *               method from the per-path vector (tau_c 1_cb, 1_cb, tau_f 1_fb,
 *               1_fb) (its means and co-moments folded like the rest),
 *               var = w' C w / n, w = (1/P_c, -R_c/P_c, -1/P_f, R_f/P_f).
 * (overshoot has no bias datasets: its limit for Gaussian noise is 0, the
 * discretisation's own number, not a value a coarser step corrects.)
 * The Richardson order is that of first-passage functionals, not the
 * scheme's weak order: 1 with the Brownian-bridge correction (Gobet 2000;
 * Gobet & Menozzi 2010), 1/2 with discrete monitoring alone
 * (--no-bridge-correction: the path leaves unseen between steps, an error
 * of order sqrt(dt)); so p = min(weak order, 1), or 1/2 (attribute order on
 * every bias dataset).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/abi.h"
#include "codegen/codegen.h"
#include "core/strbuf.h"
#include "observe/bias.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"
#include "rng/btree.h"

/* A grid point's final fold (the carry's slot, or scratch without one):
 * FD doubles then FI int64s (observe/paths.h slots hold bytes) */
#define MV 21 /* the delta method's vector: n, 4 means, 4 x 4 co-moments */

typedef struct {
  int nb, dtc, adapt;                     /* adapt: --adaptive's hitting sub-steps */
  int64_t bins, nd, ni;                   /* per grid point in the final fold: doubles, int64s */
  int64_t over_at;                        /* the overshoots' folds (3 per boundary) in it */
  int over_ok[SDK_MODEL_MAX_BOUNDARIES];  /* absorbing, its level the same for every path */
  int upper[SDK_MODEL_MAX_BOUNDARIES];    /* the level is an upper one (x >= E) */
  double level[SDK_MODEL_MAX_BOUNDARIES]; /* at the grid point being folded */
  double *pv;                             /* its parameter values */
  double *over, *over_err;                /* [g][b] */
  double *split, *split_err, *mean, *mean_err, *exit_mean, *exit_err; /* [g][b], [g] */
  int64_t *censored, *lower;                                          /* [g] */
  uint64_t *hist;                                                     /* [g][b][bins] */
  double *edges;                                                      /* [g][bins + 1] */
  double *surv, *surv_err;                                            /* [g][s] */
  double *buf; /* [6 + nb][SDK_RED_CHUNK]: fine status, lo, hi, then the coarse path's,
                  then each boundary's variable */
  sdk_rowcache rc;
  unsigned char *scratch; /* a grid point's fold without a carry */
  /* --dt-check: the bias datasets (bias.h) */
  sdk_bias b_split, b_mean, b_exit, b_surv;
} state;

static void fpt_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->buf);
  free(st->pv);
  sdk_rowcache_free(&st->rc);
  free(st->scratch);
  free(st);
}

/* a value dataset [grid..., extra...] and, err != NULL, its error dataset
 * (and with --dt-check its bias datasets into *b) */
static sdk_err value_ds(const sdk_obs_ctx *c, const char *name, const char *err, int nextra,
                        const int64_t *extra, int sample_axis, double **val, double **everr,
                        sdk_bias *b, sdk_errbuf *eb) {
  char path[64];
  sdk_dataset *d;
  snprintf(path, sizeof path, "fpt/%s", name);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, nextra, extra, sample_axis, 0, &d, eb));
  *val = sdk_ds_f64(d);
  if (!err) return SDK_OK;
  SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
  if (b) {
    /* (fpt.c's head: first passage has order 1 with the bridge, 1/2 without) */
    double p = c->bridge ? (c->weak_order < 1 ? c->weak_order : 1) : 0.5;
    SDK_CHECK(sdk_bias_setup_order(c, "fpt", name, d, nextra, extra, sample_axis, p, b, eb));
  }
  snprintf(path, sizeof path, "fpt/%s", err);
  SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, nextra, extra, sample_axis, 0, &d, eb));
  *everr = sdk_ds_f64(d);
  return SDK_OK;
}

/* Does e use a parameter given per path (--path-params) or a [particle] one? */
static int per_path(const sdk_obs_ctx *c, const sdk_expr *e) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_OTHER) return 1;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM && c->path_param &&
      c->path_param[e->index] >= 0)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (per_path(c, e->arg[i])) return 1;
  return 0;
}

static sdk_err fpt_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  if (m->nbound == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe fpt needs a model with [boundaries] (model '%s' has none; e.g. "
                    "[boundaries] right = absorb x >= L)",
                    m->name);
  int64_t bins = c->opts->bins;
  if (bins < 1 || bins > 100000000)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--bins must be between 1 and 1e8");
  SDK_CHECK(sdk_obs_check_size(c, "fpt", c->dt_check ? 4.0 : 2.0, eb));
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for fpt");
  st->nb = m->nbound;
  st->dtc = c->dt_check;
  st->bins = bins;
  st->nd = 3 * (st->nb + 1) + (st->dtc ? 3 + MV * st->nb : 0);
  st->over_at = st->nd;
  st->nd += 3 * st->nb;
  st->ni = 1 + st->nb * bins + (st->dtc ? 2 * st->nb : 0);
  for (int b = 0; b < st->nb; b++) {
    st->upper[b] = m->bound[b].upper;
    st->over_ok[b] = m->bound[b].kind == SDK_BOUND_ABSORB && !per_path(c, m->bound[b].level);
  }
  st->buf = malloc((6 + (size_t)st->nb) * (size_t)SDK_RED_CHUNK * sizeof *st->buf);
  st->pv = malloc(((size_t)m->nparams + 1) * sizeof *st->pv);
  st->scratch = malloc((size_t)(st->nd + st->ni) * 8);
  if (!st->buf || !st->pv || !st->scratch)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for fpt");
  int64_t nb = st->nb, ns = c->nsamples_max, hb[2] = {nb, bins}, ne = bins + 1;
  SDK_CHECK(
      value_ds(c, "split", "split_err", 1, &nb, -1, &st->split, &st->split_err, &st->b_split, eb));
  SDK_CHECK(value_ds(c, "mean", "mean_err", 1, &nb, -1, &st->mean, &st->mean_err, &st->b_mean, eb));
  SDK_CHECK(
      value_ds(c, "overshoot", "overshoot_err", 1, &nb, -1, &st->over, &st->over_err, NULL, eb));
  SDK_CHECK(value_ds(c, "exit_mean", "exit_err", 0, NULL, -1, &st->exit_mean, &st->exit_err,
                     &st->b_exit, eb));
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
  SDK_CHECK(value_ds(c, "survival", "survival_err", 1, &ns, 0, &st->surv, &st->surv_err,
                     &st->b_surv, eb));
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

/* The boundary rows r (0 status, 1 step mod 2^20, 2 step >> 20; + 3 the
 * coarse path's) of the `len` paths of grid point g from local index a into
 * st->buf + r * SDK_RED_CHUNK; with vars, then boundary b's variable (the
 * overshoot's) into st->buf + (6 + b) * SDK_RED_CHUNK. */
static sdk_err read_rows(const sdk_obs_ctx *c, state *st, int nrows, int vars, int64_t g, int64_t a,
                         int64_t len, sdk_errbuf *eb) {
  const sdk_paths *P = c->paths;
  for (int r = 0; r < nrows; r++) {
    /* (--adaptive: the hitting sub-step's place, in place of a coarse copy) */
    int row = r < 3               ? P->bound_row + r
              : P->adapt_row >= 0 ? P->adapt_row + SDK_CG_ADAPT_HIT
                                  : c->dtc_bound_row + r - 3;
    SDK_CHECK(sdk_paths_rows_cached(P, &st->rc, row, g * c->ppg + a, len,
                                    st->buf + r * SDK_RED_CHUNK, eb));
  }
  for (int b = 0; vars && b < st->nb; b++)
    if (st->over_ok[b])
      SDK_CHECK(sdk_paths_rows_cached(P, &st->rc, c->model->bound[b].var, g * c->ppg + a, len,
                                      st->buf + (6 + b) * SDK_RED_CHUNK, eb));
  return SDK_OK;
}

/* Moments of D in {-1, 0, 1} over n paths, n_plus of them 1, n_minus -1 */
static sdk_moments sign_moments(double n, double plus, double minus) {
  double mean = n > 0 ? (plus - minus) / n : 0;
  sdk_moments d = {n, mean, plus + minus - n * mean * mean};
  return d;
}

static sdk_err fpt_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  if (P->bound_row < 0 || (st->dtc && c->dtc_bound_row < 0))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "fpt: the paths have no boundaries");
  sdk_rowcache_reset(&st->rc);
  int64_t ns = c->nsamples_max, ngrid = c->R->ngrid;
  /* per grid point the paths alive and, with --dt-check, those alive in
   * the coarse copy alone and in the fine one alone: carried (fpt.c's head) */
  int64_t *cnt = NULL;
  int fresh;
  size_t w = st->dtc ? 3 : 1;
  if (P->carry)
    SDK_CHECK(sdk_carry_slot(P->carry, w * (size_t)ngrid * sizeof *cnt, (void **)&cnt, &fresh, eb));
  /* the paths alive counted where they live (a GPU's: only the counts cross
   * to the host, not the status row of every path at every sample); with
   * --dt-check, or a backend that cannot, from the rows read here */
  int64_t *alive = NULL;
  int counted = 0;
  if (!st->dtc) {
    if (!(alive = malloc((size_t)(ngrid > 0 ? ngrid : 1) * sizeof *alive)))
      return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for fpt");
    sdk_err e = sdk_paths_count_zero(P, P->bound_row, alive, &counted, eb);
    if (e != SDK_OK) {
      free(alive);
      return e;
    }
  }
  for (int64_t g = 0; g < ngrid; g++) {
    int64_t a[3] = {0, 0, 0}, first, held;
    if (cnt) memcpy(a, cnt + w * g, w * sizeof *a);
    sdk_paths_held(P, g, &first, &held);
    if (counted) a[0] += alive[g], held = 0;
    for (int64_t k = first; k < first + held; k += SDK_RED_CHUNK) {
      int64_t len = first + held - k < SDK_RED_CHUNK ? first + held - k : SDK_RED_CHUNK;
      sdk_err re = read_rows(c, st, st->dtc ? 4 : 1, 0, g, k, len, eb);
      if (re != SDK_OK) {
        free(alive);
        return re;
      }
      const double *fs = st->buf, *cs = st->buf + 3 * SDK_RED_CHUNK;
      for (int64_t i = 0; i < len; i++) {
        a[0] += fs[i] == 0;
        if (!st->dtc) continue;
        a[1] += cs[i] == 0 && fs[i] != 0;
        a[2] += fs[i] == 0 && cs[i] != 0;
      }
    }
    if (cnt) memcpy(cnt + w * g, a, w * sizeof *a);
    int64_t used = sdk_paths_used(P, g);
    double n = (double)used, S = used > 0 ? (double)a[0] / n : NAN;
    double *v = &st->surv[g * ns + s], *e = &st->surv_err[g * ns + s];
    *v = S;
    *e = used > 0 ? sqrt(S * (1 - S) / n) : NAN;
    if (st->dtc) {
      sdk_moments d = sign_moments(n, (double)a[1], (double)a[2]);
      sdk_bias_set(c, &st->b_surv, g * ns + s, &d, 1, v, e);
    }
  }
  free(alive);
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

/* the same for a vector of 4 (the delta method's): v = n, mean[4], C[4][4] */
static void fold4(double *v, const double x[4]) {
  double d[4];
  v[0] += 1;
  for (int i = 0; i < 4; i++) {
    d[i] = x[i] - v[1 + i];
    v[1 + i] += d[i] / v[0];
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      v[5 + 4 * i + j] += d[i] * (x[j] - v[1 + j]);
}

/* a path's status row as the boundary index (-1 alive at t_end: an unknown
 * status counts so too; rows come from checkpoints: compare before
 * converting) and its hitting time */
static int hit_of(const state *st, const double *status, const double *lo, const double *hi,
                  int64_t i, double dt, double *tau, int64_t *n, double *frac) {
  int b = status[i] >= 1 && status[i] <= st->nb ? (int)status[i] - 1 : -1;
  *n = b < 0 ? 0 : (int64_t)(lo[i] + hi[i] * 1048576.0);
  *frac = 0;
  *tau = b < 0 ? NAN : (lo[i] + hi[i] * 1048576.0) * dt;
  /* --adaptive: the end of the hitting sub-step, r dt 2^-D before the step's
   * (codegen.h SDK_CG_ADAPT_HIT, rng/btree.h) */
  if (b >= 0 && st->adapt) {
    *frac = ldexp(status[i + 3 * SDK_RED_CHUNK], -SDK_BTREE_DEPTH);
    *tau -= *frac * dt;
  }
  return b;
}

/* The bin of a path absorbed in the step (or sub-step) ending at n - frac
 * steps (frac: --adaptive's part of a step before its end), of a run of
 * nsteps: bins are (lo, hi] in steps (the first [0, hi]), so a hit at the
 * end of a step on an edge belongs below it, as S(t) at that edge counts it.
 * Taken as [lo, hi) of times, every hit went one step up (the first bin
 * empty at bins of dt, the last counting two steps).  Whole steps in
 * integers: n dt and the edges t_end k / bins differ in the last bits. */
static int64_t hist_bin(int64_t n, double frac, int64_t nsteps, int64_t bins) {
  int64_t k;
  if (n <= 0 || nsteps <= 0)
    k = 0;
  else if (frac == 0 && n <= INT64_MAX / bins)
    k = (n * bins - 1) / nsteps;
  else
    k = (int64_t)ceil(((double)n - frac) * (double)bins / (double)nsteps) - 1;
  return k < 0 ? 0 : k > bins - 1 ? bins - 1 : k;
}

/* One chunk of `len` paths of grid point g (rows in st->buf) folded onto
 * its fold f (acc: per boundary, then the exit times; then with --dt-check
 * the coupled differences) and the histogram hist. */
static void fold_chunk(state *st, double *f, int64_t *fi, int64_t len, double dt, int64_t nsteps) {
  const double tend = (double)nsteps * dt;
  int nb = st->nb;
  const double *B = st->buf;
  const int64_t R = SDK_RED_CHUNK;
  int64_t *censored = fi, *hist = fi + 1, *sgn = fi + 1 + nb * st->bins;
  double *acc = f, *dexit = f + 3 * (nb + 1), *dmean = dexit + 3, *over = f + st->over_at;
  for (int64_t i = 0; i < len; i++) {
    double tau, tc = NAN, frac, fc;
    int64_t n, nc;
    int b = hit_of(st, B, B + R, B + 2 * R, i, dt, &tau, &n, &frac);
    if (b < 0) {
      (*censored)++;
      fold(acc + 3 * nb, tend);
    } else {
      fold(acc + 3 * b, tau);
      fold(acc + 3 * nb, tau < tend ? tau : tend);
      if (st->over_ok[b]) {
        double x = B[(6 + b) * R + i], o = st->upper[b] ? x - st->level[b] : st->level[b] - x;
        fold(over + 3 * b, o > 0 ? o : 0); /* (the near side: touched by the bridge) */
      }
      hist[b * st->bins + hist_bin(n, frac, nsteps, st->bins)]++;
    }
    if (!st->dtc) continue;
    int bc = hit_of(st, B + 3 * R, B + 4 * R, B + 5 * R, i, dt, &tc, &nc, &fc);
    double ef = b < 0 || !(tau < tend) ? tend : tau, ec = bc < 0 || !(tc < tend) ? tend : tc;
    fold(dexit, ec - ef);
    for (int k = 0; k < nb; k++) {
      sgn[2 * k] += bc == k && b != k;
      sgn[2 * k + 1] += b == k && bc != k;
      const double x[4] = {bc == k ? tc : 0, bc == k, b == k ? tau : 0, b == k};
      fold4(dmean + MV * k, x);
    }
  }
}

/* --dt-check: the bias of mean[g][b], the difference of the ratios E[tau
 * 1_b] / P(b) of the coarse and the fine copy (fpt.c's head) */
static void mean_bias(const sdk_obs_ctx *c, const state *st, const double *v, int64_t i) {
  double n = v[0], Pc = v[2], Pf = v[4], Rc = v[1] / Pc, Rf = v[3] / Pf;
  const double w[4] = {1 / Pc, -Rc / Pc, -1 / Pf, Rf / Pf};
  double q = 0;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      q += w[a] * v[5 + 4 * a + b] * w[b];
  sdk_moments d = {n > 0 && Pc > 0 && Pf > 0 ? n : 0, Rc - Rf, q};
  sdk_bias_set(c, &st->b_mean, i, &d, 1, &st->mean[i], &st->mean_err[i]);
}

/* Grid point g's values from its fold over `used` paths */
static void grid_values(const sdk_obs_ctx *c, state *st, int64_t g, const double *f,
                        const int64_t *fi, int64_t used) {
  int nb = st->nb;
  double n = (double)used;
  for (int b = 0; b < nb; b++) {
    const double *a = f + 3 * b;
    double p = used > 0 ? a[0] / n : NAN;
    st->split[g * nb + b] = p;
    st->split_err[g * nb + b] = used > 0 ? sqrt(p * (1 - p) / n) : NAN;
    st->mean[g * nb + b] = a[0] > 0 ? a[1] : NAN;
    st->mean_err[g * nb + b] = sdk_se_mean(a[0], a[2]);
    const double *o = f + st->over_at + 3 * b;
    st->over[g * nb + b] = st->over_ok[b] && o[0] > 0 ? o[1] : NAN;
    st->over_err[g * nb + b] = st->over_ok[b] ? sdk_se_mean(o[0], o[2]) : NAN;
  }
  const double *a = f + 3 * nb;
  st->exit_mean[g] = a[0] > 0 ? a[1] : NAN;
  st->exit_err[g] = sdk_se_mean(a[0], a[2]);
  st->censored[g] = fi[0];
  st->lower[g] = fi[0] > 0;
  memcpy(st->hist + g * nb * st->bins, fi + 1, (size_t)(nb * st->bins) * sizeof *st->hist);
  if (!st->dtc) return;
  const double *dexit = f + 3 * (nb + 1), *dmean = dexit + 3;
  const int64_t *sgn = fi + 1 + nb * st->bins;
  sdk_moments d = {dexit[0], dexit[1], dexit[2]};
  sdk_bias_set(c, &st->b_exit, g, &d, 1, &st->exit_mean[g], &st->exit_err[g]);
  for (int b = 0; b < nb; b++) {
    d = sign_moments(n, (double)sgn[2 * b], (double)sgn[2 * b + 1]);
    sdk_bias_set(c, &st->b_split, g * nb + b, &d, 1, &st->split[g * nb + b],
                 &st->split_err[g * nb + b]);
    mean_bias(c, st, dmean + MV * b, g * nb + b);
  }
}

static sdk_err fpt_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  if (P->bound_row < 0 || (st->dtc && c->dtc_bound_row < 0))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "fpt: the paths have no boundaries");
  sdk_rowcache_reset(&st->rc);
  st->adapt = P->adapt_row >= 0 && !st->dtc;
  int64_t ngrid = c->R->ngrid, rec = (st->nd + st->ni) * 8;
  unsigned char *slot = NULL;
  int fresh;
  if (P->carry)
    SDK_CHECK(sdk_carry_slot(P->carry, (size_t)(ngrid * rec), (void **)&slot, &fresh, eb));
  for (int64_t g = 0; g < ngrid; g++) {
    unsigned char *r = slot ? slot + g * rec : st->scratch;
    if (!slot) memset(r, 0, (size_t)rec);
    double *f = (double *)r, dt = c->R->dt[g], tend = (double)c->R->nsteps * dt;
    int64_t *fi = (int64_t *)(r + st->nd * 8), first, held;
    sdk_paths_held(P, g, &first, &held);
    sdk_obs_grid_params(c, g, st->pv);
    for (int b = 0; b < st->nb; b++)
      st->level[b] = st->over_ok[b] ? sdk_model_eval_params(c->model->bound[b].level, st->pv) : 0;
    for (int64_t k = first; k < first + held; k += SDK_RED_CHUNK) {
      int64_t len = first + held - k < SDK_RED_CHUNK ? first + held - k : SDK_RED_CHUNK;
      SDK_CHECK(read_rows(c, st, st->dtc ? 6 : st->adapt ? 4 : 3, 1, g, k, len, eb));
      fold_chunk(st, f, fi, len, dt, c->R->nsteps);
    }
    grid_values(c, st, g, f, fi, sdk_paths_used(P, g));
    for (int64_t e = 0; e <= st->bins; e++)
      st->edges[g * (st->bins + 1) + e] = sdk_tsv_bin_edge(0, tend, e, st->bins);
  }
  return SDK_OK;
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
  /* (files from before the overshoot have none: their columns are left out) */
  const double *ov = sdk_results_f64(R, "fpt/overshoot"),
               *ove = sdk_results_f64(R, "fpt/overshoot_err");
  if (!ove) ov = NULL;
  sdk_strbuf h;
  sdk_sb_init(&h);
  for (int b = 0; b < nb; b++)
    sdk_sb_printf(&h, "split_%s\tsplit_err_%s\tmean_%s\tmean_err_%s\t", names[b], names[b],
                  names[b], names[b]);
  sdk_sb_puts(&h, "exit_mean\texit_err\tcensored\tlower_bound");
  for (int b = 0; ov && b < nb; b++) /* (last: the earlier columns keep their numbers) */
    sdk_sb_printf(&h, "\tovershoot_%s\tovershoot_err_%s", names[b], names[b]);
  sdk_err e = h.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                    : sdk_tsv_header(R, f, "fpt", eb, "%s", h.s ? h.s : "");
  sdk_sb_free(&h);
  SDK_CHECK(e);
  char num[64];
  for (int64_t g = 0; g < R->ngrid; g++) {
    /* 2-D scan: a blank line where axis 0 changes (splot); more: blocks */
    sdk_tsv_grid_break(R, g, f);
    sdk_tsv_coords(R, g, f);
    for (int b = 0; b < nb; b++) {
      const double v[4] = {sp[g * nb + b], spe[g * nb + b], mn[g * nb + b], mne[g * nb + b]};
      for (int k = 0; k < 4; k++)
        fprintf(f, "%s\t", sdk_fmt_stat(num, v[k]));
    }
    fprintf(f, "%s\t", sdk_fmt_stat(num, em[g]));
    fprintf(f, "%s\t%lld\t%lld", sdk_fmt_stat(num, ee[g]), (long long)cen[g], (long long)lb[g]);
    for (int b = 0; ov && b < nb; b++) {
      fprintf(f, "\t%s", sdk_fmt_stat(num, ov[g * nb + b]));
      fprintf(f, "\t%s", sdk_fmt_stat(num, ove[g * nb + b]));
    }
    fputc('\n', f);
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
  int nb = sdk_obs_group_names(R, "fpt", "boundaries", names, SDK_MODEL_MAX_BOUNDARIES);
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
  /* block 3: the histograms of tau */
  return sdk_tsv_time_hists(R, f, "fpt", "boundary", names, nb,
                            sdk_store_find(&R->store, "fpt/hist"),
                            sdk_results_f64(R, "fpt/hist_edges"), eb);
}

const sdk_obs_type sdk_obs_fpt = {
    .name = "fpt",
    .description = "first passage at [boundaries]: splitting probabilities, mean times (with "
                   "standard errors), histograms, survival S(t); censored paths reported",
    .flags = SDK_OBS_SAMPLED | SDK_OBS_BOUNDARIES | SDK_OBS_BIAS,
    .setup = fpt_setup,
    .sample = fpt_sample,
    .finish = fpt_finish,
    .free = fpt_free,
    .write_tsv = fpt_tsv,
};
