/* sdekit: the result of one run, as handed to the writers (src/io).
 *
 * The grid of scan points is the Cartesian product of up to two scan axes;
 * grid point g = i0 * n1 + i1 (axis 0 slowest).  With no scan there is one
 * grid point.  All observable arrays are NULL when not requested.
 */
#ifndef SDK_RESULTS_H
#define SDK_RESULTS_H

#include <stdint.h>

#define SDK_MAX_SCAN 2

typedef struct sdk_scan_axis {
  char name[64]; /* parameter name */
  double start, stop;
  int64_t n;      /* number of points (>= 1) */
  int log;        /* 1: geometric spacing */
  double *values; /* n values */
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
  const double *param_values; /* value used (after --set); scanned ones: first scan value */
  int nscan;                  /* 0, 1 or 2 */
  sdk_scan_axis scan[SDK_MAX_SCAN];
  int64_t ngrid; /* product of scan[i].n, 1 when nscan == 0 */
  int64_t paths; /* paths per grid point */
  uint64_t seed;
  const char *scheme;       /* "euler", "srk2" */
  const char *precision;    /* "single", "double" */
  const char *backend;      /* "cpu", "cuda" */
  const char *command_line; /* how it was invoked (informative) */
  double period;            /* period of the driving, or 0 when the model has none
                               (if the period depends on a scanned parameter,
                               this is the value at grid point 0) */
  int64_t spp;              /* steps per period, 0 when no period */
  const double *dt;         /* time step per grid point (ngrid) */
  int64_t nsteps;           /* total steps */
  int64_t transient_steps;  /* steps before the drift window opens */
  int64_t sample_every;

  /* --- drift: <<v>> of var drift_var, per grid point --- */
  int drift_var;     /* index into var_names */
  double *drift;     /* ngrid */
  double *drift_err; /* ngrid, standard error over paths */
  /* paths that became NaN/Inf per grid point (every result of such a point
   * is NaN); NULL when no point blew up */
  int64_t *nonfinite; /* ngrid */

  /* --- samples every sample_every steps (moments, density, saved paths) --- */
  int64_t nsamples;
  int64_t *sample_step; /* nsamples step indices; t = sample_step * dt[g] */
  /* --- moments: per grid point, sample, variable --- */
  double *mean; /* [g][s][v] = ngrid * nsamples * nvars */
  double *var;  /* same layout, unbiased (n-1) */

  /* --- hist: at the final step, per grid point and variable --- */
  int64_t bins;
  double *hist_lo;      /* [g][v] lower edge of the histogram range */
  double *hist_hi;      /* [g][v] upper edge */
  double *density;      /* [g][v][b]: count / (paths * bin width) */
  uint64_t *hist_under; /* [g][v] paths below lo (only with a fixed range) */
  uint64_t *hist_over;  /* [g][v] paths above hi */

  /* --- saved paths: variables of selected paths at every sample --- */
  int64_t nsaved;
  int64_t *saved_index; /* nsaved path indices within each grid point */
  double *saved;        /* [g][k][s][v] */

  /* --- density over time: histogram of one variable at every sample --- */
  int density_var;
  int64_t dbins;
  double coarse_width;      /* > 0: bins exactly this wide (one potential period) */
  double *dlo, *dhi;        /* [g][s] range of the bins at each sample */
  double *dP;               /* [g][s][b] count / (paths * bin width) */
  uint64_t *dunder, *dover; /* [g][s] paths outside the range */

  /* --- systems of interacting particles (--particles N): paths above counts
   * particles, paths / particles systems per grid point --- */
  int64_t particles; /* particles per system (1: independent paths) */
  /* --- order parameter (--observe order) of variable order_var, every
   * order_every steps: Z = <exp(2 pi i x / order_period)> over a system's
   * particles; r = mean of |Z| over the systems of a grid point, r_err its
   * standard error (NaN with one system), psi = arg of the mean of Z --- */
  int order_var;
  double order_period;
  int64_t order_every;
  int64_t order_nsamples;
  int64_t *order_step; /* [s] */
  double *order_r;     /* [g][s] */
  double *order_r_err; /* [g][s] */
  double *order_psi;   /* [g][s], in (-pi, pi] */
} sdk_results;

#endif
