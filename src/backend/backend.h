/* sdekit: backends.
 *
 * A backend is a const table of operations over an ensemble of paths whose
 * state lives where the backend computes (host memory for the CPU, device
 * memory for CUDA).  The simulation driver (src/sim) only ever talks to this
 * table, so a new backend (another GPU API, MPI ranks) plugs in without
 * touching models, schemes or observables.
 *
 * Reductions are deterministic: paths of a grid point are cut into chunks
 * of SDK_RED_CHUNK consecutive paths, each chunk is reduced in a fixed order,
 * and chunk results are combined in chunk order.  The result therefore does
 * not depend on the number of threads or on the launch shape.
 */
#ifndef SDK_BACKEND_H
#define SDK_BACKEND_H

#include <stdint.h>
#include <stdio.h>

#include "codegen/abi.h" /* SDK_RED_CHUNK, SDK_KERNEL_ABI: the kernel ABI */
#include "core/comm.h"
#include "core/error.h"
#include "core/log.h"
#include "core/tuning.h"

typedef struct sdk_bctx sdk_bctx;         /* an opened backend (device, threads) */
typedef struct sdk_module sdk_module;     /* a compiled kernel module */
typedef struct sdk_ensemble sdk_ensemble; /* state of all paths on the backend */

/* Where a backend keeps its kernels and finds its compilers.  The library
 * never reads the environment: the CLI fills this from the variables named
 * below (src/cli/env.c).  NULL (or empty) everywhere is a working default. */
typedef struct sdk_backend_env {
  /* The kernel cache (backend/cache.h has the rules).  NULL: a private
   * directory of the opened backend, created in tmp_dir when the first
   * module is compiled and removed when the backend is closed.  The CLI:
   * $SDEKIT_CACHE_DIR, else $XDG_CACHE_HOME/sdekit, else $HOME/.cache/sdekit. */
  const char *cache_dir;
  const char *tmp_dir; /* $TMPDIR; NULL or not absolute: /tmp */
  /* CPU: the C compiler command, blank-separated words, found through PATH
   * by posix_spawnp.  NULL: cc.  The CLI: $SDEKIT_CC, else $CC, else clang
   * when it is on $PATH (it vectorises libm calls through libmvec), else cc. */
  const char *cc;
  /* CPU: every flag, replacing the defaults of cpu.c ($SDEKIT_CFLAGS); NULL:
   * the defaults followed by cflags_extra ($CFLAGS). */
  const char *cflags, *cflags_extra;
  /* CUDA: toolkit directories whose lib64/libnvrtc.so* is tried, in this
   * order, after the dynamic loader's own search and before /usr/local/cuda
   * ($CUDA_HOME, $CUDA_PATH).  NVRTC is loaded once per process: the first
   * backend that needs it decides. */
  const char *cuda_home, *cuda_path;
} sdk_backend_env;

/* The strings, the tuning's and the logger are used while the backend is
 * open: they must outlive it. */
/* Modules kept between runs (a session, sim/session.h): a device backend's
 * compile asks take() for its module by key (the device and the cache entry)
 * before loading it, and the run's end gives the module to put() instead of
 * unloading it; put() returns 1 when it kept it (it frees it later with
 * free_module), 0 when the caller must free it. */
typedef struct sdk_module_shelf {
  void *user;
  struct sdk_module *(*take)(void *user, const char *key);
  int (*put)(void *user, const char *key, struct sdk_module *m,
             void (*free_module)(struct sdk_module **m));
  /* The same for a backend's blocks of device memory (issue 32: a later run
   * of the same sizes allocates nothing): take_mem gives one kept under key
   * (NULL: none), put_mem keeps mem (1; it may release an older block with
   * its release) or not (0: the caller releases it), drop_mem releases all
   * those whose key begins with prefix (an allocation failed: room). */
  void *(*take_mem)(void *user, const char *key);
  int (*put_mem)(void *user, const char *key, void *mem, void (*release)(void *mem));
  void (*drop_mem)(void *user, const char *prefix);
} sdk_module_shelf;

typedef struct sdk_backend_opts {
  int threads; /* CPU threads, 0 = all */
  int device;  /* GPU ordinal */
  /* several ranks on a node: take GPU local_rank modulo the node's GPUs
   * (instead of device) */
  int by_rank, local_rank;
  int fast_math;     /* allow fast-math code generation */
  const char *arch;  /* CUDA: compile for this arch (e.g. sm_90) without a GPU */
  int64_t cache_max; /* kernel cache cap in bytes: 0 = SDK_CACHE_MAX_DEFAULT, < 0 = none */
  sdk_backend_env env;
  sdk_tuning tuning; /* the GPU kernels' knobs (core/tuning.h) */
  /* compiler commands, NVRTC options, cache use and the compiler's log
   * (SDK_LOG_DEBUG), which system kernel runs (SDK_LOG_DEBUG); NULL: none */
  const sdk_logger *logger;
  /* polled while a kernel compiles (NULL: never); nonzero stops the
   * compilation and compile returns SDK_ERR_INTERRUPTED.  CPU: the C
   * compiler runs in a process group of its own, which is then terminated;
   * CUDA: NVRTC cannot be stopped inside its call, the flag is looked at
   * before and after it. */
  int (*cancel)(void *user);
  void *cancel_user;
  const sdk_module_shelf *shelf; /* NULL: none */
} sdk_backend_opts;

/* The paths of a run have global indices g * ppg + i (grid point g, path i);
 * an ensemble holds the shard [path0, path0 + npaths) of them.  Shards begin
 * and end on reduction chunks: chunk c of grid point g is its paths
 * c * SDK_RED_CHUNK ... (c + 1) * SDK_RED_CHUNK - 1, with the global id
 * g * nch + c (nch = sdk_chunks_per_grid(ppg)); systems of particles hold
 * whole grid points. */
typedef struct sdk_layout {
  int nvars;
  int single; /* float state */
  int64_t ngrid;
  int64_t ppg;       /* paths per grid point */
  int64_t path0;     /* global index of the first path held here */
  int64_t npaths;    /* paths held (0: every path from path0 on) */
  int nsv;           /* per-grid-point values */
  const double *sv;  /* ngrid * nsv values (converted to the state type) */
  int64_t particles; /* > 0: module of a system driver (advance_sys), systems of this
                        many consecutive paths (particles); ppg is a multiple of it */
  /* systems spanning MPI ranks (mean field): the ranks, and how many of the
   * system driver's units (sys_unit) each rank holds, ranks in order (NULL:
   * the shard holds all) */
  const sdk_comm *comm;
  const int64_t *xchunks;
  /* the state starts zeroed (padding paths included): sdk_init reads the
   * variables written before it (--init-from, codegen's init_given) */
  int zero;
} sdk_layout;

/* Welford-style moments of one variable at one grid point. */
typedef struct sdk_moments {
  double n, mean, m2; /* m2: sum of squared deviations */
} sdk_moments;

/* A backend is a row of data and a table of operations: what it is (its
 * name and description), the kernels it compiles (target), how it is chosen
 * (device, auto_rank) and how `sdekit bench` sizes it.  Nothing outside the
 * registry (sim/registry.c) compares a backend's name: options, messages,
 * listings and the code generator read these fields. */
typedef struct sdk_backend {
  const char *name;
  const char *description; /* one line, for listings (sdekit_registry_description) */
  sdk_target target;       /* the code generator's target of its modules */
  /* 1: it computes on a device that --device picks (a GPU), and compiles for
   * an --arch without one (sdekit compile --arch); 0: on the host */
  int device;
  /* --backend auto opens the backends of rank > 0 from the highest rank down
   * and takes the first that opens (the last one's error is the run's) */
  int auto_rank;
  /* `sdekit bench`'s paths of its whole-run rows when --paths is not given
   * (enough to fill the device) */
  int64_t bench_paths;
  /* Nonzero: a chunk of steps of independent paths ends only where the run
   * looks at the paths (a sample, the end of the transient, MAX_CHUNK steps
   * after the last look: sim/execute.c), never earlier to keep to its time
   * target.  The CUDA kernel's bits depend on where its chunks start and
   * end (measured on the H200: josephson scanned in omega, srk2, double; a
   * chunk end on a multiple of its step groups is not enough), so its
   * chunks keep the one schedule that every run, resumed or not, on any
   * number of ranks, has always had.  Systems of particles are paced on
   * every backend (their step kernels keep no state across steps). */
  int fixed_chunks;
  /* The number of devices of this machine (--device all), for a backend of
   * device = 1; NULL for the host's. */
  sdk_err (*count_devices)(const sdk_backend_opts *o, int *n, sdk_errbuf *eb);
  /* Open/close the backend (select device, load driver). */
  sdk_err (*open)(const sdk_backend_opts *o, sdk_bctx **ctx, sdk_errbuf *eb);
  void (*close)(sdk_bctx **ctx);
  /* Human-readable description of what runs (device name, threads). */
  void (*describe)(sdk_bctx *ctx, char *buf, size_t n);
  /* Compile generated source (cached by hash).  `ident` is the source's
   * identity (codegen/identity.h sdk_cg_identity, 32 hex digits), which the
   * caller has computed already: the cache entry's key is made from it, not
   * from the source normalised and hashed again (issue 32: a repeated call's
   * cost); NULL: computed here.  `report` (optional) receives a line about resources (registers,
   * spills). */
  sdk_err (*compile)(sdk_bctx *ctx, const char *src, const char *ident, const char *model_path,
                     sdk_module **mod, char *report, size_t nreport, sdk_errbuf *eb);
  void (*module_free)(sdk_module **mod);
  /* The hash that compile keys the module of source `ident` by (32 hex
   * digits): the identity with all else that sets the kernel's bits (CPU:
   * the compiler, its flags, the processor; CUDA: NVRTC, the architecture,
   * the options).  A checkpoint records it and continues only a kernel built
   * alike (sim/program.c): another compiler or flags mix two kernels' bits. */
  sdk_err (*build_hash)(sdk_bctx *ctx, const char *ident, char out[33], sdk_errbuf *eb);
  /* Allocate the state for the layout. */
  sdk_err (*alloc)(sdk_bctx *ctx, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **ens,
                   sdk_errbuf *eb);
  void (*free)(sdk_ensemble **ens);
  sdk_err (*init)(sdk_ensemble *ens, uint64_t seed, sdk_errbuf *eb);
  /* Advance every path from step `step0` by `nsteps` steps. */
  sdk_err (*advance)(sdk_ensemble *ens, int64_t step0, int64_t nsteps, uint64_t seed,
                     sdk_errbuf *eb);
  /* Save variable `var` of every path as the drift reference point. */
  sdk_err (*mark)(sdk_ensemble *ens, int var, sdk_errbuf *eb);
  /* The reductions work on the paths held and return partial results that
   * observe/paths.c combines in a fixed order: per chunk (k = chunk id - the
   * first chunk held, sdk_layout_span) or per grid point (j = g - the first
   * grid point held).  Within a chunk the order is fixed (the backend's own).
   *
   * The moment reductions (moments, displacement, observe) return one partial
   * result per fold unit of the span (sdk_span_units: a run of SDK_RED_FOLD
   * chunks of a grid point held whole, or a single chunk of a run the shard
   * holds only in part), the unit's chunks merged in chunk order by
   * sdk_moments_merge's arithmetic (sdk_fold_units), so that the host's fold
   * of the units of all shards (observe/paths.c) gives the same bits for any
   * cut of the paths.
   *
   * Moments of every variable per unit: out[k * nvars + v], and the number
   * of paths whose variable v is NaN/Inf: nonfinite[k * nvars + v] (may be NULL). */
  sdk_err (*moments)(sdk_ensemble *ens, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb);
  /* Moments of (x_var - mark) * scale per unit: out[k]. */
  sdk_err (*displacement)(sdk_ensemble *ens, int var, double scale, sdk_moments *out,
                          sdk_errbuf *eb);
  /* Min and max (NaN left out; +-inf when none) of variable var over the paths
   * held of each grid point: lo[j], hi[j].  Here and in histogram, var >=
   * nvars is user observable var - nvars as eval_observe last evaluated it. */
  sdk_err (*minmax)(sdk_ensemble *ens, int var, double *lo, double *hi, sdk_errbuf *eb);
  /* Histogram of variable var over the paths held of each grid point, in the
   * range lo[j]..hi[j]: counts[j * bins + b]; paths outside go to under[j] /
   * over[j]; NaN nowhere. */
  sdk_err (*histogram)(sdk_ensemble *ens, int var, int64_t bins, const double *lo, const double *hi,
                       uint64_t *counts, uint64_t *under, uint64_t *over, sdk_errbuf *eb);
  /* Copy the state of paths [first, first+n) out as doubles: out[v * n + i]. */
  sdk_err (*read_state)(sdk_ensemble *ens, int64_t first, int64_t n, double *out, sdk_errbuf *eb);
  /* Copy one row of the state between the backend and doubles: row v < nvars
   * is variable v, row nvars the drift mark (allocated on first write), row
   * nvars + 1 + k the carried row k of the compensated update (k <
   * carried_rows; an error in others); paths
   * [first, first+n).  write = 0 reads into buf, 1 writes buf (checkpoints).
   * Row -1 - j (read only) is user observable j as eval_observe last
   * evaluated it (acf, psd of user observables: observe/obs_corr.h). */
  sdk_err (*rows)(sdk_ensemble *ens, int row, int64_t first, int64_t n, double *buf, int write,
                  sdk_errbuf *eb);
  /* Optional: per grid point held the paths whose row `row` (rows'
   * numbering: a variable or a carried row) is 0, count[j] (j = g - the
   * first grid point held); for rows of whole numbers (a boundary's status:
   * 0 alive), which the CUDA backend counts on the device, only the counts
   * crossing to the host (fpt's survival at every sample, issue 32). */
  sdk_err (*count_zero)(sdk_ensemble *ens, int row, int64_t *count, sdk_errbuf *eb);
  /* Number of carried rows (rows nvars + 1 ...): those of the compensated
   * update (0 without it, nvars for a Kahan sum every step, 2 nvars when the
   * module also keeps the high part: codegen.h, deferred renormalisation),
   * then the boundary rows (codegen.h, sdk_cg_rows). */
  int (*carried_rows)(const sdk_ensemble *ens);
  /* Systems of interacting particles (modules generated in system mode,
   * lay->particles = N): advance every system from step step0 by nsteps
   * Euler steps (nsteps = 0: no step).  When obs is given and the module
   * reduces an order parameter, rows of ngrid x 4 doubles are written to it:
   * for every grid point, summed over its systems, |Z|, |Z|^2, Re Z, Im Z of
   * the system's Z = <exp(i k x)> over its N particles; one row for the
   * state at step0 when nsteps = 0, else one for every state n in
   * (step0, step0 + nsteps] with n % obs_every == 0.  Reduced on the device,
   * in a fixed order. */
  sdk_err (*advance_sys)(sdk_ensemble *ens, int64_t step0, int64_t nsteps, uint64_t seed,
                         int64_t obs_every, double *obs, sdk_errbuf *eb);
  /* Systems spanning MPI ranks: the particles of the system driver's unit of
   * work for systems of `particles` (from each system's start; a shard of
   * such systems begins and ends on units, and lay->xchunks counts them per
   * rank); 0 when this module's systems cannot span ranks (pair models). */
  int64_t (*sys_unit)(sdk_bctx *ctx, sdk_module *mod, int64_t particles);
  /* Histogram of (x_var mod period), in [0, period), over the paths held of
   * each grid point: counts[j * bins + b]; NaN goes nowhere. */
  sdk_err (*histogram_mod)(sdk_ensemble *ens, int var, int64_t bins, double period,
                           uint64_t *counts, sdk_errbuf *eb);
  /* User observables (modules of a model with them, codegen/observe_paths.c):
   * evaluate its nobs expressions for every path held at the state after
   * `step` steps and reduce them per unit exactly as `moments` reduces
   * variables: out[k * nobs + j], nonfinite likewise (may be NULL).  With
   * state_nonfinite, also the counts `nonfinite` (below) gives for the
   * variables, from the same pass where the backend can. */
  sdk_err (*observe)(sdk_ensemble *ens, int64_t step, int nobs, sdk_moments *out,
                     int64_t *nonfinite, int64_t *state_nonfinite, sdk_errbuf *eb);
  /* The same evaluation without the reduction: the values stay on the
   * backend, where minmax and histogram read them as variables nvars + j
   * (histograms of user observables) until the next evaluation. */
  sdk_err (*eval_observe)(sdk_ensemble *ens, int64_t step, int nobs, sdk_errbuf *eb);
  /* The number of paths whose variable v is NaN/Inf per grid point held:
   * count[j * nvars + v] (j = g - the first grid point held); the counts
   * `moments` gives, without the moments (the check between samples). */
  sdk_err (*nonfinite)(sdk_ensemble *ens, int64_t *count, sdk_errbuf *eb);
  /* Optional: duration of the last advance by device timers (ms), < 0 if unknown. */
  double (*last_advance_ms)(sdk_ensemble *ens);
} sdk_backend;

extern const sdk_backend sdk_backend_cpu;
extern const sdk_backend sdk_backend_cuda;

/* Number of paths allocated: ngrid*ppg rounded up to a whole number of
 * blocks of both backends. */
int64_t sdk_padded_paths(int64_t total);

/* The CUDA driver, NVRTC (searched as o->env says; o may be NULL: its
 * version is 0.0 when not found) and the number of devices; SDK_ERR_BACKEND
 * without a driver or a device. */
typedef struct sdk_cuda_sysinfo {
  int driver; /* 12040: 12.4 */
  int nvrtc_major, nvrtc_minor;
  char nvrtc_path[512];
  int ndevices;
} sdk_cuda_sysinfo;
sdk_err sdk_cuda_query(const sdk_backend_opts *o, sdk_cuda_sysinfo *info, sdk_errbuf *eb);
/* Device i: name, compute capability, multiprocessors, memory (bytes). */
typedef struct sdk_cuda_devinfo {
  char name[256];
  int major, minor, sms;
  double memory;
} sdk_cuda_devinfo;
sdk_err sdk_cuda_query_device(int i, sdk_cuda_devinfo *d, sdk_errbuf *eb);

/* Reduction chunks per grid point: ceil(ppg / SDK_RED_CHUNK). */
int64_t sdk_chunks_per_grid(int64_t ppg);
/* What a layout holds: the chunk ids [c0, c1) and the grid points [g0, g1). */
typedef struct sdk_span {
  int64_t c0, c1, g0, g1, nch;
} sdk_span;
sdk_span sdk_layout_span(const sdk_layout *lay);
/* A fold unit of a span: the chunks [k, k + n) of those held (k counted
 * from span.c0), all of grid point g and of its run `run` of SDK_RED_FOLD
 * chunks (chunks run * SDK_RED_FOLD ... of the grid point). */
typedef struct sdk_unit {
  int64_t k, n, g, run;
} sdk_unit;
/* The fold units of a span in chunk order (into u when not NULL); returns
 * their number (at most c1 - c0). */
int64_t sdk_span_units(const sdk_span *sp, sdk_unit *u);
/* Merge per-chunk partials (chunk[c * nvr + v], nfc likewise, may be NULL)
 * into per-unit ones (out, nfo), each unit's chunks in order. */
void sdk_fold_units(const sdk_unit *u, int64_t nu, int nvr, const sdk_moments *chunk,
                    const int64_t *nfc, sdk_moments *out, int64_t *nfo);
/* Paths held: lay->npaths, or every path from path0 on. */
int64_t sdk_layout_npaths(const sdk_layout *lay);
/* Systems spanning MPI ranks (lay->xchunks): the bytes each rank's units
 * take at `per` bytes a unit (bytes[r], ranks in order, for an in-place
 * allgatherv; malloc'ed, NULL when out of memory) and this rank's first
 * unit (*first). */
int64_t *sdk_layout_rank_bytes(const sdk_layout *lay, int64_t per, int64_t *first);
/* The paths of grid point g that a layout holds, as local indices [*i0, *i1). */
void sdk_layout_grid_paths(const sdk_layout *lay, int64_t g, int64_t *i0, int64_t *i1);

/* Combine moments (Chan et al. parallel variance). */
void sdk_moments_merge(sdk_moments *a, const sdk_moments *b);
/* The standard error of the mean of n values whose squared deviations from
 * their mean sum to m2, sqrt(m2 / (n - 1) / n): NaN for fewer than two (one
 * path has no spread, and an error of 0 would look exact).  Every
 * observable's error over paths is this one. */
double sdk_se_mean(double n, double m2);

#endif
