/* sdekit: what --observe acf and --observe psd share (obs_acf.c, obs_psd.c).
 *
 * Both are computed on the host from the sampled states, the same on every
 * backend: at every sample after the transient (equally spaced, every
 * sample_every steps; --sample-times is refused) each path's value of every
 * chosen variable or user observable (evaluated by the kernel's module, as
 * for --observe expr) goes into rows of per-path state that the kernel leaves
 * alone (codegen.h: the host rows, opts.host_rows, zeroed by sdk_init), so
 * that checkpoints store them (record COMP) and a resumed run, any thread
 * count and any cut into ranks continue them bitwise: every per-path
 * operation is the same wherever the path lives, and the reductions over the
 * paths at the end fold chunks of SDK_RED_CHUNK paths in path order.
 *
 * Sums over the samples are kept as two rows (hi, lo) = ((float)S, S -
 * (float)S): in single precision S is then held to ~2^-48 relative, in double
 * exactly (hi + lo == S), one layout for both precisions.  The number of
 * samples after the transient so far is kept in the count pair of the global
 * path 0 (the first two rows of each observable's block).
 *
 * The rows: acf's block (if on), then psd's, from the context's host_row:
 *   acf: count pair, then per quantity: ring [2 K], sums [2 K], sum of x [2];
 *        accumulated by the kernel (sdk_corr_kernel): per quantity the rows
 *        of codegen/acf.h (no count: the run's samples)
 *        (K = max_lag + 1)
 *   psd: count pair, then per quantity: ring [M], sums of |X_k|^2 [2 (M/2 + 1)];
 *        the same rows when the kernel computes it (sdk_corr_psd_kernel,
 *        codegen/psd.h; the count pair then unused: the run's samples)
 */
#ifndef SDK_OBS_CORR_H
#define SDK_OBS_CORR_H

#include <stdint.h>

#include "codegen/opts.h"
#include "observe/observable.h"

#define SDK_CORR_MAXQ 64
#define SDK_CORR_MAX_LAG 65536
#define SDK_CORR_MAX_SEGMENT 65536

typedef struct sdk_corr {
  int nq;
  int q[SDK_CORR_MAXQ]; /* the quantities: variable v as v, user observable j as nvars + j */
  int64_t first;        /* the first sample step after the transient */
  int64_t every;        /* steps between samples */
  int64_t nsmp;         /* samples after the transient the run takes */
  int64_t block;        /* paths per block of rows read */
} sdk_corr;

/* The chosen quantities (--corr-vars: variables and user observables), the sample clock, and the
 * checks both share (the name of the observable in messages): independent paths, no absorbing
 * boundary, no windows, equally spaced samples, at least 2 of them after
 * the transient. */
sdk_err sdk_corr_setup(const sdk_obs_ctx *c, const char *name, sdk_corr *k, sdk_errbuf *eb);
/* --max-lag (its default: the smaller of 64 and half the samples after the
 * transient) and --psd-segment (default: the largest power of 2 <= the
 * samples after the transient, at most 256) as the run resolves them. */
int64_t sdk_corr_max_lag(const sdk_obs_ctx *c);
/* Refuses an option of acf/psd (--max-lag, --psd-segment, --psd-window rect,
 * --psd-on-host, --corr-vars) given to a run that computes neither of them
 * (R->obs: the observables on). */
sdk_err sdk_corr_opts_check(const sdk_observe_opts *o, const sdk_results *R, sdk_errbuf *eb);
int64_t sdk_corr_segment(const sdk_obs_ctx *c);
/* --observe acf accumulated by the kernel (codegen/acf.h) instead of
 * sampled by the host: for at most SDK_CORR_KERNEL_LAGS lags (K = max_lag +
 * 1) and SDK_CORR_KERNEL_SUMS sums of products in all (quantities x K: the
 * path's registers on a GPU), equally spaced samples, independent paths,
 * without --adaptive and [events].  Returns K (its quantities into q and *nq,
 * the first sample step into *first, each when not NULL), or 0 when the host
 * samples it (or it is off). */
#define SDK_CORR_KERNEL_LAGS 32
#define SDK_CORR_KERNEL_SUMS 64
int sdk_corr_kernel(const sdk_obs_ctx *c, int *q, int *nq, int64_t *first);
/* --observe psd computed by the kernel (codegen/psd.h) instead of sampled
 * by the host: for segments of at most SDK_CORR_KERNEL_SEGMENT samples (the
 * transform's M doubles per path: a GPU thread's local memory, which the
 * driver reserves for every thread the device holds at once: 8 M x 2048 x
 * 132 bytes = 17.7 GB at M = 8192 on an H200), at most SDK_CG_ACF_MAXQ
 * quantities, equally spaced samples, independent paths, without
 * --adaptive, [events] and the option psd_host (tests: the host's sampling
 * of the same run).  Returns M (quantities, first sample step as
 * sdk_corr_kernel), or 0 when the host samples it (or it is off). */
#define SDK_CORR_KERNEL_SEGMENT 8192
int sdk_corr_psd_kernel(const sdk_obs_ctx *c, int *q, int *nq, int64_t *first);
/* Whether the run samples: some observable of obs[n] does (SDK_OBS_SAMPLED),
 * acf and psd computed by the kernel aside. */
int sdk_corr_sampling(const sdk_obs_ctx *c, const sdk_obs *obs, int n);
/* The generator's options of acf and psd: the host rows they need
 * (host_rows) and acf in the kernel (acf_k...; every: the steps between
 * samples); and the first sdk_paths_rows row of observable `name`'s block. */
void sdk_corr_opts(const sdk_obs_ctx *c, int64_t every, sdk_codegen_opts *o);
int sdk_corr_row(const sdk_obs_ctx *c, const char *name);
/* The name of quantity j (its datasets' suffix). */
const char *sdk_corr_name(const sdk_obs_ctx *c, const sdk_corr *k, int j);
/* At a sample step: evaluate the user observables on the paths when some
 * quantity is one (the backend keeps the values until the next evaluation),
 * before sdk_corr_values reads them. */
sdk_err sdk_corr_eval(const sdk_obs_ctx *c, const sdk_corr *k, int64_t step, sdk_errbuf *eb);
/* Quantity j's values of the global paths [first, first + n) at the sample:
 * a variable's row, or a user observable's values (backend.h: row -1 - j)
 * as the kernel evaluated them, in the run's precision. */
sdk_err sdk_corr_values(const sdk_obs_ctx *c, const sdk_corr *k, int j, int64_t first, int64_t n,
                        double *buf, sdk_errbuf *eb);
/* A sum as its (hi, lo) pair and back. */
void sdk_corr_split(double s, double *hi, double *lo);
/* Read (write = 0) or write the pair at rows (row, row + 1) of the global
 * paths [first, first + n) as sums; hi and lo are scratch of n values. */
sdk_err sdk_corr_pair(const sdk_paths *p, int row, int64_t first, int64_t n, double *sum,
                      double *hi, double *lo, int write, sdk_errbuf *eb);
/* The count of samples after the transient (global path 0's pair at row). */
sdk_err sdk_corr_count(const sdk_paths *p, int row, int64_t *n, int write, sdk_errbuf *eb);
/* The TSV of acf/psd: per grid point one row per lag or bin: coordinates,
 * the coordinate dataset GROUP/X, then Y_NAME and err_NAME of every name. */
sdk_err sdk_corr_tsv(const sdk_results *R, FILE *f, const char *group, const char *x, const char *y,
                     sdk_errbuf *eb);

#endif
