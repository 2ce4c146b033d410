/* sdekit: a run = model + settings -> results, on one backend.
 *
 * Time keeping (Januszewski & Kostur 2010, Sec. 6): time is never
 * accumulated as t += dt.  Kernels get the integer step index n; with a
 * periodic driving of period P and spp steps per period (dt = P / spp) they
 * use t = (n mod spp) * dt, otherwise t = n * dt.
 */
#ifndef SDK_RUN_H
#define SDK_RUN_H

#include <stdint.h>

#include "core/error.h"
#include "core/tuning.h"
#include "sim/results.h"

enum {
  SDK_OBS_DRIFT = 1,
  SDK_OBS_MOMENTS = 2,
  SDK_OBS_HIST = 4,
  SDK_OBS_DENSITY = 8,
  SDK_OBS_ORDER = 16
};

#define SDK_MAX_SAVE 1024

struct sdk_ckpt;

#define SDK_MAX_SET 64

/* Longest run: 2^53 steps, so that the time n * dt of every step is exact in a
 * double and n fits the kernels' 64-bit counters with room to spare. */
#define SDK_MAX_STEPS ((int64_t)1 << 53)
/* Most values one sampled observable may hold in memory (grid points x
 * samples x variables, x saved paths or x bins): 2^28 doubles, 2 GiB. */
#define SDK_MAX_SAMPLE_VALUES ((int64_t)1 << 28)

typedef struct sdk_run_config {
  const char *model; /* built-in name or path */
  int nset;
  const char *set_name[SDK_MAX_SET];
  double set_value[SDK_MAX_SET];
  int nscan;
  sdk_scan_axis scan[SDK_MAX_SCAN]; /* values: NULL until sdk_scan_fill (the run fills its copy) */
  int64_t paths;                    /* per grid point (systems, with particles > 1) */
  int64_t particles;                /* particles per system (--particles); 0: unset (1) */
  int64_t order_every;              /* --observe order: steps between samples; 0: sample_every */
  double dt;                        /* 0: unset */
  int64_t spp;                      /* 0: unset */
  double t_end;                     /* 0: unset */
  int64_t periods;                  /* 0: unset */
  double transient;                 /* -1: unset */
  int64_t transient_periods;        /* -1: unset */
  const char *scheme;
  uint64_t seed;
  const char *backend; /* cpu, cuda, auto */
  int single;
  int no_compensation; /* single precision: plain x += incr (codegen.h) */
  int threads;
  int device;
  int fast_math;
  int64_t cache_max; /* kernel cache cap, bytes (0: default, < 0: none) */
  sdk_tuning tuning; /* GPU tuning knobs (core/tuning.h; zero: the defaults) */
  unsigned observe;
  const char *drift_var; /* NULL: first variable */
  int64_t sample_every;  /* 0: default */
  int64_t bins;
  int nhist_range;
  char hist_range_var[8][64];
  double hist_range_lo[8], hist_range_hi[8];
  /* sampled every sample_every steps, with the moments: */
  int nsave; /* --save-paths: path indices within each grid point */
  int64_t save_index[SDK_MAX_SAVE];
  const char *density_var; /* --observe density: this variable (NULL: the first) */
  double coarse_width;     /* --coarse-grain: bin width (one potential period), 0: off */
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
  volatile int *stop; /* set asynchronously (signal): checkpoint and stop */
  /* a problem that does not stop the run (a checkpoint that could not be
   * written): reported once through this hook, if set */
  void (*warn)(void *user, const char *msg);
  void *warn_user;
  const struct sdk_ckpt *resume; /* continue from this checkpoint */
  /* optional progress hook: fraction done, steps per second so far */
  void (*progress)(void *user, double frac, double steps_per_s);
  void *progress_user;
} sdk_run_config;

/* Defaults for every field. */
void sdk_run_config_defaults(sdk_run_config *c);

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

/* Generate the kernel source a run would use (for sdekit codegen/compile). */
sdk_err sdk_run_codegen(const sdk_run_config *c, int cuda, char **src, sdk_errbuf *eb);

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
