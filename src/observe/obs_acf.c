/* acf: the autocovariance of chosen variables or user observables
 * (--corr-vars; default every variable) at the lags s = 0 .. max_lag sample intervals (--max-lag;
 * the lag in time is s * sample_every * dt), averaged over time after the transient and over the
 * paths, with its standard error from the spread of the per-path estimates (the paths are
 * independent).
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
 * path and sample, O(max_lag) products (below: qrow); the rows cross from a
 * GPU at every sample.  For at most 32 lags (sdk_corr_kernel) the kernel
 * accumulates the same sums at every sample step instead (codegen/acf.h),
 * nothing is sampled, and the host reads the sums once at the end: the same
 * estimator and reductions, the same products and sums in double in the
 * same order: bitwise the host's in double precision; in single precision
 * within ~2^-48 relative (the host keeps its sums to 2^-48 between its
 * blocks of K samples, the kernel exactly). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/acf.h"
#include "observe/obs_corr.h"

typedef struct {
  sdk_corr k;
  int64_t K;
  int kernel; /* the kernel accumulates the sums (sdk_corr_kernel); single precision */
  int single;
  double **cov, **err, **mean, *lag;
  double *buf; /* of a block of paths: sums [K + 1], ring [2 K], hi, lo, x */
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
  st->kernel = sdk_corr_kernel(c, NULL, NULL, NULL) > 0;
  st->single = !strcmp(c->R->precision, "single");
  int nq = st->k.nq;
  if (!(st->cov = calloc((size_t)nq, sizeof *st->cov)) ||
      !(st->err = calloc((size_t)nq, sizeof *st->err)) ||
      !(st->mean = calloc((size_t)nq, sizeof *st->mean)) ||
      !(st->buf = malloc((size_t)((3 * K + 4) * st->k.block) * sizeof *st->buf)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the acf");
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(c, "acf/lag", SDK_F64, 1, &K, -1, SDK_DS_COORD, &d, eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "lag", eb)); /* (in units of t) */
  st->lag = sdk_ds_f64(d);
  for (int64_t g = 0; g < c->R->ngrid; g++)
    for (int64_t s = 0; s < K; s++)
      st->lag[g * K + s] = (double)(s * st->k.every) * c->R->dt[g];
  const char *names[SDK_CORR_MAXQ];
  for (int j = 0; j < nq; j++) {
    char path[160], err[96];
    names[j] = sdk_corr_name(c, &st->k, j);
    snprintf(err, sizeof err, "err_%s", names[j]);
    snprintf(path, sizeof path, "acf/cov_%s", names[j]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &K, -1, 0, &d, eb));
    SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
    SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "lag", eb));
    st->cov[j] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "acf/%s", err);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &K, -1, 0, &d, eb));
    SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "lag", eb));
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

/* The rows of quantity j: a ring of the last 2 K samples (sample m in row
 * m mod 2 K), then K + 1 pairs: the sums of x_t x_{t-s} for s < K, the sum
 * of x.  The products are added K samples at a time, when sample m with
 * (m + 1) mod K = 0 arrives (all the partners of those K are in the ring):
 * the rows cross 2 + about 8 times per sample instead of 5 K times; the
 * samples since the last such block are added at the end from the ring
 * (acf_finish), so a checkpoint anywhere holds what is needed. */
static int qrow(const sdk_obs_ctx *c, const state *st, int j) {
  return sdk_corr_row(c, "acf") + 2 + j * (int)(4 * st->K + 2);
}

/* the pairs of quantity j of the paths [a, a + n) into sums[l * nb + i]
 * (l < K: lag l; l = K: the sum of x), or back (write) */
static sdk_err sums_rows(const sdk_obs_ctx *c, state *st, int j, int64_t a, int64_t n, double *sums,
                         int write, sdk_errbuf *eb) {
  int64_t K = st->K, nb = st->k.block;
  double *hi = st->buf + (3 * K + 1) * nb, *lo = hi + nb;
  int row = qrow(c, st, j) + 2 * (int)K;
  for (int64_t l = 0; l <= K; l++)
    SDK_CHECK(sdk_corr_pair(c->paths, row + 2 * (int)l, a, n, sums + l * nb, hi, lo, write, eb));
  return SDK_OK;
}

/* add samples [from, to) (at most K, the last in the ring) of the paths
 * [a, a + n) into sums: x_t x_{t-s} for every lag s < K with t - s >= 0,
 * and x_t, in the order of t */
static sdk_err add_samples(const sdk_obs_ctx *c, state *st, int j, int64_t from, int64_t to,
                           int64_t a, int64_t n, double *sums, sdk_errbuf *eb) {
  int64_t K = st->K, nb = st->k.block, R = 2 * K;
  double *ring = st->buf + (K + 1) * nb;
  int row = qrow(c, st, j);
  for (int64_t m = from - (K - 1) > 0 ? from - (K - 1) : 0; m < to; m++)
    SDK_CHECK(sdk_paths_rows(c->paths, row + (int)(m % R), a, n, ring + (m % R) * nb, 0, eb));
  for (int64_t t = from; t < to; t++) {
    const double *x = ring + (t % R) * nb;
    for (int64_t lag = 0; lag < K && lag <= t; lag++) {
      const double *y = ring + ((t - lag) % R) * nb;
      double *sl = sums + lag * nb;
      for (int64_t i = 0; i < n; i++)
        sl[i] += x[i] * y[i];
    }
    double *sm = sums + K * nb;
    for (int64_t i = 0; i < n; i++)
      sm[i] += x[i];
  }
  return SDK_OK;
}

/* sample smp (after the transient) of the paths [a, a + n) into the ring;
 * at the end of a block of K samples their products into the sums */
static sdk_err add_block(const sdk_obs_ctx *c, state *st, int j, int64_t smp, int64_t a, int64_t n,
                         sdk_errbuf *eb) {
  int64_t K = st->K, nb = st->k.block;
  double *x = st->buf + (3 * K + 3) * nb;
  SDK_CHECK(sdk_corr_values(c, &st->k, j, a, n, x, eb));
  SDK_CHECK(sdk_paths_rows(c->paths, qrow(c, st, j) + (int)(smp % (2 * K)), a, n, x, 1, eb));
  if ((smp + 1) % K) return SDK_OK;
  SDK_CHECK(sums_rows(c, st, j, a, n, st->buf, 0, eb));
  SDK_CHECK(add_samples(c, st, j, smp + 1 - K, smp + 1, a, n, st->buf, eb));
  return sums_rows(c, st, j, a, n, st->buf, 1, eb);
}

static sdk_err acf_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  (void)s;
  if (step < st->k.first || st->kernel) return SDK_OK;
  int64_t smp = (step - st->k.first) / st->k.every, total = c->R->ngrid * c->ppg;
  SDK_CHECK(sdk_corr_eval(c, &st->k, step, eb));
  for (int j = 0; j < st->k.nq; j++)
    for (int64_t a = 0; a < total; a += st->k.block)
      SDK_CHECK(add_block(c, st, j, smp, a, total - a < st->k.block ? total - a : st->k.block, eb));
  int64_t count = smp + 1;
  return sdk_corr_count(c->paths, sdk_corr_row(c, "acf"), &count, 1, eb);
}

/* the kernel's sums of quantity j of the paths [a, a + n) (codegen/acf.h):
 * doubles (single precision: three floats, their sum exact) */
static sdk_err kernel_sums(const sdk_obs_ctx *c, state *st, int j, int64_t a, int64_t n,
                           double *sums, sdk_errbuf *eb) {
  int K = (int)st->K, sg = st->single;
  int64_t nb = st->k.block;
  double *r = st->buf + (3 * K + 1) * nb, *r2 = r + nb;
  for (int l = 0; l <= K; l++) {
    double *s = sums + l * nb;
    int row = c->host_row + sdk_cg_acf_row(K, sg, j, 1, l, 0);
    SDK_CHECK(sdk_paths_rows(c->paths, row, a, n, s, 0, eb));
    if (!sg) continue;
    SDK_CHECK(sdk_paths_rows(c->paths, row + 1, a, n, r, 0, eb));
    SDK_CHECK(sdk_paths_rows(c->paths, row + 2, a, n, r2, 0, eb));
    for (int64_t i = 0; i < n; i++)
      s[i] = (s[i] + r[i]) + r2[i];
  }
  return SDK_OK;
}

/* the sums of quantity j over all N samples of the paths [a, a + n):
 * those of the rows and the samples since the last block */
static sdk_err read_sums(const sdk_obs_ctx *c, state *st, int j, int64_t a, int64_t n, int64_t N,
                         double *sums, sdk_errbuf *eb) {
  if (st->kernel) return kernel_sums(c, st, j, a, n, sums, eb);
  SDK_CHECK(sums_rows(c, st, j, a, n, sums, 0, eb));
  return N % st->K ? add_samples(c, st, j, N - N % st->K, N, a, n, sums, eb) : SDK_OK;
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
      SDK_CHECK(read_sums(c, st, j, g * ppg + a, n, N, sums, eb));
      double *okv = st->buf + (3 * K + 3) * nb; /* (scratch) */
      for (int64_t i = 0; i < n; i++) {         /* a path with any sum not finite is left out */
        okv[i] = 1;
        for (int64_t l = 0; l <= K && okv[i] != 0; l++)
          okv[i] = isfinite(sums[l * nb + i]);
      }
      for (int64_t k = 0; k < n; k += SDK_RED_CHUNK) {
        sdk_moments ch[1];
        for (int64_t lag = pass ? 0 : K; lag <= (pass ? K - 1 : K); lag++) {
          ch[0] = (sdk_moments){0, 0, 0};
          for (int64_t i = k; i < n && i < k + SDK_RED_CHUNK; i++) {
            if (okv[i] == 0) continue;
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
  int64_t K = st->K, N = st->k.nsmp; /* (the kernel's: every sample of the run) */
  if (!st->kernel) SDK_CHECK(sdk_corr_count(c->paths, sdk_corr_row(c, "acf"), &N, 0, eb));
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
        st->err[j][g * K + l] = ok ? sdk_se_mean(mom[l].n, mom[l].m2) : NAN;
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
