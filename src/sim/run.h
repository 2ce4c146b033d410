/* sdekit: a run = model + settings -> results, on one backend.
 *
 * A run is four stages (sim/run_internal.h), each passing one plan forward:
 *   plan     validate the configuration against the model, make the grid of
 *            scan points, time steps and sizes, set up the observables
 *   program  generate the kernel source, open the backend, compile, allocate
 *   execute  advance the paths, sample the observables, write checkpoints
 *   record   let the observables finish, mark grid points that blew up
 *
 * Time keeping (Januszewski & Kostur 2010, Sec. 6): time is never
 * accumulated as t += dt.  Kernels get the integer step index n and compute
 * t = n * dt; with a periodic driving of period P and spp steps per period
 * (dt = P / spp) they may also use the phase (n mod spp) * dt where it is
 * exact (codegen.c).
 */
#ifndef SDK_RUN_H
#define SDK_RUN_H

#include <stdint.h>

#include "backend/backend.h"
#include "core/comm.h"

#define SDK_MAX_DEVICES 16
#define SDK_DEVICES_ALL (-1)
#include "core/error.h"
#include "core/log.h"
#include "core/tuning.h"
#include "observe/observable.h"
#include "observe/results.h"

struct sdk_ckpt;

#define SDK_MAX_SET 64

/* Longest run: 2^53 steps, so that the time n * dt of every step is exact in a
 * double and n fits the kernels' 64-bit counters with room to spare. */
#define SDK_MAX_STEPS ((int64_t)1 << 53)
/* A length of time is a whole number of steps when it is one to this
 * relative tolerance (0.3 / 0.1 is 2.9999999999999996 steps) */
#define SDK_TIME_TOL 1e-9

/* The run integrates, of every grid point g, only the paths [first[g], first[g] + count[g])
 * of a grid point of key_ppg paths: path i of grid point g has the global index and random
 * numbers (rng/philox.h) of g * key_ppg + i, as in a run of key_ppg paths per grid point.
 * count[g] = 0: grid point g takes no part (costs nothing).  first[g] and count[g] are
 * multiples of SDK_PATH_WINDOW_UNIT (a fold unit of the reductions, backend.h), and so is
 * key_ppg: every window is made of whole fold units, so that a carry (observe/paths.h)
 * continues the reductions' folds bitwise.  Independent paths only (systems refuse).
 * chunks = 1: first[g] and count[g] need only be whole reduction chunks (SDK_RED_CHUNK
 * paths; key_ppg still whole units): a fold unit cut by a window's edge is folded chunk by
 * chunk, so a carried fold is deterministic (every window's partial results fold in one
 * fixed order, whatever the threads, shards and ranks) but not bitwise that of one run over
 * the same paths (--mlmc, sim/mlmc.h, needs only the determinism). */
typedef struct sdk_path_window {
  int64_t key_ppg;
  const int64_t *first, *count;
  int chunks;
} sdk_path_window;
#define SDK_PATH_WINDOW_UNIT ((int64_t)SDK_RED_FOLD * SDK_RED_CHUNK)

/* Values given per path (issue 28), arrays of doubles by name: a parameter's
 * (sdk_run_config.path_params) or a variable's initial value (.init).  Of
 * name k, values[k][i] is the value of path i % ppg of grid point i / ppg
 * when count == ngrid * ppg, and of path i of every grid point when count ==
 * ppg (ppg: the paths per grid point; path i of a grid point is the one with
 * the random numbers of index i there, whatever the shards, ranks, windows
 * and resumes).  The caller owns the arrays; n == 0: none given.
 *
 * Or, with values NULL, the values stay where they are (a file: io/table.h)
 * and `read` gives them on demand: values [first, first + n) of name k, in
 * the order above, into out[0..n), each checked finite (an error naming the
 * data, the name and the path otherwise).  The run asks only for the values
 * of the shards its rank holds, after the shards are cut, a bounded piece at
 * a time, so that a rank holds O(its paths) of them, never all (MPI ranks:
 * docs/ARCHITECTURE.md).  read_ctx is only read by `read` (several ranks of
 * one process may call it at once). */
typedef sdk_err (*sdk_path_read_fn)(void *ctx, int k, int64_t first, int64_t n, double *out,
                                    sdk_errbuf *eb);
typedef struct sdk_path_values {
  int n;
  const char *const *names;
  const double *const *values;
  int64_t count;
  /* the data's grid points when they are 2-D, [ngrid][count / ngrid]: the
   * run's must be the same; 0: 1-D (a flat count) */
  int64_t ngrid;
  sdk_path_read_fn read;
  void *read_ctx;
  /* what the values came from, for messages: the file, or the option of
   * the arrays; NULL: "values per path" */
  const char *source;
} sdk_path_values;

typedef struct sdk_run_config {
  const char *model; /* built-in name or path */
  /* ':'-separated directories searched for a bare model name before the
   * built-in ones (the CLI's SDEKIT_MODEL_PATH); NULL: the built-ins only */
  const char *model_search_path;
  int nset;
  const char *set_name[SDK_MAX_SET];
  double set_value[SDK_MAX_SET];
  int nscan;
  /* the scanned parameters, each a grid axis or (.zip) moving with the one
   * before it; values: NULL until sdk_scan_fill (the run fills its copy) */
  sdk_scan_axis scan[SDK_MAX_SCAN_PARAMS];
  int64_t paths;             /* per grid point (systems, with particles > 1) */
  int64_t particles;         /* particles per system (--particles); 0: unset (1) */
  double dt;                 /* 0: unset */
  int64_t spp;               /* 0: unset */
  double t_end;              /* 0: unset */
  int64_t periods;           /* 0: unset */
  double transient;          /* -1: unset */
  int64_t transient_periods; /* -1: unset */
  const char *scheme;
  const char *noise; /* --noise NAME: the noise source (NULL: the scheme's) */
  uint64_t seed;
  const char *backend; /* cpu, cuda, auto */
  int single;
  int no_compensation; /* single precision: plain x += incr (codegen.h) */
  /* --compensate all: every variable; 0 (the default, --compensate auto):
   * the variables of comp_vars.c's rule, the others updated plainly */
  int compensate_all;
  /* [boundaries]: absorb on discrete monitoring alone, without the
   * Brownian-bridge crossing probability (codegen/boundary.c) */
  int no_bridge_correction;
  /* --dt-check: every path also carries a copy at 2 dt driven by the same
   * noise (codegen.h), and the values of the observables get their bias
   * (observe/bias.h); --extrapolate: the values less their bias */
  int dt_check, extrapolate;
  /* > 0: --mlmc EPS, multilevel Monte Carlo to the RMS error EPS; --target-error
   * EPS, dt halved and paths added until the error is at most EPS (sim/mlmc.h) */
  double mlmc, target_error;
  /* the sense of state-dependent noise: -1 the model's ([model] calculus),
   * else an sdk_calculus (--calculus) */
  int calculus;
  int threads;
  int device;
  /* --device A,B,...: the GPUs of a node's ranks, rank r taking the one at
   * its local rank modulo ndevices (0: --device alone, or by the local rank
   * when several ranks share a node).  Without MPI ranks (comm NULL), a list
   * of several makes the run an in-process team of as many ranks, one thread
   * per GPU (sim/ranks.c); SDK_DEVICES_ALL: every GPU of this machine (under
   * MPI: by the local rank) */
  int ndevices;
  int devices[SDK_MAX_DEVICES];
  /* > 1: the run as this many in-process ranks on any backend (threads of
   * this process laid out as as many MPI ranks: for tests that the results do
   * not depend on the layout); --device's list takes precedence */
  int ranks;
  int fast_math;
  int64_t cache_max; /* kernel cache cap, bytes (0: default, < 0: none) */
  /* hold the paths in this many shards (observe/paths.h), each its own
   * ensemble on the backend, cut on reduction chunks; the results are bitwise
   * those of one shard (the seam MPI uses; systems of particles: one) */
  int shards;
  /* what a caller of many runs keeps open between them (sim/session.h;
   * NULL: none) */
  struct sdk_session *session;
  /* the ranks of the run (core/comm.h; NULL: one process): each holds some
   * shards, and every rank returns bitwise the results of one process */
  const sdk_comm *comm;
  /* observables: comma-separated names of the registry (sim/registry.h);
   * NULL: "drift".  "paths" is added when obs.nsave > 0 (--save-paths). */
  const char *observe;
  sdk_observe_opts obs; /* their options */
  /* the results will be written as TSV (every observable's text): the plan
   * refuses a header that would name two columns alike */
  int tsv;
  /* --observe-expr NAME=EXPR, in order: user observables added to the
   * model's [observe] (model.h); any switches the observable expr on */
  int nobs_expr;
  const char *obs_expr[SDK_MODEL_MAX_OBSERVE];
  int64_t sample_every; /* 0: default */
  /* --sample-times SPEC (sim/sample_times.h; NULL: every sample_every steps) */
  const char *sample_times;
  int quiet, verbose;
  const char *command_line;
  const char *model_text; /* if set: the model's text (resume) ... */
  const char *model_path; /* ... and the path it was read from */
  /* checkpoints: file, seconds between writes (<= 0: at every chunk); the
   * arguments to store so that `sdekit resume` can rebuild this config */
  const char *checkpoint;
  double checkpoint_every;
  int argc;
  char **argv;
  /* polled after every chunk of steps: nonzero checkpoints (if asked) and
   * stops the run with SDK_ERR_INTERRUPTED */
  int (*cancel)(void *user);
  void *cancel_user;
  /* a problem that does not stop the run (a checkpoint that could not be
   * written): reported once through this hook, if set */
  void (*warn)(void *user, const char *msg);
  void *warn_user;
  const struct sdk_ckpt *resume; /* continue from this checkpoint */
  /* optional progress hook: fraction done, steps per second so far */
  void (*progress)(void *user, double frac, double steps_per_s);
  void *progress_user;
  /* where the backend keeps its kernels and finds its compilers (backend.h;
   * the CLI fills it from the environment), the GPU tuning knobs, and where
   * the backend's messages go (NULL: nowhere) */
  sdk_backend_env env;
  sdk_tuning tuning;
  const sdk_logger *logger;
  /* a window of the paths (NULL: all c->paths of every grid point); with a
   * carry the results are cumulative over every window run with it (its
   * slots are updated; a resumed run restores it from the checkpoint) */
  const sdk_path_window *window;
  struct sdk_carry *carry;
  /* bytes a checkpoint of this run also stores (record TGTS: the state of
   * the driver of batches, sim/target.c), or NULL */
  const void *target_state;
  size_t ntarget_state;
  /* --target-se / --target-rse EPS (0: off; one of them): paths are added in
   * batches (sim/target.c) until the standard error of every value of the
   * observables --target-on names (NULL: every one with a standard error) is
   * at most EPS (relative: EPS |value|) at every grid point; --max-paths
   * (0: the largest key the grid allows) and --max-seconds (0: none) bound it */
  double target_se, target_rse;
  const char *target_on;
  int64_t max_paths;
  double max_seconds;
  /* issue 28: per-path parameter values (--path-params) and initial states
   * (--init-from), see sdk_path_values; --save-final: every path's final
   * state (and per-path parameters) into the results */
  sdk_path_values path_params, init;
  /* initial states come as data although init holds none: a resumed run
   * of one that had them (its checkpoint holds the state; its kernels must
   * stay the same).  sdk_init_given: init has values, or init_given */
  int init_given;
  /* and where they came from (a file, "init": arrays), also when resumed */
  const char *init_source;
  int save_final;
  /* 1: paths is the data's number of paths (no --paths given): said in a note */
  int paths_from_data;
  /* a note said once when the run starts (the deprecated names of the
   * environment that the caller took: api/environment.c), or NULL */
  const char *env_note;
  /* --adaptive (sim/adaptive.c, codegen/adaptive.c): steps per path,
   * controlled to --rtol, --atol, between --dt-min and --dt-max (the step of
   * the run's time grid), --dt the first try; 0: unset (rtol 1e-3, atol
   * 1e-6, dt-min the Brownian tree's finest step, dt-max --dt) */
  int adaptive;
  double rtol, atol, dt_min, dt_max;
} sdk_run_config;

/* Defaults for every field. */
void sdk_run_config_defaults(sdk_run_config *c);
/* The observables the configuration asks for, in the registry's order (the
 * order of the results): at most SDK_MAX_OBSERVABLES into out[], *n of them;
 * SDK_ERR_USAGE naming an unknown one. */
sdk_err sdk_run_config_observables(const sdk_run_config *c, const sdk_obs_type **out, int *n,
                                   sdk_errbuf *eb);

/* Parse "NAME=START:STOP:N[:log]" strictly; ax->values stays NULL. */
sdk_err sdk_scan_parse(const char *spec, sdk_scan_axis *ax, sdk_errbuf *eb);
/* Fill ax->values (no-op when present): N points rounded to 15 significant
 * digits with the exact end point.  A run fills its own copy after checking
 * the size of the grid. */
sdk_err sdk_scan_fill(sdk_scan_axis *ax, sdk_errbuf *eb);
void sdk_scan_free(sdk_scan_axis *ax);

typedef struct sdk_run sdk_run; /* results plus the storage behind them */

sdk_err sdk_run_execute(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb);
const sdk_results *sdk_run_results(const sdk_run *r);
/* Seconds spent integrating, and total path-steps done. */
double sdk_run_seconds(const sdk_run *r);
double sdk_run_path_steps(const sdk_run *r);
const char *sdk_run_device(const sdk_run *r);
/* NULL, or why some results are NaN: grid points whose paths became NaN/Inf
 * (results.h: nonfinite).  The run succeeded otherwise; the CLI writes the
 * results, then reports this as an error (exit 1). */
const char *sdk_run_problem(const sdk_run *r);
void sdk_run_destroy(sdk_run **r);

/* Generate the kernel source a run on backend `be` would use (for sdekit
 * codegen/compile). */
sdk_err sdk_run_codegen(const sdk_run_config *c, const sdk_backend *be, char **src, sdk_errbuf *eb);

/* Generate and compile the kernel a run would use, without running it
 * (sim/compile.c).  A device backend (CUDA) with an arch ("sm_90") needs
 * its compiler only (NVRTC), no device. */
typedef struct sdk_compile_report {
  char model[256];
  char scheme[32];
  char precision[16];
  int fast_math;
  char where[512];   /* the backend's description */
  char report[4400]; /* the compiler's resources line */
} sdk_compile_report;
sdk_err sdk_run_compile(const sdk_run_config *c, const sdk_backend *be, const char *arch,
                        sdk_compile_report *out, sdk_errbuf *eb);

/* Time the backend's advance alone (for sdekit bench): `repeats` launches
 * of nsteps steps after a warm-up; the clock stops after a reduction has
 * returned, so asynchronous devices are included. */
typedef struct sdk_bench_timing {
  double median_s, min_s, max_s;
  double path_steps; /* per repeat */
  double check_lo, check_hi;
  char device[256];
} sdk_bench_timing;
sdk_err sdk_run_time_advance(const sdk_run_config *c, int64_t nsteps, int repeats,
                             sdk_bench_timing *out, sdk_errbuf *eb);

#endif
