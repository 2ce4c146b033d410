/* sdekit: the result of one run: what was run, and the observables' datasets.
 *
 * The grid of scan points is the Cartesian product of up to SDK_MAX_SCAN
 * scan axes, row-major: grid point g = ((i0 * n1 + i1) * n2 + i2) ... (axis 0,
 * the first --scan, slowest).  An axis may move several parameters together
 * (a zipped scan, --scan a,b=... or --scan-file): scan[a] is its first
 * parameter and zip[] holds the others, each with the axis it moves with.
 * With no scan there is one grid point.  What the observables computed is in `store`
 * (observe/store.h), under the names the HDF5 file uses (src/io/io.h lists the layout).
 */
#ifndef SDK_RESULTS_H
#define SDK_RESULTS_H

#include <stdint.h>

#include "observe/store.h"

/* grid dimensions: with the 3 an observable adds (cov: sample, var, var)
 * within SDK_DS_MAX_RANK (8); the grid's size is the real limit */
#define SDK_MAX_SCAN 5
/* parameters scanned in all, zipped ones included */
#define SDK_MAX_SCAN_PARAMS 32
/* grid points at most: beyond this the per-point tables alone take GiB */
#define SDK_MAX_GRID ((int64_t)1 << 27)
#define SDK_MAX_OBSERVABLES 32

typedef struct sdk_scan_axis {
  char name[64]; /* parameter name */
  double start, stop;
  int64_t n;      /* number of points (>= 1) */
  int log;        /* 1: geometric spacing */
  double *values; /* n values */
  /* a run's configuration: 1 when it moves with the entry before it (one
   * axis of the grid, zipped); the results: the axis it spans (plan.c) */
  int zip, axis;
  char origin[160]; /* "FILE:LINE: --scan-file column" when read from a table, else "" */
} sdk_scan_axis;

typedef struct sdk_results {
  /* --- what was run (all strings owned by the producer) --- */
  const char *version; /* sdekit version string */
  const char *model_name;
  const char *model_path; /* file it was read from */
  const char *model_text; /* full text of the model file */
  int nvars;
  const char *const *var_names;
  int nparams; /* every parameter of the model */
  const char *const *param_names;
  /* value in force (after --set, derived ones evaluated); NaN where it varies
   * over the grid: scanned, or derived from a scanned one, or per path */
  const double *param_values;
  /* values per path (sim/pathdata.c): the parameters given so, and where
   * they and the initial states came from (a file, "path_params", "init");
   * NULL: none */
  int npath_params;
  const char *const *path_param_names;
  const char *path_params_from, *init_from;
  int nscan; /* grid dimensions, 0 .. SDK_MAX_SCAN */
  sdk_scan_axis scan[SDK_MAX_SCAN];
  int nzip; /* parameters moving with an axis besides its first (zip[j].axis) */
  sdk_scan_axis zip[SDK_MAX_SCAN_PARAMS];
  int64_t ngrid;     /* product of scan[i].n, 1 when nscan == 0 */
  int64_t paths;     /* paths per grid point (particles, with particles > 1) */
  int64_t particles; /* particles per system (1: independent paths) */
  uint64_t seed;
  const char *scheme; /* "euler", "srk2" */
  /* NULL, or why the scheme, not asked for, is not the general default
   * (the model's: "systems of particles", ...; root attribute
   * "scheme_default") */
  const char *scheme_why;
  /* "ito" or "stratonovich" where the noise depends on the state (the root
   * attribute "calculus"); NULL for additive noise, where both agree */
  const char *calculus;
  /* the noise source when not the scheme's own (--noise; root attribute
   * "noise"), else NULL */
  const char *noise;
  const char *precision; /* "single", "double" */
  /* single precision: which variables the compensated update covers, the
   * mode first ("auto: x", "all: x, v", "auto: none", "none"); NULL in
   * double (root attribute "compensation") */
  const char *compensation;
  const char *backend;      /* "cpu", "cuda" */
  const char *command_line; /* how it was invoked (informative) */
  double period;            /* period of the driving, or 0 when the model has none
                               (if the period depends on a scanned parameter,
                               this is the value at grid point 0) */
  int64_t spp;              /* steps per period, 0 when no period */
  const double *dt;         /* time step per grid point (ngrid) */
  int64_t nsteps;           /* total steps */
  int64_t transient_steps;  /* steps before the drift window opens */
  int64_t sample_every;     /* 0 with sample_times */
  /* --sample-times: the time of every sample (every grid point's), and how
   * they were spaced ("list", "lin", "log"; root attribute "sample_times");
   * NULL, 0: samples every sample_every steps */
  const double *sample_times;
  int64_t nsample_times;
  const char *sample_spacing;
  /* where the time grid differs from what the options or defaults asked
   * (root attributes of those names, present only then; 0: absent): the
   * --dt a periodic model replaced by period/spp; the t_end asked (the
   * run ends at t_end = nsteps dt); the --transient asked */
  double dt_asked, t_end_asked, t_end, transient_asked;

  /* paths that became NaN/Inf per grid point (every statistic of such a
   * point is NaN); NULL when no point blew up */
  int64_t *nonfinite; /* ngrid */

  /* --- the observables computed, in the registry's order, and their data --- */
  int nobs;
  const char *obs[SDK_MAX_OBSERVABLES];
  sdk_store store;
} sdk_results;

/* The scanned parameters in the order of the columns of TSV files: each
 * axis's first parameter, then those zipped with it. */
int sdk_results_nscan_params(const sdk_results *R);
const sdk_scan_axis *sdk_results_scan_param(const sdk_results *R, int j);
/* Point i of axis a's range, START to STOP in n points (geometric with log),
 * rounded to 15 significant digits: the values a --scan NAME=START:STOP:N
 * makes (sim/run.c sdk_scan_fill). */
double sdk_scan_point(const sdk_scan_axis *a, int64_t i);
/* Is dt the same at every grid point (else per grid point: a scanned period)? */
int sdk_results_same_dt(const sdk_results *R);
/* 1 when a's values are its range's points, 0 when they were given one by
 * one (a list, a --scan-file column): its start and stop are then only its
 * first and last value */
int sdk_scan_is_range(const sdk_scan_axis *a);
/* The index along axis a of grid point g (row-major, axis 0 slowest). */
int64_t sdk_results_grid_index(const sdk_results *R, int64_t g, int a);

/* Does the run have observable `name`? */
int sdk_results_has(const sdk_results *R, const char *name);
/* The f64 data of dataset `path` (NULL when absent or not f64). */
const double *sdk_results_f64(const sdk_results *R, const char *path);

#endif
