/* sdekit: observables of systems of interacting particles, and the density of
 * periodic variables, for the run loop (src/sim/run.c).
 *
 * System mode.  A model with [meanfield] or [pair] sections, or any model run
 * with --observe order, is integrated by the backend's system driver
 * (advance_sys): each path is a system of N = --particles consecutive
 * particles (global particle index = path * N + i), all of whose particles
 * take every step together.  The run loop then sees paths * N "paths" per
 * grid point (every per-path observable is per particle) and calls
 * sdk_sys_advance instead of the backend's advance.
 *
 * Order parameter (--observe order).  For the first periodic variable x of
 * period P, every system's Z = (1/N) sum_i exp(2 pi i x_i / P) is reduced by
 * the system driver on the device every step (fused with the mean-field
 * sums); every order_every steps the backend returns, per grid point, the
 * sums over its systems of |Z|, |Z|^2, Re Z and Im Z, from which
 *   r   = mean over systems of |Z|            (Kuramoto's order parameter)
 *   r_err = its standard error over systems
 *   psi = arg(mean over systems of Z)         (the mean phase; for one system
 *                                              its own psi)
 * are stored in the results (order_r, order_r_err, order_psi, [g][s]).
 *
 * Density of a periodic variable (--observe density).  When the density
 * variable is declared periodic, P(x mod P; t) on [0, P) is histogrammed on
 * the device (backend histogram_mod) instead of P(x; t) over the data's
 * range. */
#ifndef SDK_OBSERVE_H
#define SDK_OBSERVE_H

#include <stdint.h>

#include "backend/backend.h"
#include "core/error.h"
#include "model/model.h"
#include "sim/results.h"
#include "sim/run.h"

typedef struct sdk_sysplan {
  int on;            /* system mode */
  int64_t particles; /* N (1 without --particles) */
  int64_t systems;   /* systems per grid point (--paths) */
  int order_var;     /* variable of the order parameter, -1 without --observe order */
  double order_period;
  double order_factor; /* 2 pi / period */
  /* during the run */
  int64_t every, nmax, isample, ngrid;
  double *rows;
  int64_t maxrows;
  int primed;
} sdk_sysplan;

/* Decide system mode from the config and the model, with the parameter
 * values of the run (pvalues; scanned[i] >= 0 for a scanned parameter).
 * Errors (SDK_ERR_USAGE) for an interacting model without --particles N >= 2,
 * --observe order without a periodic variable, a scheme other than euler,
 * a period that depends on a scanned parameter or is not > 0. */
sdk_err sdk_sys_plan(sdk_sysplan *sp, const sdk_run_config *c, const sdk_model *m,
                     const double *pvalues, const int *scanned, sdk_errbuf *eb);

/* Allot the order-parameter results for a run of nsteps steps sampled every
 * `every` steps (the state at step 0 included); max_chunk: the most steps
 * one sdk_sys_advance call may be given. */
sdk_err sdk_sys_setup(sdk_sysplan *sp, sdk_results *R, int64_t ngrid, int64_t nsteps, int64_t every,
                      int64_t max_chunk, sdk_errbuf *eb);

/* Advance all systems from `step` by n >= 0 steps, recording the order
 * parameter (the first call also records the state at `step` when it is a
 * sample step, and primes the device's mean-field sums). */
sdk_err sdk_sys_advance(sdk_sysplan *sp, sdk_results *R, const sdk_backend *be, sdk_ensemble *ens,
                        int64_t step, int64_t n, uint64_t seed, sdk_errbuf *eb);

/* Does sdk_sys_advance detect NaN/Inf particles itself (through the order
 * parameter, which sums cos and sin of every particle every sample)?  Then
 * the run loop needs no separate pass over the state for that. */
int sdk_sys_checks_nonfinite(const sdk_sysplan *sp);

/* Order-parameter samples taken so far (-1 without --observe order), and
 * their copy to / from a checkpoint: step[n], r, r_err, psi as [g][n].  The
 * restore refuses samples that do not fit the run or lie beyond at_step. */
int64_t sdk_sys_order_count(const sdk_sysplan *sp, const sdk_results *R);
void sdk_sys_order_save(const sdk_sysplan *sp, const sdk_results *R, int64_t *step, double *r,
                        double *r_err, double *psi);
sdk_err sdk_sys_order_restore(sdk_sysplan *sp, sdk_results *R, int64_t n, const int64_t *step,
                              const double *r, const double *r_err, const double *psi,
                              int64_t at_step, sdk_errbuf *eb);
/* After the last step: compact the sample arrays to order_nsamples; free scratch. */
void sdk_sys_finish(sdk_sysplan *sp, sdk_results *R);
void sdk_sys_free(sdk_sysplan *sp);
/* Free the order arrays of the results. */
void sdk_sys_results_free(sdk_results *R);

/* One sample of the density of a periodic variable (period > 0): per grid
 * point lo[g] = 0, hi[g] = period, counts[g * bins + b] of x mod period,
 * under[g] = over[g] = 0. */
sdk_err sdk_observe_density_mod(const sdk_backend *be, sdk_ensemble *ens, int var, double period,
                                int64_t ngrid, int64_t bins, double *lo, double *hi,
                                uint64_t *counts, uint64_t *under, uint64_t *over, sdk_errbuf *eb);

/* Period of variable v of the model with these parameter values (0 when v
 * is not periodic, NaN when it depends on a scanned parameter). */
double sdk_var_period(const sdk_model *m, int v, const double *pvalues, const int *scanned);

#endif
