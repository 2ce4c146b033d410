/* acf: the autocovariance of chosen variables (--corr-vars; default every
 * variable) at the lags s = 0 .. max_lag sample intervals (--max-lag; the lag
 * in time is s * sample_every * dt), averaged over time after the transient
 * and over the paths, with its standard error from the spread of the
 * per-path estimates (the paths are independent).
 *
 *   acf/lag        [grid..., K]  s * sample_every * dt (K = max_lag + 1)
 *   acf/cov_X      [grid..., K]  C(s) = <x(t) x(t + s)> - m^2: the path mean of
 *                  p_i(s) = (1/(N - s)) sum_{j < N - s} x_j x_{j+s} over the
 *                  N samples x_j after the transient, less the square of the
 *                  mean m over the paths and the N samples; standard_error
 *                  names err_X
 *   acf/err_X      [grid..., K]  sqrt(var(z_i) / n), z_i(s) = p_i(s) - 2 m a_i
 *                  (a_i the path's time mean): the delta method of p - m^2
 *   acf/mean_X     [grid...]     m
 *   /acf: names, max_lag, sample_every, samples (N)
 *
 * Estimator: for a stationary process E p_i(s) = C(s) + mu^2 exactly, and
 * m^2 has the bias var(m) = O(1/(n N)) relative to C(0)'s scale, far below
 * the standard error.  Paths with a non-finite sum are left out (n counts
 * the others).  Computed on the host from the samples (obs_corr.h): per
 * path and sample, O(max_lag) products; the rows cross from a GPU at every
 * sample. */
#include <math.h>
#include <stdlib.h>

#include "observe/obs_corr.h"

typedef struct {
  sdk_corr k;
  int64_t K;
  double **cov, **err, **mean, *lag;
  double *buf; /* x, r, s, hi, lo of a block; at the end (K + 1) sums of a block */
} state;

static void acf_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->cov), free(st->err), free(st->mean), free(st->buf);
  free(st);
}

static sdk_err acf_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the acf");
  SDK_CHECK(sdk_corr_setup(c, "acf", &st->k, eb));
  int64_t L = sdk_corr_max_lag(c), K = L + 1;
  if (L > SDK_CORR_MAX_LAG)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--max-lag %lld: at most %d", (long long)L,
                    SDK_CORR_MAX_LAG);
  if (L >= st->k.nsmp)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--max-lag %lld: the run takes only %lld samples after the transient; the "
                    "largest lag must be smaller (a longer --t-end, a smaller --sample-every or "
                    "a smaller --max-lag)",
                    (long long)L, (long long)st->k.nsmp);
  st->K = K;
  int nq = st->k.nq;
  if (!(st->cov = calloc((size_t)nq, sizeof *st->cov)) ||
      !(st->err = calloc((size_t)nq, sizeof *st->err)) ||
      !(st->mean = calloc((size_t)nq, sizeof *st->mean)) ||
      !(st->buf = malloc((size_t)((K + 5) * st->k.block) * sizeof *st->buf)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the acf");
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(c, "acf/lag", SDK_F64, 1, &K, -1, SDK_DS_COORD, &d, eb));
  st->lag = sdk_ds_f64(d);
  for (int64_t g = 0; g < c->R->ngrid; g++)
    for (int64_t s = 0; s < K; s++)
      st->lag[g * K + s] = (double)(s * st->k.every) * c->R->dt[g];
  const char *names[SDK_CORR_MAXQ];
  for (int j = 0; j < nq; j++) {
    char path[160], err[96];
    names[j] = c->model->vars[st->k.q[j]];
    snprintf(err, sizeof err, "err_%s", names[j]);
    snprintf(path, sizeof path, "acf/cov_%s", names[j]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &K, -1, 0, &d, eb));
    SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
    st->cov[j] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "acf/%s", err);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &K, -1, 0, &d, eb));
    st->err[j] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "acf/mean_%s", names[j]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 0, NULL, -1, 0, &d, eb));
    st->mean[j] = sdk_ds_f64(d);
  }
  SDK_CHECK(sdk_store_group_strs(c->store, "acf", "names", names, nq, eb));
  SDK_CHECK(sdk_store_group_i64(c->store, "acf", "max_lag", K - 1, eb));
  SDK_CHECK(sdk_store_group_i64(c->store, "acf", "sample_every", st->k.every, eb));
  return sdk_store_group_i64(c->store, "acf", "samples", st->k.nsmp, eb);
}

/* the rows of quantity j: ring [K], sums [2 K], the sum of x [2] */
static int qrow(const sdk_obs_ctx *c, const state *st, int j) {
  return sdk_corr_row(c, "acf") + 2 + j * (int)(3 * st->K + 2);
}

/* sample j (after the transient) of the paths [a, a + n) into their rows */
static sdk_err add_block(const sdk_obs_ctx *c, state *st, int j, int64_t smp, int64_t a, int64_t n,
                         sdk_errbuf *eb) {
  const sdk_paths *P = c->paths;
  int64_t K = st->K, nb = st->k.block;
  double *x = st->buf, *r = x + nb, *s = r + nb, *hi = s + nb, *lo = hi + nb;
  int row = qrow(c, st, j);
  SDK_CHECK(sdk_paths_rows(P, st->k.q[j], a, n, x, 0, eb));
  SDK_CHECK(sdk_paths_rows(P, row + (int)(smp % K), a, n, x, 1, eb));
  for (int64_t lag = 0; lag < K && lag <= smp; lag++) {
    if (lag > 0) SDK_CHECK(sdk_paths_rows(P, row + (int)((smp - lag) % K), a, n, r, 0, eb));
    const double *y = lag > 0 ? r : x;
    int sr = row + (int)K + 2 * (int)lag;
    SDK_CHECK(sdk_corr_pair(P, sr, a, n, s, hi, lo, 0, eb));
    for (int64_t i = 0; i < n; i++)
      s[i] += x[i] * y[i];
    SDK_CHECK(sdk_corr_pair(P, sr, a, n, s, hi, lo, 1, eb));
  }
  int mr = row + 3 * (int)K;
  SDK_CHECK(sdk_corr_pair(P, mr, a, n, s, hi, lo, 0, eb));
  for (int64_t i = 0; i < n; i++)
    s[i] += x[i];
  return sdk_corr_pair(P, mr, a, n, s, hi, lo, 1, eb);
}

static sdk_err acf_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  (void)s;
  if (step < st->k.first) return SDK_OK;
  int64_t smp = (step - st->k.first) / st->k.every, total = c->R->ngrid * c->ppg;
  for (int j = 0; j < st->k.nq; j++)
    for (int64_t a = 0; a < total; a += st->k.block)
      SDK_CHECK(add_block(c, st, j, smp, a, total - a < st->k.block ? total - a : st->k.block, eb));
  int64_t count = smp + 1;
  return sdk_corr_count(c->paths, sdk_corr_row(c, "acf"), &count, 1, eb);
}

/* the sums of quantity j of the paths [a, a + n): sums[lag * nb + i] for
 * lag < K, the sum of x at lag K; *n of the block's rows */
static sdk_err read_sums(const sdk_obs_ctx *c, state *st, int j, int64_t a, int64_t n, double *sums,
                         sdk_errbuf *eb) {
  int64_t K = st->K, nb = st->k.block;
  double *hi = st->buf + (K + 1) * nb, *lo = hi + nb;
  int row = qrow(c, st, j);
  for (int64_t lag = 0; lag <= K; lag++)
    SDK_CHECK(
        sdk_corr_pair(c->paths, row + (int)K + 2 * (int)lag, a, n, sums + lag * nb, hi, lo, 0, eb));
  return SDK_OK;
}

/* one grid point's quantity j: pass 0 folds the time means a_i, pass 1
 * the z_i(s) of every lag, chunk by chunk in path order */
static sdk_err grid_point(const sdk_obs_ctx *c, state *st, int j, int64_t g, int64_t N,
                          sdk_moments *mom, sdk_errbuf *eb) {
  int64_t K = st->K, nb = st->k.block, ppg = c->ppg;
  double *sums = st->buf;
  for (int pass = 0; pass < 2; pass++) {
    double m = mom[K].mean;
    for (int64_t a = 0; a < ppg; a += nb) {
      int64_t n = ppg - a < nb ? ppg - a : nb;
      SDK_CHECK(read_sums(c, st, j, g * ppg + a, n, sums, eb));
      for (int64_t k = 0; k < n; k += SDK_RED_CHUNK) {
        sdk_moments ch[1];
        for (int64_t lag = pass ? 0 : K; lag <= (pass ? K - 1 : K); lag++) {
          ch[0] = (sdk_moments){0, 0, 0};
          for (int64_t i = k; i < n && i < k + SDK_RED_CHUNK; i++) {
            int ok = isfinite(sums[K * nb + i]);
            for (int64_t l = 0; l < K && ok; l++)
              ok = isfinite(sums[l * nb + i]);
            if (!ok) continue;
            double ai = sums[K * nb + i] / (double)N;
            double v = pass ? sums[lag * nb + i] / (double)(N - lag) - 2 * m * ai : ai;
            sdk_moments one = {1, v, 0};
            sdk_moments_merge(&ch[0], &one);
          }
          sdk_moments_merge(&mom[lag], &ch[0]);
        }
      }
    }
  }
  return SDK_OK;
}

static sdk_err acf_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  int64_t K = st->K, N = 0;
  SDK_CHECK(sdk_corr_count(c->paths, sdk_corr_row(c, "acf"), &N, 0, eb));
  sdk_moments *mom = calloc((size_t)K + 1, sizeof *mom);
  if (!mom) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the acf");
  sdk_err e = SDK_OK;
  for (int j = 0; j < st->k.nq && e == SDK_OK; j++)
    for (int64_t g = 0; g < c->R->ngrid && e == SDK_OK; g++) {
      for (int64_t l = 0; l <= K; l++)
        mom[l] = (sdk_moments){0, 0, 0};
      if (N > 0) e = grid_point(c, st, j, g, N, mom, eb);
      double m = mom[K].n > 0 ? mom[K].mean : NAN;
      st->mean[j][g] = m;
      for (int64_t l = 0; l < K; l++) {
        /* the z_i(s) fold to mean(p) - 2 m^2: cov = mean(p) - m^2 */
        int ok = mom[l].n > 0 && l < N;
        st->cov[j][g * K + l] = ok ? mom[l].mean + m * m : NAN;
        st->err[j][g * K + l] =
            ok && mom[l].n > 1 ? sqrt(mom[l].m2 / (mom[l].n - 1) / mom[l].n) : (ok ? 0 : NAN);
      }
    }
  free(mom);
  return e;
}

static sdk_err acf_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  return sdk_corr_tsv(R, f, "acf", "lag", "cov", eb);
}

const sdk_obs_type sdk_obs_acf = {
    .name = "acf",
    .description = "autocovariance of the variables at lags 0..--max-lag sample intervals, over "
                   "time after the transient and the paths, with its standard error",
    .flags = SDK_OBS_SAMPLED,
    .setup = acf_setup,
    .sample = acf_sample,
    .finish = acf_finish,
    .free = acf_free,
    .write_tsv = acf_tsv,
};
