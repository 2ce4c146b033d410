/* sdekit: observables.
 *
 * An observable is a const table (sdk_obs_type) in a file of its own
 * (observe/obs_*.c) and one line of the registry (sim/registry.c).  It
 * computes from the paths (observe/paths.h: reductions on the backend,
 * combined in a fixed order) into datasets of the result store
 * (observe/store.h), which the HDF5 writer, checkpoints, the library's users
 * and `sdekit plot` know by name.  The run (src/sim) calls it at fixed
 * points:
 *
 *   setup          once, before the first step: check the options against
 *                  the model, make the datasets (sized for the whole run)
 *   sample         at every sample step (SDK_OBS_SAMPLED): fill sample s
 *   transient_end  at the end of the transient (the drift marks its origin)
 *   finish         after the last step (final-state observables compute here)
 *   sys_row        systems of particles (SDK_OBS_SYSTEM_SUMS): one row of
 *                  per-grid-point sums the system kernel reduced on the device
 *                  (the order parameter), every `every` steps
 *   write_tsv      its gnuplot-ready text (after the common header); its
 *                  column names go through sdk_tsv_header (observe/tsvfmt.h)
 *                  and every row it writes is a grid point's (loops over
 *                  R->ngrid): on results of no grid points it writes its
 *                  headers alone, which the plan checks before the run
 *
 * Which picture `sdekit plot` draws for it is found by its name in the CLI's
 * table of pictures (src/cli).  Checkpoints save every dataset with a sample
 * axis (the samples so far) and the observable's sample count; nothing else
 * of an observable's state may be needed to continue a run.
 */
#ifndef SDK_OBSERVABLE_H
#define SDK_OBSERVABLE_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "model/model.h"
#include "observe/paths.h"
#include "observe/results.h"
#include "observe/store.h"

#define SDK_MAX_SAVE 1024
/* Most values one sampled observable may hold in memory (grid points x
 * samples x what it keeps per sample): 2^28 doubles, 2 GiB. */
#define SDK_MAX_SAMPLE_VALUES ((int64_t)1 << 28)
#define SDK_MAX_HIST_RANGE 8

/* Options of the built-in observables (part of the run configuration). */
typedef struct sdk_observe_opts {
  const char *drift_var; /* drift: this variable (NULL: the first) */
  int64_t bins;          /* hist, density: bins */
  int nhist_range;       /* --hist-range VAR=LO:HI: fixed ranges */
  char hist_range_var[SDK_MAX_HIST_RANGE][64];
  double hist_range_lo[SDK_MAX_HIST_RANGE], hist_range_hi[SDK_MAX_HIST_RANGE];
  int nsave; /* paths: --save-paths, path indices within each grid point */
  int64_t save_index[SDK_MAX_SAVE];
  const char *density_var;   /* density: this variable (NULL: the first) */
  double coarse_width;       /* density: bins of this width (one period); < 0: the model's period */
  int64_t order_every;       /* order: steps between samples (0: the sample interval) */
  const char *diffusion_var; /* diffusion: this variable (NULL: drift_var, else the first) */
  const char *corr_vars;     /* acf, psd: NAME[,NAME...] (NULL: every variable) */
  int64_t max_lag;           /* acf: largest lag in sample intervals (0: obs_corr.h's default) */
  int64_t psd_segment;       /* psd: samples per segment (0: obs_corr.h's default) */
  int psd_window;            /* psd: 0 hann, 1 rect */
  int psd_host;              /* psd: sampled by the host even where the kernel could compute it */
} sdk_observe_opts;

/* What an observable sees of the run. */
typedef struct sdk_obs_ctx {
  const sdk_model *model;
  const sdk_observe_opts *opts;
  const sdk_results *R; /* what was run: grid, dt, steps, names */
  sdk_store *store;     /* where the results go (R->store) */
  const sdk_paths *paths;
  const double *param_values; /* after --set; scanned parameters at grid point 0 */
  /* per parameter: -1 (fixed), or its column in sv: its scan axis, or after
   * the axes a derived parameter that varies with a scanned one */
  const int *scan_column;
  const double *sv; /* [ngrid][nsv]: the values of those columns per grid point */
  int nsv;
  int64_t ppg; /* paths per grid point as held (particles, for systems) */
  /* the run holds a window of the paths and its results are cumulative over
   * the windows of a carry (observe/paths.h, sim/run.h): an observable
   * either gives exactly the results of one run over all the windows' paths
   * (sdk_paths_used counts them per grid point) or refuses in setup */
  int windowed;
  int systems;              /* systems of particles (--particles) */
  int64_t systems_per_grid; /* systems per grid point */
  int64_t nsamples_max;     /* samples the run takes at most (the sample axis) */
  /* at a sample: the moments of every variable per grid point, when the run
   * has just computed them (it does, to find paths that blew up), else NULL */
  const sdk_moments *moments_now;
  /* likewise the moments of the user observables per grid point, out[g *
   * nobs + k] of sdk_paths_observe, when the check has computed them (for a
   * SDK_OBS_OBSERVE_NOW observable: one pass gives both), else NULL */
  const sdk_moments *observe_now;
  /* --dt-check (observe/bias.h): on, the scheme's weak order, --extrapolate;
   * the values the module's user-observable reduction gives per grid point
   * (the user observables, then the coupled differences: codegen.h
   * sdk_cg_nobs_eval); the sdk_paths_rows rows of the coarse path's first
   * variable and, with time averages, first accumulator (-1 without) */
  int dt_check, weak_order, extrapolate, nobs_eval, dtc_row, dtc_tavg_row;
  /* and with [boundaries] the coarse path's first boundary row (its status,
   * then its hitting step as the fine path's: codegen.h dtc_bound; -1
   * without), and whether the Brownian-bridge correction is on (the order
   * of first-passage values: obs_fpt.c) */
  int dtc_bound_row, bridge;
  /* paths found NaN/Inf so far, per grid point (such points end as NaN) */
  const int64_t *bad;
  /* systems with SDK_OBS_SYSTEM_SUMS observables: the variable whose phase
   * sums the system kernel reduces, its period, and every how many steps */
  int sums_var;
  double sums_period;
  int64_t sums_every;
  /* the first sdk_paths_rows row the host keeps per path (acf, psd:
   * obs_corr.h; codegen.h host rows), -1 without */
  int host_row;
  /* per parameter its column of --path-params (>= 0: a value per path), or
   * NULL without */
  const int *path_param;
  /* the sdk_paths_rows row of the first time-average accumulator (codegen.h:
   * the pairs (S, E) of the quantities), -1 without */
  int tavg_row;
} sdk_obs_ctx;

enum {
  SDK_OBS_SAMPLED = 1,        /* called at every sample step */
  SDK_OBS_SYSTEMS_ONLY = 2,   /* needs systems of particles */
  SDK_OBS_SYSTEM_SUMS = 4,    /* the system kernel reduces its sums every step (sys_row) */
  SDK_OBS_BY_OPTION = 8,      /* on when its option is given (paths: --save-paths), not by name */
  SDK_OBS_BY_MODEL = 16,      /* also on when the model has user observables ([observe]) */
  SDK_OBS_TIME_AVERAGES = 32, /* the kernel accumulates time averages (codegen.h) */
  SDK_OBS_MOMENTS_NOW = 64,   /* its sample reads the variables' moments (moments_now) */
  SDK_OBS_BOUNDARIES = 128,   /* needs a model with [boundaries] (fpt) */
  SDK_OBS_OBSERVE_NOW = 256,  /* its sample reads the user observables' moments (observe_now) */
  SDK_OBS_BIAS = 512,         /* its values get their time-step bias (--dt-check, bias.h) */
  SDK_OBS_EVENTS = 1024       /* needs a model with [events] (events) */
};

typedef struct sdk_obs_type {
  const char *name; /* --observe NAME, its HDF5 group and TSV suffix */
  const char *description;
  unsigned flags;
  sdk_err (*setup)(const sdk_obs_ctx *c, void **state, sdk_errbuf *eb);
  sdk_err (*sample)(const sdk_obs_ctx *c, void *state, int64_t s, int64_t step, sdk_errbuf *eb);
  sdk_err (*transient_end)(const sdk_obs_ctx *c, void *state, sdk_errbuf *eb);
  sdk_err (*finish)(const sdk_obs_ctx *c, void *state, sdk_errbuf *eb);
  /* one row of 4 sums per grid point (observe/obs_order.c) for the state at
   * `step`; it records a sample by advancing *nsamples */
  sdk_err (*sys_row)(const sdk_obs_ctx *c, void *state, int64_t *nsamples, int64_t step,
                     const double *row, sdk_errbuf *eb);
  void (*free)(void *state);
  sdk_err (*write_tsv)(const sdk_results *R, FILE *f, sdk_errbuf *eb);
} sdk_obs_type;

/* An observable of a run. */
typedef struct sdk_obs {
  const sdk_obs_type *type;
  void *state;
  int64_t nsamples; /* samples taken (its datasets' sample axes) */
} sdk_obs;

/* ---- helpers for the observables' files (observe/observable.c) ---- */

/* Add a dataset shaped [grid..., extra...] (the run's scan dimensions first);
 * sample_axis: which of the extra dimensions is the sample axis, or -1. */
sdk_err sdk_obs_dataset(const sdk_obs_ctx *c, const char *path, sdk_dtype type, int nextra,
                        const int64_t *extra, int sample_axis, unsigned flags, sdk_dataset **out,
                        sdk_errbuf *eb);
/* GROUP/step [nsamples] and GROUP/t [grid..., nsamples] (step * dt). */
sdk_err sdk_obs_times(const sdk_obs_ctx *c, const char *group, int64_t nsamples, sdk_errbuf *eb);
/* Record sample s at `step` in GROUP/step and GROUP/t. */
void sdk_obs_time_at(const sdk_obs_ctx *c, const char *group, int64_t s, int64_t step);
/* Index of variable `name` (NULL: the first), or an error naming `option`. */
sdk_err sdk_obs_var(const sdk_obs_ctx *c, const char *option, const char *name, int *v,
                    sdk_errbuf *eb);
/* Index of variable or user observable `name` (NULL: the first variable):
 * a variable v as v, user observable k as nvars + k (observe/paths.h:
 * sdk_paths_eval_observe); an error naming `option` for neither. */
sdk_err sdk_obs_quantity(const sdk_obs_ctx *c, const char *option, const char *name, int *q,
                         sdk_errbuf *eb);
/* The name of quantity q (a variable, then the user observables). */
const char *sdk_obs_quantity_name(const sdk_model *m, int q);
/* Period of variable v of the model with these parameter values (0 when v
 * is not periodic, NaN when it depends on a scanned parameter). */
double sdk_var_period(const sdk_model *m, int v, const double *pvalues, const int *scanned);
/* The parameter values at grid point g (m->nparams of them into pv). */
void sdk_obs_grid_params(const sdk_obs_ctx *c, int64_t g, double *pv);
/* An observable that cannot give exactly the results of one run from
 * windows of the paths (sdk_obs_ctx.windowed) refuses them: SDK_ERR_USAGE
 * naming it, `why` and what works instead; SDK_OK when not windowed. */
sdk_err sdk_obs_no_windows(const sdk_obs_ctx *c, const char *name, const char *why, sdk_errbuf *eb);
/* Checks of the options shared by several observables (--hist-range), and
 * of options given without their observable (obs_corr.h). */
sdk_err sdk_observe_opts_check(const sdk_observe_opts *o, const sdk_model *m, const sdk_results *R,
                               sdk_errbuf *eb);
/* The number of values sample-axis datasets of `nper` values per grid point
 * and sample would hold, against SDK_MAX_SAMPLE_VALUES. */
sdk_err sdk_obs_check_size(const sdk_obs_ctx *c, const char *what, double nper, sdk_errbuf *eb);
/* The names of a comma-separated string attribute `attr` of the results'
 * group (fpt's boundaries, events' events), split into names (at most max,
 * each cut at 63 characters); their number, 0 without the attribute. */
int sdk_obs_group_names(const sdk_results *R, const char *group, const char *attr, char names[][64],
                        int max);

#endif
