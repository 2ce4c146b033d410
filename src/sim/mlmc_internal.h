/* sdekit: what sim/mlmc.c (the driver of --mlmc and --target-error) and
 * sim/mlmc_record.c (its results) share: the driver's state and the
 * statistics read from the levels' runs.  Internal to sim/. */
#ifndef SDK_MLMC_INTERNAL_H
#define SDK_MLMC_INTERNAL_H

#include "observe/paths.h"
#include "sim/mlmc.h"
#include "sim/run_internal.h"
#include "sim/window_progress.h"

/* windows: whole reduction chunks (run.h sdk_path_window.chunks); the key of
 * the paths: whole fold units */
#define UNIT SDK_RED_CHUNK
#define KEY_UNIT SDK_PATH_WINDOW_UNIT
#define MAX_Q 64

/* Why a grid point stopped (mlmc/status, target/status): reached, the levels
 * ran out with the bias still too large, NaN/Inf, then the bounds that the
 * caller may give (--max-paths: paths over all levels; --max-seconds: the
 * seconds spent running paths, checked between rounds).  The first three
 * keep the values that earlier versions wrote. */
enum {
  SDK_MLMC_ST_REACHED = 0,
  SDK_MLMC_ST_LEVELS = 1,
  SDK_MLMC_ST_NAN = 2,
  SDK_MLMC_ST_MAX_PATHS = 3,
  SDK_MLMC_ST_MAX_SECONDS = 4,
  SDK_MLMC_ST_COUNT
};
/* the status dataset's "meaning" attribute, %s: what status 1 means */
#define SDK_MLMC_ST_MEANING "0 reached, 1 %s, 2 NaN/Inf, 3 --max-paths, 4 --max-seconds"
#define SDK_MLMC_ST_LEVELS_TE "the bias still too large at the finest dt tried"
#define SDK_MLMC_ST_LEVELS_MLMC "the bias estimate still above EPS/sqrt(2) after the most levels"

typedef struct quantity {
  char name[160];                /* GROUP_NAME */
  char value[160], err[160];     /* dataset paths */
  char bias[160], bias_err[160]; /* (--dt-check's) */
  double decay;                  /* 2^order of its bias (attribute weak_order or order) */
} quantity;

typedef struct level {
  sdk_carry *carry;
  int64_t *used, *add; /* [ngrid]: paths run so far, the next window */
  sdk_run *run;        /* the latest run: results over all its windows */
  int ran;             /* a window of it has run (its carry holds them) */
  /* the wall seconds its windows after its first took in this process and
   * their paths (over the grid points): --max-seconds prices its next round
   * per level, as a level's fixed cost per path (4 steps at dt_0, a coupled
   * copy, the observables) is not its steps'; its first window (opened)
   * also loads or compiles its kernels (drv.setup) */
  double secs;
  int64_t timed;
  int opened;
} level;

typedef struct drv {
  sdk_run_config base; /* the caller's, with mlmc and target_error off */
  int te;              /* 1: --target-error, 0: --mlmc */
  double eps;
  int64_t ngrid, key, nsteps0, spp0, ninit;
  double dt0;
  int p;       /* the scheme's weak order */
  double beta; /* Var Y_l ~ dt_l^beta: twice the scheme's strong order */
  int nq;
  quantity q[MAX_Q];
  int nlev;
  level lev[SDK_MLMC_MAX_LEVELS];
  int64_t *L, *status; /* [ngrid]: the finest level (dt index); SDK_MLMC_ST_* */
  unsigned char *done;
  double seconds, path_steps; /* of the runs (a resumed driver: with the earlier ones') */
  double began, before;       /* sdk_now_s() at the start; seconds before a resume */
  double setup;               /* the longest first window of a level in this process */
  const char *opt;            /* "--mlmc" or "--target-error" */
  int cur;                    /* the level whose window runs (checkpoints) */
  unsigned char *packed;      /* the state as bytes (record TGTS) */
  size_t npacked;
  int64_t *none; /* [ngrid] zeros: a window of no paths */
  /* the caller's progress hook over the rounds, in path-steps of
   * sdk_mlmc_level_cost: each round as planned (none for the first) */
  sdk_window_progress wp;
  double ahead; /* --mlmc: the cost of the paths still to run (this round's decisions) */
} drv;

/* The statistics read from the levels' runs (mlmc_stats.c).  The quantities
 * of a level's results (d->q: the values --dt-check measured a bias of, in
 * a value's shape), found once from the first. */
sdk_err sdk_mlmc_find_quantities(drv *d, const sdk_results *R, sdk_errbuf *eb);
/* a value-shaped dataset: one number per grid point, or a series whose last
 * sample is t_end */
int sdk_mlmc_scalar_shape(const sdk_dataset *v);
/* the element of a value-shaped dataset at grid point g and t_end */
double sdk_mlmc_at(const sdk_results *R, const char *path, int64_t g);
int64_t sdk_mlmc_used_of(const sdk_results *R, const level *v, int64_t g);
/* mean and variance per path of level l's estimate of quantity q at g */
void sdk_mlmc_stats(const drv *d, int l, int q, int64_t g, double *mean, double *var);
double sdk_mlmc_level_cost(const drv *d, int l);
/* Giles' paths per level at grid point g (mlmc.c) */
int sdk_mlmc_optimal(const drv *d, int64_t g, double *need, double *bias, int *deeper,
                     double *ahead);
/* quantity q's bias at g's dt as --target-error's decisions take it (mlmc.c) */
double sdk_mlmc_te_bias(const drv *d, int64_t g, int q, double *be, double *factor);

/* The results of a finished driver (mlmc_record.c): level 0's run with the
 * estimates and the group mlmc/, or the final dts' with the group target/. */
sdk_err sdk_mlmc_record_mlmc(drv *d, sdk_run **out, sdk_errbuf *eb);
sdk_err sdk_mlmc_record_te(drv *d, sdk_run **out, sdk_errbuf *eb);

#endif
