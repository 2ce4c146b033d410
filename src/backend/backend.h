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
#include "core/error.h"

typedef struct sdk_bctx sdk_bctx;         /* an opened backend (device, threads) */
typedef struct sdk_module sdk_module;     /* a compiled kernel module */
typedef struct sdk_ensemble sdk_ensemble; /* state of all paths on the backend */

typedef struct sdk_backend_opts {
  int threads;       /* CPU threads, 0 = all */
  int device;        /* GPU ordinal */
  int fast_math;     /* allow fast-math code generation */
  int verbose;       /* print compiler commands */
  const char *arch;  /* CUDA: compile for this arch (e.g. sm_90) without a GPU */
  int64_t cache_max; /* kernel cache cap in bytes: 0 = SDK_CACHE_MAX_DEFAULT, < 0 = none */
} sdk_backend_opts;

typedef struct sdk_layout {
  int nvars;
  int single; /* float state */
  int64_t ngrid;
  int64_t ppg;       /* paths per grid point */
  int64_t path0;     /* global index of the first path held here */
  int nsv;           /* per-grid-point values */
  const double *sv;  /* ngrid * nsv values (converted to the state type) */
  int64_t particles; /* > 0: module of a system driver (advance_sys), systems of this
                        many consecutive paths (particles); ppg is a multiple of it */
} sdk_layout;

/* Welford-style moments of one variable at one grid point. */
typedef struct sdk_moments {
  double n, mean, m2; /* m2: sum of squared deviations */
} sdk_moments;

typedef struct sdk_backend {
  const char *name;
  /* Open/close the backend (select device, load driver). */
  sdk_err (*open)(const sdk_backend_opts *o, sdk_bctx **ctx, sdk_errbuf *eb);
  void (*close)(sdk_bctx **ctx);
  /* Human-readable description of what runs (device name, threads). */
  void (*describe)(sdk_bctx *ctx, char *buf, size_t n);
  /* Compile generated source (cached by hash).  `report` (optional)
   * receives a line about resources (registers, spills). */
  sdk_err (*compile)(sdk_bctx *ctx, const char *src, const char *model_path, sdk_module **mod,
                     char *report, size_t nreport, sdk_errbuf *eb);
  void (*module_free)(sdk_module **mod);
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
  /* Moments of every variable: out[g * nvars + v]; also counts paths with a
   * non-finite variable per grid point into nonfinite[g] (may be NULL). */
  sdk_err (*moments)(sdk_ensemble *ens, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb);
  /* Moments of (x_var - mark) * scale per grid point. */
  sdk_err (*displacement)(sdk_ensemble *ens, int var, double scale, sdk_moments *out,
                          sdk_errbuf *eb);
  /* Min and max of variable var per grid point. */
  sdk_err (*minmax)(sdk_ensemble *ens, int var, double *lo, double *hi, sdk_errbuf *eb);
  /* Histogram of variable var per grid point: counts[g * bins + b], with
   * per-grid-point ranges lo[g]..hi[g]; paths outside go to under/over. */
  sdk_err (*histogram)(sdk_ensemble *ens, int var, int64_t bins, const double *lo, const double *hi,
                       uint64_t *counts, uint64_t *under, uint64_t *over, sdk_errbuf *eb);
  /* Copy the state of paths [first, first+n) out as doubles: out[v * n + i]. */
  sdk_err (*read_state)(sdk_ensemble *ens, int64_t first, int64_t n, double *out, sdk_errbuf *eb);
  /* Copy one row of the state between the backend and doubles: row v < nvars
   * is variable v, row nvars the drift mark (allocated on first write), row
   * nvars + 1 + k the carried row k of the compensated update (k <
   * carried_rows; an error in others); paths
   * [first, first+n).  write = 0 reads into buf, 1 writes buf (checkpoints). */
  sdk_err (*rows)(sdk_ensemble *ens, int row, int64_t first, int64_t n, double *buf, int write,
                  sdk_errbuf *eb);
  /* Number of carried rows of the compensated update (rows nvars + 1 ...):
   * 0 without it, nvars for a Kahan sum every step, 2 nvars when the module
   * also keeps the high part (codegen.h: deferred renormalisation). */
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
  /* Histogram of (x_var mod period), in [0, period), per grid point:
   * counts[g * bins + b]; NaN goes nowhere.  Integer counts (deterministic). */
  sdk_err (*histogram_mod)(sdk_ensemble *ens, int var, int64_t bins, double period,
                           uint64_t *counts, sdk_errbuf *eb);
  /* Optional: duration of the last advance by device timers (ms), < 0 if unknown. */
  double (*last_advance_ms)(sdk_ensemble *ens);
} sdk_backend;

extern const sdk_backend sdk_backend_cpu;
extern const sdk_backend sdk_backend_cuda;

/* NULL-terminated registry, and lookup by name. */
extern const sdk_backend *const sdk_backends[];
const sdk_backend *sdk_backend_find(const char *name);

/* Number of paths allocated: ngrid*ppg rounded up to a whole number of
 * blocks of both backends. */
int64_t sdk_padded_paths(int64_t total);

/* Cache directory for compiled modules ($SDK_CACHE_DIR, $XDG_CACHE_HOME/sdekit,
 * ~/.cache/sdekit, else private to this process), created if needed and
 * checked (backend/cache.h has the rules). */
sdk_err sdk_cache_dir(char *out, size_t n, sdk_errbuf *eb);

/* List CUDA devices (ordinal, name, compute capability, SMs, memory). */
sdk_err sdk_cuda_list_devices(FILE *out, int *count, sdk_errbuf *eb);

/* The paper's PROG1 kernel (xorshift, Box-Muller, SRK2, float time, 100 steps
 * per launch, fast math) on the opened CUDA device: median time in ms of
 * `steps` steps of `paths` paths over `repeats`, CUDA events. */
sdk_err sdk_cuda_bench_prog1(sdk_bctx *c, int64_t paths, int64_t steps, int repeats,
                             double *median_ms, double *checksum, sdk_errbuf *eb);

/* The paper's PROG3 (pairs = 0: mean-field sums through the host every step)
 * or PROG2 (pairs = 1: tiled all-pairs UpdateRHS + AdvanceSystem) for the
 * Kuramoto model (K = 4, T = 1, dt = 1/128, uniform initial phases), written
 * from its description: median time in ms of `steps` steps of one system of
 * `particles` over `repeats` (CUDA events), and the final order parameter. */
sdk_err sdk_cuda_bench_kuramoto_paper(sdk_bctx *c, int pairs, int64_t particles, int64_t steps,
                                      int repeats, double *median_ms, double *r_end,
                                      sdk_errbuf *eb);

/* Device memory bandwidth for the roofline of `sdekit bench`: a device-to-device
 * copy of `bytes` bytes, median of `repeats` (CUDA events); *GBps counts the
 * bytes read plus the bytes written. */
sdk_err sdk_cuda_bench_copy(sdk_bctx *c, size_t bytes, int repeats, double *GBps, sdk_errbuf *eb);

/* Combine moments (Chan et al. parallel variance). */
void sdk_moments_merge(sdk_moments *a, const sdk_moments *b);

#endif
