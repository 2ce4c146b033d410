/* psd: the one-sided power spectral density of chosen variables or user
 * observables (--corr-vars; default every variable) by Welch's method: segments of M samples
 * (--psd-segment, a power of 2) overlapping by M/2, after the transient, each
 * multiplied by a window w_n (--psd-window hann, the periodic Hann window
 * 1/2 - 1/2 cos(2 pi n / M), or rect), Fourier transformed; per path the mean
 * of the segments' periodograms, then the mean over the paths with its
 * standard error from their spread (the paths are independent).
 *
 * Convention: with the sampling interval h = sample_every * dt, the bins
 * f_k = k / (M h), k = 0 .. M/2 (cycles per unit time), and
 *   S(f_k) = c_k (h / U) |sum_n w_n x_n exp(-2 pi i k n / M)|^2,
 * U = sum_n w_n^2, c_k = 2 for 0 < k < M/2 and 1 at k = 0 and M/2: one-sided,
 * so that sum_k S(f_k) / (M h) is the mean square of the windowed samples
 * (the variance, for a process of mean 0; no mean is subtracted, so a mean
 * mu adds (h / U) mu^2 (sum_n w_n)^2 at f = 0, leaking into the first bins
 * through the window).  The two-sided spectrum in angular frequency,
 * S2(w) = int C(s) exp(-i w s) ds (the OU process's Lorentzian
 * 2 D / (k^2 + w^2) for C(s) = (D/k) exp(-k |s|)), is S(f) / 2 at w = 2 pi f
 * for 0 < k < M/2, and S(f) itself at f = 0 and the Nyquist frequency (c_k
 * = 1 there: a diffusion constant from S(0) is S(0)/2, not S(0)/4).
 * For the sampled process the expectation is not the Lorentzian but the
 * discrete-time spectrum (aliased) smoothed by the window:
 *   E S(f_k) = c_k (h / U) sum_{n,n'} w_n w_n' C((n - n') h) cos(2 pi k (n - n') / M)
 * (tests/test_corr.c checks it for the Euler-sampled OU process, where C is
 * the AR(1) autocovariance 2 D dt / (1 - r^2) r^m, r = 1 - k dt).
 *
 *   psd/f        [grid..., M/2 + 1]  f_k
 *   psd/S_X      [grid..., M/2 + 1]  S(f_k); standard_error names err_X
 *   psd/err_X    [grid..., M/2 + 1]
 *   /psd: names, segment (M), window, sample_every, segments (per path)
 *
 * Computed on the host from the samples (obs_corr.h): each sample goes into
 * a ring of M rows per path; every M/2 samples the last M are transformed,
 * path by path, by codegen/kernels/psd_fft.h (a real transform of M as a
 * complex one of M/2 points, its twiddles and window computed without libm:
 * the same bits on every machine and in the kernels; no library whose
 * planner could choose differently between ranks).
 *
 * By default (sdk_corr_psd_kernel: M <= 8192, at most 32 quantities, not
 * with --adaptive or [events]; --psd-on-host aside) the kernel does the
 * same in the same rows at every sample step (codegen/psd.h,
 * kernels/psd_seg.h) and nothing is sampled: this file then only reads the
 * sums at the end; the results are the same bits in either precision
 * (tests/test_psd_kernel.c), so the choice changes no result. */
#include <math.h>
#include <stdlib.h>

#include "codegen/kernels/opaque_d.h"
#include "codegen/kernels/psd_fft.h"
#include "observe/obs_corr.h"

typedef struct {
  sdk_corr k;
  int64_t M, B;    /* segment, bins */
  double *w, *tab; /* window [M], cos(2 pi n / M) for n <= M/4 (kernels/psd_fft.h) */
  double **S, **err, *f;
  double *ring, *re, *z, *sum, *hi, *lo; /* [M * nb], [M], [M], [B * nb], [nb], [nb] */
  int64_t nb;
  int kern; /* computed by the kernel (codegen/psd.h): nothing sampled here */
} state;

static void psd_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->w), free(st->tab), free(st->S), free(st->err);
  free(st->ring), free(st->re), free(st->z), free(st->sum), free(st->hi), free(st->lo);
  free(st);
}

static int pow2(int64_t m) {
  return m >= 4 && (m & (m - 1)) == 0;
}

static sdk_err alloc(state *st, int nq, sdk_errbuf *eb) {
  int64_t M = st->M, nb = st->nb;
  if (!(st->w = malloc((size_t)M * sizeof(double))) ||
      !(st->tab = malloc((size_t)(M / 4 + 1) * sizeof(double))) ||
      !(st->S = calloc((size_t)nq, sizeof *st->S)) ||
      !(st->err = calloc((size_t)nq, sizeof *st->err)) ||
      !(st->ring = malloc((size_t)(M * nb) * sizeof(double))) ||
      !(st->re = malloc((size_t)M * sizeof(double))) ||
      !(st->z = malloc((size_t)M * sizeof(double))) ||
      !(st->sum = malloc((size_t)(st->B * nb) * sizeof(double))) ||
      !(st->hi = malloc((size_t)nb * sizeof(double))) ||
      !(st->lo = malloc((size_t)nb * sizeof(double))))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the psd");
  return SDK_OK;
}

static sdk_err psd_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the psd");
  SDK_CHECK(sdk_corr_setup(c, "psd", &st->k, eb));
  int64_t M = sdk_corr_segment(c);
  if (!pow2(M) || M > SDK_CORR_MAX_SEGMENT)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--psd-segment %lld: a power of 2 from 4 to %d",
                    (long long)M, SDK_CORR_MAX_SEGMENT);
  if (M > st->k.nsmp)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--psd-segment %lld: the run takes only %lld samples after the transient, "
                    "not one segment (a longer --t-end, a smaller --sample-every or a shorter "
                    "--psd-segment)",
                    (long long)M, (long long)st->k.nsmp);
  st->M = M, st->B = M / 2 + 1;
  st->kern = sdk_corr_psd_kernel(c, NULL, NULL, NULL) > 0;
  /* paths per block: few enough that the ring and the sums of a block
   * (M x nb, B x nb) stay in cache while each path's column is read */
  st->nb = ((int64_t)1 << 16) / M / SDK_RED_CHUNK * SDK_RED_CHUNK;
  if (st->nb < SDK_RED_CHUNK) st->nb = SDK_RED_CHUNK;
  int nq = st->k.nq, rect = c->opts->psd_window == 1;
  SDK_CHECK(alloc(st, nq, eb));
  for (int64_t n = 0; n <= M / 4; n++)
    st->tab[n] = sdk_psd_quarter(n, M);
  for (int64_t n = 0; n < M; n++)
    st->w[n] = sdk_psd_window(n, M, !rect, st->tab);
  sdk_dataset *d;
  int64_t B = st->B;
  SDK_CHECK(sdk_obs_dataset(c, "psd/f", SDK_F64, 1, &B, -1, SDK_DS_COORD, &d, eb));
  /* (the axis named, and its unit: cycles, not radians) */
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "frequency", eb));
  SDK_CHECK(sdk_ds_attr_str(d, "unit", "cycles per unit of t: f_k = k / (M h)", eb));
  st->f = sdk_ds_f64(d);
  for (int64_t g = 0; g < c->R->ngrid; g++)
    for (int64_t k = 0; k < B; k++)
      st->f[g * B + k] = (double)k / ((double)(M * st->k.every) * c->R->dt[g]);
  const char *names[SDK_CORR_MAXQ];
  for (int j = 0; j < nq; j++) {
    char path[160], err[96];
    names[j] = sdk_corr_name(c, &st->k, j);
    snprintf(err, sizeof err, "err_%s", names[j]);
    snprintf(path, sizeof path, "psd/S_%s", names[j]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &B, -1, 0, &d, eb));
    SDK_CHECK(sdk_ds_attr_str(d, "standard_error", err, eb));
    SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "frequency", eb));
    st->S[j] = sdk_ds_f64(d);
    snprintf(path, sizeof path, "psd/%s", err);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 1, &B, -1, 0, &d, eb));
    SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "frequency", eb));
    st->err[j] = sdk_ds_f64(d);
  }
  SDK_CHECK(sdk_store_group_strs(c->store, "psd", "names", names, nq, eb));
  SDK_CHECK(sdk_store_group_i64(c->store, "psd", "segment", M, eb));
  SDK_CHECK(sdk_store_group_str(c->store, "psd", "window", rect ? "rect" : "hann", eb));
  SDK_CHECK(sdk_store_group_i64(c->store, "psd", "sample_every", st->k.every, eb));
  return sdk_store_group_i64(c->store, "psd", "segments", (st->k.nsmp - M) / (M / 2) + 1, eb);
}

/* the rows of quantity j: ring [M], sums [2 B] */
static int qrow(const sdk_obs_ctx *c, const state *st, int j) {
  return sdk_corr_row(c, "psd") + 2 + j * (int)(st->M + 2 * st->B);
}

/* the segment ending with sample smp of the paths [a, a + n) into their sums */
static sdk_err segment(const sdk_obs_ctx *c, state *st, int j, int64_t smp, int64_t a, int64_t n,
                       sdk_errbuf *eb) {
  int64_t M = st->M, B = st->B, nb = st->nb;
  int row = qrow(c, st, j);
  for (int64_t m = 0; m < M; m++) /* oldest first */
    SDK_CHECK(
        sdk_paths_rows(c->paths, row + (int)((smp + 1 + m) % M), a, n, st->ring + m * nb, 0, eb));
  for (int64_t k = 0; k < B; k++)
    SDK_CHECK(sdk_corr_pair(c->paths, row + (int)M + 2 * (int)k, a, n, st->sum + k * nb, st->hi,
                            st->lo, 0, eb));
  /* each path's segment on its own, by the kernels' routine (the same bits) */
  for (int64_t i = 0; i < n; i++) {
    for (int64_t m = 0; m < M; m++)
      st->re[m] = st->w[m] * st->ring[m * nb + i];
    sdk_psd_fft(st->re, st->z, M, st->tab);
    for (int64_t k = 0; k < B; k++)
      st->sum[k * nb + i] += sdk_psd_power(st->z, M, k, st->tab);
  }
  for (int64_t k = 0; k < B; k++)
    SDK_CHECK(sdk_corr_pair(c->paths, row + (int)M + 2 * (int)k, a, n, st->sum + k * nb, st->hi,
                            st->lo, 1, eb));
  return SDK_OK;
}

static sdk_err psd_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step, sdk_errbuf *eb) {
  state *st = p;
  (void)s;
  if (st->kern || step < st->k.first) return SDK_OK;
  int64_t smp = (step - st->k.first) / st->k.every, total = c->R->ngrid * c->ppg;
  int64_t M = st->M, nb = st->nb;
  int ends = smp + 1 >= M && (smp + 1 - M) % (M / 2) == 0;
  SDK_CHECK(sdk_corr_eval(c, &st->k, step, eb));
  for (int j = 0; j < st->k.nq; j++)
    for (int64_t a = 0; a < total; a += nb) {
      int64_t n = total - a < nb ? total - a : nb;
      SDK_CHECK(sdk_corr_values(c, &st->k, j, a, n, st->hi, eb));
      SDK_CHECK(sdk_paths_rows(c->paths, qrow(c, st, j) + (int)(smp % M), a, n, st->hi, 1, eb));
      if (ends) SDK_CHECK(segment(c, st, j, smp, a, n, eb));
    }
  int64_t count = smp + 1;
  return sdk_corr_count(c->paths, sdk_corr_row(c, "psd"), &count, 1, eb);
}

static sdk_err psd_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  int64_t M = st->M, B = st->B, nb = st->nb, ppg = c->ppg, N = 0;
  if (st->kern)
    N = st->k.nsmp; /* (the kernel keeps no count: the run's samples) */
  else
    SDK_CHECK(sdk_corr_count(c->paths, sdk_corr_row(c, "psd"), &N, 0, eb));
  int64_t nseg = N >= M ? (N - M) / (M / 2) + 1 : 0;
  SDK_CHECK(sdk_store_group_i64(c->store, "psd", "segments", nseg, eb));
  double U = 0;
  for (int64_t m = 0; m < M; m++)
    U += st->w[m] * st->w[m];
  sdk_moments *mom = calloc((size_t)B, sizeof *mom);
  if (!mom) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the psd");
  for (int j = 0; j < st->k.nq; j++)
    for (int64_t g = 0; g < c->R->ngrid; g++) {
      double h = (double)st->k.every * c->R->dt[g];
      for (int64_t k = 0; k < B; k++)
        mom[k] = (sdk_moments){0, 0, 0};
      for (int64_t a = 0; nseg > 0 && a < ppg; a += nb) {
        int64_t n = ppg - a < nb ? ppg - a : nb;
        for (int64_t k = 0; k < B; k++) {
          sdk_err e = sdk_corr_pair(c->paths, qrow(c, st, j) + (int)M + 2 * (int)k, g * ppg + a, n,
                                    st->sum + k * nb, st->hi, st->lo, 0, eb);
          if (e != SDK_OK) return free(mom), e;
        }
        /* a path with any sum not finite is left out of every bin */
        for (int64_t i = 0; i < n; i++) {
          st->hi[i] = 1;
          for (int64_t l = 0; l < B && st->hi[i]; l++)
            st->hi[i] = isfinite(st->sum[l * nb + i]);
        }
        for (int64_t i0 = 0; i0 < n; i0 += SDK_RED_CHUNK)
          for (int64_t k = 0; k < B; k++) {
            double ck = (k == 0 || 2 * k == M ? 1 : 2) * h / U / (double)nseg;
            sdk_moments ch = {0, 0, 0};
            for (int64_t i = i0; i < n && i < i0 + SDK_RED_CHUNK; i++) {
              if (st->hi[i] == 0) continue;
              sdk_moments one = {1, ck * st->sum[k * nb + i], 0};
              sdk_moments_merge(&ch, &one);
            }
            sdk_moments_merge(&mom[k], &ch);
          }
      }
      for (int64_t k = 0; k < B; k++) {
        st->S[j][g * B + k] = mom[k].n > 0 ? mom[k].mean : NAN;
        st->err[j][g * B + k] = sdk_se_mean(mom[k].n, mom[k].m2);
      }
    }
  free(mom);
  return SDK_OK;
}

/* (the estimate's resolution and averaging: the HDF5 file's /psd attributes) */
static sdk_err psd_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "psd");
  const sdk_attr *seg = ga ? sdk_attr_find(ga->attr, ga->nattr, "segment") : NULL,
                 *win = ga ? sdk_attr_find(ga->attr, ga->nattr, "window") : NULL,
                 *nseg = ga ? sdk_attr_find(ga->attr, ga->nattr, "segments") : NULL;
  if (seg && seg->kind == SDK_ATTR_I64)
    fprintf(f, "# psd_segment: %lld samples\n", (long long)seg->i);
  if (win && win->kind == SDK_ATTR_STR && win->s) fprintf(f, "# psd_window: %s\n", win->s);
  if (nseg && nseg->kind == SDK_ATTR_I64)
    fprintf(f, "# psd_segments: %lld per path (overlapping by half)\n", (long long)nseg->i);
  return sdk_corr_tsv(R, f, "psd", "f", "S", eb);
}

const sdk_obs_type sdk_obs_psd = {
    .name = "psd",
    .description = "one-sided power spectral density of the variables by Welch's method (50% "
                   "overlapping windowed segments after the transient), with its standard error",
    .flags = SDK_OBS_SAMPLED,
    .setup = psd_setup,
    .sample = psd_sample,
    .finish = psd_finish,
    .free = psd_free,
    .write_tsv = psd_tsv,
};
