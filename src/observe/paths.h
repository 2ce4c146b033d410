/* sdekit: the paths of a run as the observables see them.
 *
 * The state of the paths lives on a backend, cut into shards: each shard is
 * an ensemble (backend/backend.h) holding the paths [begin, end) of the
 * global path index g * ppg + i (grid point g, path i).  The reductions below
 * run on every shard and combine the shards' partial results in one fixed
 * order, so the totals do not depend on how the paths are cut (that seam
 * carries MPI: each rank holds some shards).  Shard boundaries fall on whole
 * reduction chunks (SDK_RED_CHUNK paths of one grid point), and for systems
 * of particles on whole grid points.
 *
 * Over several ranks (core/comm.h) every rank knows every shard but holds
 * only its own (ens NULL elsewhere); the shards of a rank are consecutive,
 * ranks in order.  Every function below is then collective: all ranks call
 * it with the same arguments, each reduces what it holds, the partial
 * results cross to every rank (the moments' per-unit partials gathered and
 * merged in the one global order, counts and extremes exactly combined), so
 * every rank returns bitwise what one process holding all shards returns.
 * Rows read go from their holder to every rank (sdk_paths_rows) or to rank
 * 0 alone (sdk_paths_rows_root); rows written go to their holder only.
 */
#ifndef SDK_PATHS_H
#define SDK_PATHS_H

#include <stdint.h>

#include "backend/backend.h"
#include "core/comm.h"
#include "core/error.h"

typedef struct sdk_shard {
  sdk_ensemble *ens;
  int64_t begin, end; /* global path indices held */
} sdk_shard;

/* The carry (sdk_path_window, sim/run.h): the running state of every
 * reduction across the windows of paths run with it, so that a run over a
 * window returns results cumulative over all the windows so far.  Each
 * reduction's state is a slot keyed by (the step, its sequence number at that
 * step): the same program of reductions finds the same slots in every window.
 * Moment reductions continue the host's fold (sequential over fold units in
 * path order, so a window of whole fold units after the earlier ones folds
 * bitwise as one run over them all), counts add, extremes combine.  Counts of
 * NaN/Inf between samples (sdk_paths_nonfinite) are per window: the run keeps
 * its own tally of blown-up grid points in the carry (bad, bad_step). */
typedef struct sdk_carry sdk_carry;
sdk_carry *sdk_carry_create(void);
void sdk_carry_destroy(sdk_carry **c);
/* A new window begins (not a resumed one): the slots are looked up from the
 * first reduction at its first step again. */
void sdk_carry_begin(sdk_carry *c);
/* The reductions from now on run at `step` (their sequence restarts at 0
 * when the step changes). */
void sdk_carry_step(sdk_carry *c, int64_t step);
/* The next reduction's slot of n bytes: *fresh = 1 when made now (zeroed;
 * the first window), else its carried bytes; an error when the slot holds
 * another size (the windows run different programs). */
sdk_err sdk_carry_slot(sdk_carry *c, size_t n, void **slot, int *fresh, sdk_errbuf *eb);
/* Per grid point (ngrid of them, fixed by the first window): the paths of
 * the windows finished (record stage) and the blown-up count and step of
 * each; NULL until sized. */
sdk_err sdk_carry_size(sdk_carry *c, int64_t ngrid, sdk_errbuf *eb);
int64_t *sdk_carry_used(sdk_carry *c);
int64_t *sdk_carry_bad(sdk_carry *c);
int64_t *sdk_carry_bad_step(sdk_carry *c);
/* The carry as bytes (checkpoints) and back (into an empty carry). */
sdk_err sdk_carry_pack(const sdk_carry *c, unsigned char **buf, size_t *len, sdk_errbuf *eb);
sdk_err sdk_carry_unpack(sdk_carry *c, const unsigned char *buf, size_t len, sdk_errbuf *eb);

typedef struct sdk_paths {
  const sdk_backend *be;
  int nshards;
  sdk_shard *shard;
  int64_t ngrid, ppg; /* grid points, paths per grid point */
  int nvars;
  /* [boundaries]: the sdk_paths_rows row of the paths' boundary status
   * (0 alive, b + 1 absorbed at boundary b), followed by the hitting step
   * as step mod 2^20 and step >> 20 (codegen.h); -1 without boundaries */
  int bound_row;
  /* --adaptive: the sdk_paths_rows row of the step controller's first row
   * (codegen.h SDK_CG_ADAPT_ROWS: level, accepted, rejected, deepest level);
   * -1 without */
  int adapt_row;
  int carried; /* the carried rows (sdk_paths_carried_rows) */
  /* the values the module's user observables evaluate per path when more
   * than the model's (--dt-check: then the coupled differences, codegen.h),
   * 0 otherwise: sdk_paths_observe and sdk_paths_eval_observe evaluate them
   * all and give the first nobs asked for */
  int nobs_eval;
  const sdk_comm *comm; /* NULL: one process */
  const int *owner;     /* [nshards] the rank holding each shard (NULL: this one) */
  /* a window (sim/run.h sdk_path_window): of grid point g only the paths
   * [first[g], first[g] + count[g]) are held (NULL: all ppg of every one) */
  const int64_t *first, *count;
  sdk_carry *carry; /* NULL: the reductions return this run's alone */
  /* [events]: the sdk_paths_rows row of their first record row
   * (codegen/resets.h), -1 without */
  int event_row;
} sdk_paths;

/* The paths of grid point g held (local indices [*first, *first + *n)). */
void sdk_paths_held(const sdk_paths *p, int64_t g, int64_t *first, int64_t *n);
/* The paths of grid point g the results stand for: those held, plus those
 * of the earlier windows of the carry. */
int64_t sdk_paths_used(const sdk_paths *p, int64_t g);

/* Does this rank hold shard s? */
int sdk_paths_local(const sdk_paths *p, int s);

/* Moments of every variable per grid point: out[g * nvars + v]; the number
 * of paths with a non-finite variable per grid point into nonfinite[g]. */
sdk_err sdk_paths_moments(const sdk_paths *p, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb);
/* The number of paths of every grid point with a non-finite variable (the
 * most over the variables), as sdk_paths_moments counts them: nonfinite[g]. */
sdk_err sdk_paths_nonfinite(const sdk_paths *p, int64_t *nonfinite, sdk_errbuf *eb);
/* [boundaries]: the path-steps the paths held integrated from step `from`
 * to step `to` into *out (on every rank): a path absorbed at its hitting
 * step m (bound_row) took m - from of them, one still alive to - from: the
 * steps that moved a path (the speed line's; codegen/boundary.c: CUDA skips
 * absorbed paths, the CPU skips blocks of them and discards the lanes of the
 * others in a block with live ones, which are not counted). */
/* Per grid point the paths held whose row `row` (sdk_paths_rows' numbering; a
 * row of whole numbers: a boundary's status) is 0, into count[g] on every
 * rank, counted where the paths live (backend count_zero); *done = 0 (and
 * count unset) where the backend cannot: the caller reads the rows. */
sdk_err sdk_paths_count_zero(const sdk_paths *p, int row, int64_t *count, int *done,
                             sdk_errbuf *eb);
sdk_err sdk_paths_steps_done(const sdk_paths *p, int64_t from, int64_t to, double *out,
                             sdk_errbuf *eb);
/* Save variable `var` of every path as the reference of displacements. */
sdk_err sdk_paths_mark(const sdk_paths *p, int var, sdk_errbuf *eb);
/* Moments of (x_var - mark) * scale per grid point. */
sdk_err sdk_paths_displacement(const sdk_paths *p, int var, double scale, sdk_moments *out,
                               sdk_errbuf *eb);
/* Moments of the model's nobs user observables (model.h: [observe]) at the
 * state after `step` steps per grid point, out[g * nobs + k], reduced in
 * the chunk order of sdk_paths_moments; the number of paths with a
 * non-finite value per grid point into nonfinite[g] (may be NULL); with
 * state_nonfinite, also what sdk_paths_nonfinite gives, from the same pass
 * where the backend can (the check between samples). */
sdk_err sdk_paths_observe(const sdk_paths *p, int64_t step, int nobs, sdk_moments *out,
                          int64_t *nonfinite, int64_t *state_nonfinite, sdk_errbuf *eb);
/* Evaluate the nobs user observables at the state after `step` steps on
 * every shard, where sdk_paths_minmax and sdk_paths_histogram then read
 * observable k as var = nvars + k (until the next evaluation). */
sdk_err sdk_paths_eval_observe(const sdk_paths *p, int64_t step, int nobs, sdk_errbuf *eb);
/* Min and max (NaN ignored) of variable var per grid point. */
sdk_err sdk_paths_minmax(const sdk_paths *p, int var, double *lo, double *hi, sdk_errbuf *eb);
/* Histogram of variable var per grid point in [lo[g], hi[g]]: counts[g * bins + b],
 * paths outside in under[g] / over[g]. */
sdk_err sdk_paths_histogram(const sdk_paths *p, int var, int64_t bins, const double *lo,
                            const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                            sdk_errbuf *eb);
/* Histogram of (x_var mod period) on [0, period) per grid point. */
sdk_err sdk_paths_histogram_mod(const sdk_paths *p, int var, int64_t bins, double period,
                                uint64_t *counts, sdk_errbuf *eb);
/* The carried rows every shard's state has after the drift mark (backend.h:
 * rows nvars + 1 ...; codegen.h: compensation, then accumulators). */
int sdk_paths_carried_rows(const sdk_paths *p);
/* Read (write = 0) or write row `row` (backend.h: variables, mark, carried
 * rows) of the global paths [first, first + n) as doubles. */
sdk_err sdk_paths_rows(const sdk_paths *p, int row, int64_t first, int64_t n, double *buf,
                       int write, sdk_errbuf *eb);
/* Read row `row` of the paths [first, first + n) into rank 0's buf (the
 * other ranks' buf is not touched and may be NULL): checkpoints. */
sdk_err sdk_paths_rows_root(const sdk_paths *p, int row, int64_t first, int64_t n, double *buf,
                            sdk_errbuf *eb);

/* Rows read in blocks: observables that fold the state chunk by chunk on
 * the host (cov, diffusion, fpt) ask for SDK_RED_CHUNK paths at a time; a
 * GPU answers each request with a copy of its own (some microseconds), so
 * the cache reads SDK_ROWCACHE_BLOCK paths of a row at once and serves the
 * chunks from memory.  The state changes between calls of an observable:
 * sdk_rowcache_reset before every use (sample, finish). */
#define SDK_ROWCACHE_ROWS 16
#define SDK_ROWCACHE_BLOCK ((int64_t)SDK_RED_CHUNK * 256)
typedef struct sdk_rowcache {
  int n;
  struct {
    int row;
    int64_t first, len;
    double *buf; /* SDK_ROWCACHE_BLOCK values */
  } e[SDK_ROWCACHE_ROWS];
} sdk_rowcache;
void sdk_rowcache_reset(sdk_rowcache *c);
void sdk_rowcache_free(sdk_rowcache *c);
/* sdk_paths_rows (reading) through the cache: the same values. */
sdk_err sdk_paths_rows_cached(const sdk_paths *p, sdk_rowcache *c, int row, int64_t first,
                              int64_t n, double *buf, sdk_errbuf *eb);

#endif
