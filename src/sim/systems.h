/* sdekit: systems of interacting particles in a run (the paper's PROG2 and
 * PROG3).
 *
 * A model with [meanfield] or [pair] sections, per-particle [particle]
 * parameters, or a run that observes an order parameter (an observable with
 * SDK_OBS_SYSTEM_SUMS) is integrated by the backend's system driver
 * (advance_sys): each path is a system of N = --particles consecutive
 * particles (global particle index = path * N + i), all of whose particles
 * take every step together.  The run then holds paths * N "paths" per grid
 * point (every per-path observable is per particle) and advances through
 * sdk_systems_advance instead of the backend's advance.  The system kernel
 * also reduces, every `every` steps, the sums of exp(2 pi i x / P) of the
 * first periodic variable x over each system, which go to the observables
 * that asked for them (observe/obs_order.c).
 */
#ifndef SDK_SYSTEMS_H
#define SDK_SYSTEMS_H

#include <stdint.h>

#include "backend/backend.h"
#include "codegen/scheme.h"
#include "core/error.h"
#include "model/model.h"
#include "observe/observable.h"

typedef struct sdk_systems {
  int on;            /* system mode */
  int64_t particles; /* N (1 without --particles) */
  int64_t systems;   /* systems per grid point (--paths) */
  int sums_var;      /* variable whose phase sums the kernel reduces, -1: none */
  double sums_period;
  double sums_factor; /* 2 pi / period */
  /* during the run */
  int64_t every, ngrid, maxrows;
  double *rows;
  int primed;
} sdk_systems;

/* Decide system mode from the model, --particles N, --paths, the scheme asked
 * for and whether an observable needs the phase sums, with
 * the parameter values of the run (scanned[i] >= 0 for a scanned parameter).
 * Errors (SDK_ERR_USAGE) for an interacting model without --particles N >= 2,
 * phase sums without a periodic variable or with a period that depends on a
 * scanned parameter or is not > 0, a scheme other than euler. */
sdk_err sdk_systems_plan(sdk_systems *sp, const sdk_model *m, int64_t particles, int64_t paths,
                         const sdk_scheme_type *scheme, int sums, const double *pvalues,
                         const int *scanned, sdk_errbuf *eb);

/* Rows for the phase sums of runs of nsteps steps sampled every `every` steps;
 * max_chunk: the most steps one sdk_systems_advance call may be given. */
sdk_err sdk_systems_setup(sdk_systems *sp, int64_t ngrid, int64_t nsteps, int64_t every,
                          int64_t max_chunk, sdk_errbuf *eb);

/* Advance all systems from `step` by n >= 0 steps, handing every row of phase
 * sums to the observables `obs` (those with sys_row) through their contexts
 * (the first call also primes the device's sums and hands over the state at
 * `step` when it is a sample step). */
sdk_err sdk_systems_advance(sdk_systems *sp, const sdk_backend *be, sdk_ensemble *ens, int64_t step,
                            int64_t n, uint64_t seed, int nobs, sdk_obs *obs,
                            const sdk_obs_ctx *ctx, sdk_errbuf *eb);

void sdk_systems_free(sdk_systems *sp);

#endif
