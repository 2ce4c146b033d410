/* sdekit.h: the public C interface of sdekit.
 *
 * sdekit integrates large ensembles of stochastic differential equations on
 * CPUs and NVIDIA GPUs (Januszewski & Kostur, Comput. Phys. Commun. 181
 * (2010) 183).  A model file names the variables, parameters, drift and
 * noise; sdekit generates the kernel, compiles it at run time (the system C
 * compiler, or NVRTC for CUDA), integrates the paths for every point of a
 * parameter scan, reduces the observables on the device and returns them as
 * named arrays.  The `sdekit` command-line tool is written on this interface
 * alone, so everything it does a program can do.
 *
 *   #include <sdekit.h>
 *
 *   sdekit_config *c = NULL;
 *   sdekit_result *r = NULL;
 *   sdekit_error err;
 *   sdekit_config_create(&c, &err);
 *   sdekit_config_set_model(c, "ou", &err);
 *   sdekit_config_add_scan(c, "k", 0.5, 2.0, 4, 0, &err);
 *   sdekit_config_set_paths(c, 100000, &err);
 *   sdekit_config_set_observe(c, "moments", &err);
 *   if (sdekit_run(c, &r, &err) != SDEKIT_OK) fprintf(stderr, "%s\n", err.message);
 *   sdekit_dataset var;
 *   sdekit_result_dataset(r, "moments/var_x", &var, &err);   // [4, samples]
 *   sdekit_result_destroy(&r);
 *   sdekit_config_destroy(&c);
 *
 * Conventions.
 * - Every fallible function returns an sdekit_status and, when err is not
 *   NULL, fills *err with the message the CLI would print (one line).
 * - Objects are opaque: x_create(&x) / x_destroy(&x); destroy accepts NULL
 *   and a pointer to NULL, and sets the pointer to NULL.
 * - There is no global state: distinct configurations and runs may be used
 *   from distinct threads at once.  One object is not to be used from two
 *   threads at once.  (HDF5 is serialised inside the library.)
 * - Strings returned by the library belong to the object they came from and
 *   live as long as it; strings and arrays passed in are copied.
 * - The library never reads the environment and never prints: the
 *   environment comes in through sdekit_config_set_environment, messages go
 *   out through the log callback.
 * - Only the symbols declared here are exported from libsdekit.
 *
 * Layout of results (the HDF5 file the CLI writes holds exactly these
 * datasets and attributes): root attributes describe the run (model_name,
 * model_text, scheme, precision, backend, seed, paths, nsteps, var_names,
 * param_names, param_values, ...); "scan/<param>" holds the values of each
 * scan axis and the root's "scan" group attribute "axes" their order;
 * "scan/dt" the time step per grid point; every observable is a group of
 * datasets ("drift/value", "drift/error", "moments/mean_x", "density/x/P").
 * A dataset's first grid_rank dimensions are the scan axes (axis 0
 * slowest); its sample_axis, if any, runs over the sample times given by the
 * observable's "t" dataset.  docs/API.md lists every dataset.
 */
#ifndef SDEKIT_H
#define SDEKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SDEKIT_BUILDING) && defined(__GNUC__)
#define SDEKIT_API __attribute__((visibility("default")))
#else
#define SDEKIT_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                   */

#define SDEKIT_VERSION_MAJOR 0
#define SDEKIT_VERSION_MINOR 2
#define SDEKIT_VERSION_PATCH 0
#define SDEKIT_VERSION_STRING "0.2.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH */
#define SDEKIT_VERSION_NUMBER                                                                      \
  (SDEKIT_VERSION_MAJOR * 10000 + SDEKIT_VERSION_MINOR * 100 + SDEKIT_VERSION_PATCH)

/* The version of the library linked at run time (compare with the macros to
 * catch a header/library mismatch). */
SDEKIT_API const char *sdekit_version(void);
SDEKIT_API int sdekit_version_number(void);

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

typedef enum sdekit_status {
  SDEKIT_OK = 0,
  SDEKIT_ERR_USAGE = 1,     /* a bad option, value or argument (CLI exit status 2) */
  SDEKIT_ERR_MODEL = 2,     /* a malformed or inconsistent model (exit 2) */
  SDEKIT_ERR_COMPILE = 3,   /* the generated kernel did not compile (exit 2) */
  SDEKIT_ERR_IO = 4,        /* a file could not be read or written (exit 1) */
  SDEKIT_ERR_NOMEM = 5,     /* out of memory (exit 1) */
  SDEKIT_ERR_BACKEND = 6,   /* the backend is unavailable or failed (exit 1) */
  SDEKIT_ERR_NONFINITE = 7, /* paths became NaN or infinite (exit 1) */
  SDEKIT_ERR_FORMAT = 8,    /* a corrupt or incompatible file (exit 1) */
  SDEKIT_ERR_CANCELLED = 9, /* stopped by the cancel callback (exit 128 + signal) */
  SDEKIT_ERR_INTERNAL = 10  /* a bug in sdekit (exit 1) */
} sdekit_status;

typedef struct sdekit_error {
  sdekit_status status;
  /* One line, as the CLI prints it after "sdekit: error: "; "" when OK.
   * Text from files (names, paths) is included as it is: escape it before
   * showing it on a terminal. */
  char message[1024];
  /* SDEKIT_ERR_MODEL: the model file the problem is in (its path, or the
   * label given to sdekit_model_from_string) and the line, 0 when the
   * problem is not on one line.  "" and 0 otherwise. */
  char file[1024];
  int line;
  /* where in sdekit's source it was raised (for bug reports) */
  const char *source_file;
  int source_line;
  /* a run over MPI ranks (sdekit_config_set_comm): 1 when this rank failed
   * alone while the others may wait for it (abort them all:
   * sdekit_comm_abort); 0 when every rank returned this error together */
  int alone;
} sdekit_error;

/* A short name of the status ("model error", "cancelled", ...). */
SDEKIT_API const char *sdekit_status_name(sdekit_status s);
/* The exit status the CLI uses for it (0, 1 or 2; cancellation: 1). */
SDEKIT_API int sdekit_status_exit_code(sdekit_status s);
/* Free memory the library handed over (strings and arrays said to be freed
 * with it). */
SDEKIT_API void sdekit_free(void *p);

/* ------------------------------------------------------------------------ */
/* Models                                                                    */

typedef struct sdekit_model sdekit_model;

/* A model by name or path.  A path contains a '/' or ends in ".sde"; a bare
 * name is looked up as NAME.sde in the ':'-separated directories of
 * search_path (may be NULL), then among the built-in models (installed with
 * the library, found relative to it).  Never in the current directory. */
SDEKIT_API sdekit_status sdekit_model_load(const char *name_or_path, const char *search_path,
                                           sdekit_model **out, sdekit_error *err);
/* A model from its text; label names it in messages (NULL: "<string>"). */
SDEKIT_API sdekit_status sdekit_model_from_string(const char *text, const char *label,
                                                  sdekit_model **out, sdekit_error *err);
SDEKIT_API void sdekit_model_destroy(sdekit_model **m);

SDEKIT_API const char *sdekit_model_name(const sdekit_model *m);
SDEKIT_API const char *sdekit_model_description(const sdekit_model *m); /* "" if none */
/* The file read, as a resolved absolute path (a run of the model records
 * it), or the label of sdekit_model_from_string. */
SDEKIT_API const char *sdekit_model_path(const sdekit_model *m);
SDEKIT_API const char *sdekit_model_text(const sdekit_model *m);
SDEKIT_API int sdekit_model_nvars(const sdekit_model *m);
SDEKIT_API const char *sdekit_model_var(const sdekit_model *m, int i);
SDEKIT_API int sdekit_model_nparams(const sdekit_model *m);
SDEKIT_API const char *sdekit_model_param(const sdekit_model *m, int i);
/* the parameter's value in the model file (after [params] expressions) */
SDEKIT_API double sdekit_model_param_value(const sdekit_model *m, int i);
/* Whether the model declares a period of its driving ([model] period). */
SDEKIT_API int sdekit_model_has_period(const sdekit_model *m);
/* The first variable declared periodic ([model] periodic = x : L), or -1. */
SDEKIT_API int sdekit_model_periodic_var(const sdekit_model *m);
/* "paths" (independent paths), "meanfield" or "pair" (systems of particles). */
SDEKIT_API const char *sdekit_model_kind(const sdekit_model *m);

/* The built-in and search-path models: the directories searched, in order
 * (those of the search path, then the built-in one), and the .sde files
 * found there (sorted by name within a directory).  A bare model name
 * loads the file of the first directory that has NAME.sde: a file of a
 * later directory with the same name is shadowed. */
typedef struct sdekit_catalog sdekit_catalog;
SDEKIT_API sdekit_status sdekit_catalog_create(const char *search_path, sdekit_catalog **out,
                                               sdekit_error *err);
SDEKIT_API void sdekit_catalog_destroy(sdekit_catalog **c);
SDEKIT_API int sdekit_catalog_ndirs(const sdekit_catalog *c);
SDEKIT_API const char *sdekit_catalog_dir(const sdekit_catalog *c, int i);
SDEKIT_API int sdekit_catalog_count(const sdekit_catalog *c);
SDEKIT_API const char *sdekit_catalog_file(const sdekit_catalog *c, int i); /* "ou.sde" */
SDEKIT_API const char *sdekit_catalog_path(const sdekit_catalog *c, int i); /* full path */
/* 1 when directory i is where the built-in models are, 0 for one of the search path. */
SDEKIT_API int sdekit_catalog_dir_builtin(const sdekit_catalog *c, int i);
/* The directory (index for sdekit_catalog_dir) of file i; -1 for no such file. */
SDEKIT_API int sdekit_catalog_entry_dir(const sdekit_catalog *c, int i);

/* ------------------------------------------------------------------------ */
/* Run configuration                                                         */

/* Every option of `sdekit run` is a setting of this object.  The defaults
 * are the CLI's.  Values are checked as they are set (a bad one is
 * SDEKIT_ERR_USAGE naming the option); what depends on the model (names of
 * parameters and variables, the scheme's fitness) is checked by sdekit_run. */
typedef struct sdekit_config sdekit_config;

SDEKIT_API sdekit_status sdekit_config_create(sdekit_config **out, sdekit_error *err);
SDEKIT_API void sdekit_config_destroy(sdekit_config **c);

/* The model: by name or path (looked up when the run starts, through the
 * search path), from text, or from a loaded model (its text is copied). */
SDEKIT_API sdekit_status sdekit_config_set_model(sdekit_config *c, const char *name_or_path,
                                                 sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_model_text(sdekit_config *c, const char *text,
                                                      const char *label, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_model_object(sdekit_config *c, const sdekit_model *m,
                                                        sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_model_search_path(sdekit_config *c, const char *path,
                                                             sdekit_error *err);

/* Parameters: --set NAME=VALUE; --scan NAME=START:STOP:N[:log] (N values,
 * rounded to 15 significant digits, the end point exact; log: geometric);
 * --scan NAME=V1,V2,... (the values as given).  Each --scan is an axis of
 * the grid (row-major, the first axis slowest), at most SDEKIT_MAX_SCAN of
 * them and SDK_MAX_GRID (2^27) grid points; a parameter both set and scanned
 * is an error.  Zipped parameters move together along one axis, with the
 * same number of points: --scan A,B=RANGE_A,RANGE_B, --scan +B=... (B moves
 * with the --scan before it), --scan-file TABLE (a header of names, a row
 * per grid point) or sdekit_config_add_scan_table (names[k] takes
 * values[k][0..n-1]; nnames >= 1). */
#define SDEKIT_MAX_SCAN 5
SDEKIT_API sdekit_status sdekit_config_set_param(sdekit_config *c, const char *name, double value,
                                                 sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_add_scan(sdekit_config *c, const char *name, double start,
                                                double stop, int64_t n, int log, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_add_scan_values(sdekit_config *c, const char *name,
                                                       const double *values, int64_t n,
                                                       sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_add_scan_table(sdekit_config *c, int nnames,
                                                      const char *const *names,
                                                      const double *const *values, int64_t n,
                                                      sdekit_error *err);

/* The ensemble and time (0 or, for the transients, -1: unset, the default
 * applies): --paths, --particles, --dt, --spp, --t-end, --periods,
 * --transient, --transient-periods. */
SDEKIT_API sdekit_status sdekit_config_set_paths(sdekit_config *c, int64_t n, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_particles(sdekit_config *c, int64_t n,
                                                     sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_dt(sdekit_config *c, double dt, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_spp(sdekit_config *c, int64_t n, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_t_end(sdekit_config *c, double t, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_periods(sdekit_config *c, int64_t n, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_transient(sdekit_config *c, double t, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_transient_periods(sdekit_config *c, int64_t n,
                                                             sdekit_error *err);

/* Where and how: --scheme (sdekit_registry "scheme"), --seed, --backend
 * (sdekit_registry "backend": cpu, cuda; or auto), --precision (single, double), --threads (0: all
 * cores), --device, --no-fast-math (on = 0), --no-compensation (on = 0). */
SDEKIT_API sdekit_status sdekit_config_set_scheme(sdekit_config *c, const char *name,
                                                  sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_seed(sdekit_config *c, uint64_t seed, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_backend(sdekit_config *c, const char *name,
                                                   sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_precision(sdekit_config *c, const char *name,
                                                     sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_threads(sdekit_config *c, int n, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_device(sdekit_config *c, int ordinal, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_fast_math(sdekit_config *c, int on, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_compensation(sdekit_config *c, int on,
                                                        sdekit_error *err);

/* Observables: --observe LIST (comma-separated names of sdekit_registry
 * "observable"), --drift VAR, --sample-every N, --bins N, --hist-range
 * VAR=LO:HI (repeatable), --save-paths I,J,... (path indices per grid
 * point), --density-var VAR, --coarse-grain[=WIDTH] (width > 0, or < 0 for
 * the period the model declares for the variable; 0: off). */
SDEKIT_API sdekit_status sdekit_config_set_observe(sdekit_config *c, const char *list,
                                                   sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_drift_var(sdekit_config *c, const char *var,
                                                     sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_sample_every(sdekit_config *c, int64_t n,
                                                        sdekit_error *err);
/* --sample-times: the observables sample at exactly these n times (increasing,
 * >= 0, each a whole number of steps: README "Bringing your own data"), given
 * as an array; n = 0: unset (every --sample-every steps).  lin:A:B:N and
 * log:A:B:N[:round]: sdekit_config_option(c, "sample-times", "log:0.01:100:41"). */
SDEKIT_API sdekit_status sdekit_config_set_sample_times(sdekit_config *c, const double *times,
                                                        int64_t n, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_bins(sdekit_config *c, int64_t n, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_add_hist_range(sdekit_config *c, const char *var, double lo,
                                                      double hi, sdekit_error *err);
/* --observe-expr NAME=EXPR (repeatable): a user observable, as a model's
 * [observe] NAME = EXPR (EXPR in the variables, parameters and t, the
 * grammar of [drift]); its mean and standard error over the paths at every
 * sample time go to expr/mean_NAME and expr/err_NAME (observable "expr",
 * switched on by any).  The name and the expression are checked against
 * the model when the run starts. */
SDEKIT_API sdekit_status sdekit_config_add_observe_expr(sdekit_config *c, const char *name,
                                                        const char *expr, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_save_paths(sdekit_config *c, const int64_t *index, int n,
                                                      sdekit_error *err);
/* Values per path by name (issue 28): which = "init" (the initial state of
 * variable `name`) or "path_params" (the value of parameter `name`), n
 * doubles: one per path (the same at every grid point) or one per grid point
 * and path (grid point slowest).  The array is the caller's: it is NOT
 * copied and must stay valid until the last run of c has returned.  Every
 * name needs the same n; NaN and Inf are refused by the run, which reads
 * the values once, as it uploads them (in single precision also values
 * beyond float's range, which would be Inf there); the number of paths is
 * n unless set (then a run refuses a mismatch).  name NULL forgets every
 * array of `which`.  The same rules as --init-from and --path-params'
 * files. */
SDEKIT_API sdekit_status sdekit_config_path_values(sdekit_config *c, const char *which,
                                                   const char *name, const double *values,
                                                   int64_t n, sdekit_error *err);
/* The shape of the arrays of `which` (sdekit_config_path_values): ngrid
 * grid points of n / ngrid paths each, as a 2-D [grid points][paths] array
 * is; a run whose grid or paths per grid point differ refuses them (a flat
 * count that fits another shape is not read as that shape).  0: not said (a
 * flat array: one value per path, or per grid point and path). */
SDEKIT_API sdekit_status sdekit_config_path_values_grid(sdekit_config *c, const char *which,
                                                        int64_t ngrid, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_density_var(sdekit_config *c, const char *var,
                                                       sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_coarse_grain(sdekit_config *c, double width,
                                                        sdekit_error *err);

/* Long runs: --checkpoint FILE, --checkpoint-every S (< 0: the default, 600
 * s; 0: after every chunk of steps).  The state is saved atomically every
 * so often, when the run ends and when it is cancelled. */
SDEKIT_API sdekit_status sdekit_config_set_checkpoint(sdekit_config *c, const char *file,
                                                      double every_s, sdekit_error *err);

/* Output: -o FILE (repeatable, at most four).  The run itself writes no
 * result file: the outputs are kept with the configuration (a checkpoint
 * stores them) for sdekit_result_write; sdekit_config_check_outputs checks
 * them before a long run. */
SDEKIT_API sdekit_status sdekit_config_add_output(sdekit_config *c, const char *path,
                                                  sdekit_error *err);
SDEKIT_API void sdekit_config_clear_outputs(sdekit_config *c);
SDEKIT_API int sdekit_config_noutputs(const sdekit_config *c);
SDEKIT_API const char *sdekit_config_output(const sdekit_config *c, int i);
/* --quiet, --verbose: kept with the configuration; verbose lowers the log
 * level to SDEKIT_LOG_DEBUG. */
SDEKIT_API sdekit_status sdekit_config_set_quiet(sdekit_config *c, int on, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_config_set_verbose(sdekit_config *c, int on, sdekit_error *err);
SDEKIT_API int sdekit_config_quiet(const sdekit_config *c);
SDEKIT_API int sdekit_config_verbose(const sdekit_config *c);

/* Any option by its long name without the dashes ("paths", "scan", "set",
 * "no-fast-math", "o" or "output"), its value as typed on the command line
 * (NULL for an option without one).  The same strict parser as the CLI. */
SDEKIT_API sdekit_status sdekit_config_option(sdekit_config *c, const char *name, const char *value,
                                              sdekit_error *err);
/* How option `name` takes a value: 0 never, 1 always, 2 optionally
 * (--name=VALUE only); -1: no such option. */
SDEKIT_API int sdekit_config_option_arity(const char *name);
/* The name of option i (0, 1, ...: the order of `sdekit run --help`'s table),
 * NULL past the last: what a binding offers for a mistyped option. */
SDEKIT_API const char *sdekit_config_option_name(int i);

/* A command line of `sdekit run` (without "sdekit run": argv[0] is the
 * first argument): "--name VALUE", "--name=VALUE", "-o FILE", "-oFILE",
 * operands and "--" as getopt does.  Options this library does not know
 * and operands go to `other` when it is not NULL (name without dashes, or
 * NULL for an operand; value or NULL); it returns 0 to accept, 1 to accept
 * and consume the next argument as the value, -1 to reject (an unknown
 * option: SDEKIT_ERR_USAGE).  Without `other`, the one operand is the
 * model.  The arguments are also recorded as the command line. */
typedef int (*sdekit_arg_fn)(void *user, const char *name, const char *value);
SDEKIT_API sdekit_status sdekit_config_args(sdekit_config *c, int argc, const char *const *argv,
                                            sdekit_arg_fn other, void *user, sdekit_error *err);
/* The command line recorded in results (informative; the CLI passes what
 * was typed less the options that cannot change a result). */
SDEKIT_API sdekit_status sdekit_config_set_command_line(sdekit_config *c, const char *text,
                                                        sdekit_error *err);

/* The help text of `sdekit run`'s options, with the registry's schemes and
 * observables; free with sdekit_free. */
SDEKIT_API char *sdekit_config_help(void);

/* The environment, as "NAME=VALUE" strings ending in NULL (environ): the
 * kernel cache directory and size cap (SDEKIT_CACHE_DIR, XDG_CACHE_HOME,
 * HOME, SDEKIT_CACHE_MAX), the C compiler (SDEKIT_CC, CC, SDEKIT_CFLAGS,
 * CFLAGS, PATH), the CUDA toolkit (CUDA_HOME, CUDA_PATH), TMPDIR, the model
 * search path (SDEKIT_MODEL_PATH) and the GPU tuning knobs (SDEKIT_SYS_*,
 * SDEKIT_RUN_MINB).  A malformed value is SDEKIT_ERR_USAGE naming the
 * variable.  Without this call none of them applies. */
SDEKIT_API sdekit_status sdekit_config_set_environment(sdekit_config *c, const char *const *envp,
                                                       sdekit_error *err);
/* The kernel cache: a directory (NULL: a private one per run, removed at
 * its end) and its size cap in bytes (0: the default 512 MiB; < 0: none). */
SDEKIT_API sdekit_status sdekit_config_set_cache(sdekit_config *c, const char *dir,
                                                 int64_t max_bytes, sdekit_error *err);
/* The kernel cache directory in use ("" when private). */
SDEKIT_API const char *sdekit_config_cache_dir(const sdekit_config *c);
/* The note on the environment's deprecated names (SDK_CACHE_DIR and the
 * like, taken for SDEKIT_... until the next release), "" when none: a run
 * logs it when it starts; a caller that does not run says it itself. */
SDEKIT_API const char *sdekit_config_environment_note(const sdekit_config *c);

/* Callbacks.  They are called from the thread that called sdekit_run.
 * progress: fraction done (0..1) and path-steps per second so far, after
 * every chunk of steps (a chunk is about a quarter of a second of work, up to
 * 1 s where 16 steps take longer, or one step where a step takes longer than
 * that: docs/API.md).  A run to a requested error (target-se, target-rse,
 * mlmc, target-error) reports the fraction of its whole work as its driver
 * estimates it after each check (nothing before the first), below 1 until
 * it ends with 1; a later check that finds more work makes it go back.
 * cancel: polled after every chunk, and while the kernel compiles (which it
 * then stops); nonzero stops the run: a checkpoint is
 * written when one is configured, and sdekit_run returns
 * SDEKIT_ERR_CANCELLED.  It must be quick; it may be called from a signal
 * context's flag (it can read a volatile sig_atomic_t).
 * log: messages that are not errors (level SDEKIT_LOG_*), whole lines with
 * their newline, as they are to be shown; below min_level they are not
 * produced. */
typedef void (*sdekit_progress_fn)(void *user, double fraction, double steps_per_s);
typedef int (*sdekit_cancel_fn)(void *user);
typedef enum sdekit_log_level {
  SDEKIT_LOG_DEBUG = 0, /* details (compiler commands, cache use, kernel choices) */
  SDEKIT_LOG_INFO = 1,
  SDEKIT_LOG_WARN = 2 /* something went wrong but the run goes on */
} sdekit_log_level;
typedef void (*sdekit_log_fn)(void *user, sdekit_log_level level, const char *message);
SDEKIT_API void sdekit_config_set_progress(sdekit_config *c, sdekit_progress_fn fn, void *user);
SDEKIT_API void sdekit_config_set_cancel(sdekit_config *c, sdekit_cancel_fn fn, void *user);
SDEKIT_API void sdekit_config_set_log(sdekit_config *c, sdekit_log_fn fn, void *user,
                                      sdekit_log_level min_level);

/* Check what a long run would only find out at its end: every output's
 * name and directory (and, with no_replace, that none of the files it
 * stands for exists), the checkpoint's directory, options that need each
 * other; and, unless option "force" (--force) is set, that no output and
 * not the checkpoint is the model file (compared by identity) and that the
 * checkpoint file does not exist (the progress of a run: only the run
 * resumed from it may replace it).  sdekit_run does not write outputs, so
 * it checks only the checkpoint's part.  A TSV output among those checked
 * has its header checked by sdekit_run before the first step (two columns
 * of one name are refused), even where the outputs are cleared before the
 * run and written after it. */
SDEKIT_API sdekit_status sdekit_config_check_outputs(sdekit_config *c, int no_replace,
                                                     sdekit_error *err);

/* The observables the configuration computes, in the order of the results:
 * count, and name i (valid until the configuration changes). */
SDEKIT_API int sdekit_config_nobservables(const sdekit_config *c);
SDEKIT_API const char *sdekit_config_observable(const sdekit_config *c, int i);

/* ------------------------------------------------------------------------ */
/* Checkpoints                                                               */

/* Rebuild the configuration of the run that wrote a checkpoint, to continue
 * it with sdekit_run (the results are bitwise those of the run done in one
 * go).  The checkpoint is data: its model text passes the model parser like
 * a model file, it is refused when another version or build of sdekit
 * wrote it, and when the model file it names has changed since (unless
 * SDEKIT_RESUME_STORED_MODEL); its outputs are moved into the checkpoint's
 * own directory under their base names (replace them with
 * sdekit_config_clear_outputs / add_output), and the run checkpoints to the
 * same file.  sdekit_config_set_periods / set_t_end on the result replace
 * the run's length (to extend a finished run); threads, device, ranks,
 * outputs, messages and checkpoint options may change too, any other option
 * (a seed, a parameter, fast math) is refused with SDEKIT_ERR_USAGE. */
enum { SDEKIT_RESUME_STORED_MODEL = 1 };
SDEKIT_API sdekit_status sdekit_config_from_checkpoint(const char *path, unsigned flags,
                                                       sdekit_config **out, sdekit_error *err);

/* ------------------------------------------------------------------------ */
/* MPI: one run over several processes (docs/SCALING.md)                     */

/* Launched as `mpirun -np R` or `srun`, every rank makes the same
 * configuration, sets the world communicator on it and calls sdekit_run:
 * each rank integrates a share of the paths (on its own GPU: its rank on
 * the node modulo the node's GPUs, or from --device A,B,...), and every
 * rank returns bitwise the results of one process, for any R.  Write the
 * outputs from rank 0 only.  A failing rank with err.alone set failed by
 * itself: call sdekit_comm_abort so the others stop waiting for it.
 * Available when sdekit was built with Open MPI (sdekit_mpi_available). */
typedef struct sdekit_comm sdekit_comm;
SDEKIT_API int sdekit_mpi_available(void);
/* The ranks of MPI_COMM_WORLD; initialises MPI when nobody has (mpi4py
 * may have: that is fine), and then finalises it in sdekit_comm_destroy. */
SDEKIT_API sdekit_status sdekit_comm_world(sdekit_comm **out, sdekit_error *err);
SDEKIT_API void sdekit_comm_destroy(sdekit_comm **c);
SDEKIT_API int sdekit_comm_rank(const sdekit_comm *c);
SDEKIT_API int sdekit_comm_size(const sdekit_comm *c);
/* The rank among the ranks of this node. */
SDEKIT_API int sdekit_comm_local_rank(const sdekit_comm *c);
/* Collective: 1 on every rank when `flag` is non-zero on any. */
SDEKIT_API int sdekit_comm_any(const sdekit_comm *c, int flag);
/* Terminate every rank of the run with this exit status (MPI_Abort). */
SDEKIT_API void sdekit_comm_abort(const sdekit_comm *c, int code);
/* Run the configuration over these ranks (NULL: this process alone); the
 * communicator must outlive the runs. */
SDEKIT_API sdekit_status sdekit_config_set_comm(sdekit_config *c, const sdekit_comm *comm,
                                                sdekit_error *err);

/* ------------------------------------------------------------------------ */
/* Sessions: many runs in one process                                        */

/* A session keeps open, between the runs given it, what each run would
 * otherwise make and destroy: on a GPU the device's context (a tenth of a
 * second to a second per run, docs/BENCHMARKS.md), its loaded kernels, and
 * the device memory of the runs' paths, kept on the device between runs for
 * a later run of the same sizes (up to 16 blocks; docs/API.md).  The results
 * do not depend on it.  Give it to the configurations of the runs (sdekit_config_set_session;
 * the session must outlive them) and destroy it after the last run; runs on
 * several threads may share one.  Python keeps one per process. */
typedef struct sdekit_session sdekit_session;
SDEKIT_API sdekit_status sdekit_session_create(sdekit_session **out, sdekit_error *err);
SDEKIT_API void sdekit_session_destroy(sdekit_session **s);
/* Run the configuration in this session (NULL: none). */
SDEKIT_API sdekit_status sdekit_config_set_session(sdekit_config *c, sdekit_session *s,
                                                   sdekit_error *err);
/* The number of device contexts the session holds (0 for runs on the CPU). */
SDEKIT_API int sdekit_session_held(const sdekit_session *s);

/* ------------------------------------------------------------------------ */
/* Running                                                                   */

typedef struct sdekit_result sdekit_result;

/* Run the configuration.  SDEKIT_OK with the results in *out (destroy with
 * sdekit_result_destroy); grid points whose paths became NaN or infinite
 * do not fail the run: their statistics are NaN and sdekit_result_problem
 * says which.  On error *out is NULL.  With a TSV output (an output that is
 * not HDF5), a TSV header that would name two columns alike is refused
 * before the run (SDEKIT_ERR_USAGE; docs/API.md, "Names the results
 * make"). */
SDEKIT_API sdekit_status sdekit_run(const sdekit_config *c, sdekit_result **out, sdekit_error *err);

/* The generated kernel source of a run ("cpu" or "cuda"); free with
 * sdekit_free. */
SDEKIT_API sdekit_status sdekit_codegen(const sdekit_config *c, const char *backend, char **source,
                                        sdekit_error *err);

/* The kernel's identity text: `source` with its comments, whitespace and
 * #line directives removed (one space kept where tokens would join, the
 * newline after a preprocessor directive kept).  The kernel cache and a
 * checkpoint's kernel hash take the kernel by this text, so sources that
 * differ only in layout are one kernel.  Free with sdekit_free. */
SDEKIT_API sdekit_status sdekit_codegen_normalised(const char *source, char **normalised,
                                                   sdekit_error *err);

/* Generate and compile the kernel of a run without running it.  CUDA with
 * an arch ("sm_90") needs NVRTC only, no GPU. */
typedef struct sdekit_compile_report {
  char model[256];    /* the model's name */
  char scheme[32];    /* the scheme the run would use */
  char precision[16]; /* single | double */
  int fast_math;
  char where[512];   /* the backend and device */
  char report[4400]; /* what the compiler said: registers and spills for CUDA */
} sdekit_compile_report;
SDEKIT_API sdekit_status sdekit_compile(const sdekit_config *c, const char *backend,
                                        const char *arch, sdekit_compile_report *out,
                                        sdekit_error *err);

/* ------------------------------------------------------------------------ */
/* Results                                                                   */

/* A result file written by sdekit (by the CLI, sdekit_result_write or the
 * Python package), read with every name, type and shape checked: a file
 * from a stranger gives an error naming the file and the problem, never a
 * crash. */
SDEKIT_API sdekit_status sdekit_result_read(const char *path, sdekit_result **out,
                                            sdekit_error *err);
SDEKIT_API void sdekit_result_destroy(sdekit_result **r);

/* ---- figures ----
 * What `sdekit plot` draws from a result file, decided once, as a
 * description every renderer draws without deciding anything: figures of
 * panels (their places in the figure), curves with bands and error bars,
 * maps, axes with labels, ranges, log scales and tick spacing, keys,
 * titles.  Labels are runs of plain text, each with a style ("", "italic",
 * "sub", "sup", combined as "italic sub"), to be escaped by the renderer.
 * The JSON is what `sdekit plot --spec FILE.h5` prints:
 *   {"file": ..., "figures": [{"figure": "fpt", "title": [[style, text], ...],
 *    "subtitle": [...], "panels": [{"kind": "lines"|"points"|"boxes"|"map",
 *    "box": [left, right, bottom, top], "xlabel", "ylabel", ..., "series":
 *    [{"title", "color", "x", "y", "lo", "hi", ...}]}]}]}
 * (numbers not finite are null).  Options as `sdekit plot` takes them. */
typedef struct sdekit_figure_options {
  const char *observable; /* one picture (drift, moments, ...); NULL: all the file holds */
  const char *var;        /* only this variable or user observable; NULL: all */
  const char *show;       /* a dataset drawn by its shape (HDF5 path); NULL: none */
  int64_t grid;           /* grid point of pictures of one; -1: the figure's choice */
  int stat;               /* 0: the mean, 1: the variance */
  int log;                /* 1: log x, 2: log y, 3: both; 0: where a quantity spans decades */
} sdekit_figure_options;

/* The figures of results r (read from a file or just run; `name` names
 * them in messages and the JSON, e.g. the file's path) with opts (NULL: all
 * the results hold, defaults) as JSON into *json (free with sdekit_free).
 * SDEKIT_ERR_USAGE for an option the results cannot serve,
 * SDEKIT_ERR_FORMAT for results that are wrong, each with a message naming
 * them and the problem. */
SDEKIT_API sdekit_status sdekit_figure_describe(const sdekit_result *r, const char *name,
                                                const sdekit_figure_options *opts, char **json,
                                                sdekit_error *err);

/* Write: FILE.h5 / FILE.hdf5 (everything), FILE.tsv (.txt, .dat: text for
 * gnuplot; with several observables one file each, BASE.OBS.tsv).  Files
 * are replaced atomically.  `wrote` (may be NULL) is called with each file
 * written.  TSV needs the results of a run (not of a file read). */
typedef void (*sdekit_file_fn)(void *user, const char *path);
SDEKIT_API sdekit_status sdekit_result_write(const sdekit_result *r, const char *path,
                                             sdekit_file_fn wrote, void *user, sdekit_error *err);
/* One observable (NULL: every one, in order) as TSV to a stream. */
SDEKIT_API sdekit_status sdekit_result_write_tsv(const sdekit_result *r, const char *observable,
                                                 FILE *f, sdekit_error *err);

/* About the run: seconds spent integrating, path-steps done, the device;
 * NULL or why some statistics are NaN (grid points whose paths blew up). */
SDEKIT_API double sdekit_result_seconds(const sdekit_result *r);
SDEKIT_API double sdekit_result_path_steps(const sdekit_result *r);
SDEKIT_API const char *sdekit_result_device(const sdekit_result *r);
SDEKIT_API const char *sdekit_result_problem(const sdekit_result *r);

/* The observables (groups) the result holds, in order. */
SDEKIT_API int sdekit_result_nobservables(const sdekit_result *r);
SDEKIT_API const char *sdekit_result_observable(const sdekit_result *r, int i);

/* The scan: number of axes (0 .. SDEKIT_MAX_SCAN), and axis i's (first)
 * parameter and values; parameters zipped with an axis are datasets
 * scan/NAME with the attribute zipped_with naming the axis's parameter. */
SDEKIT_API int sdekit_result_nscan(const sdekit_result *r);
SDEKIT_API const char *sdekit_result_scan_name(const sdekit_result *r, int i);
SDEKIT_API const double *sdekit_result_scan_values(const sdekit_result *r, int i, int64_t *n);

typedef enum sdekit_dtype { SDEKIT_F64 = 0, SDEKIT_I64 = 1, SDEKIT_U64 = 2 } sdekit_dtype;
#define SDEKIT_MAX_RANK 8

typedef struct sdekit_dataset {
  const char *name; /* its path: "moments/mean_x" */
  sdekit_dtype type;
  int rank;
  int64_t dims[SDEKIT_MAX_RANK];
  /* names of the dimensions: the scan parameters for the grid dimensions,
   * "sample" for the sample axis, else what the observable calls them
   * ("path", "bin") */
  const char *dim_names[SDEKIT_MAX_RANK];
  int grid_rank;         /* the first grid_rank dimensions are the scan axes */
  int sample_axis;       /* -1: none */
  int64_t count;         /* elements */
  const void *data;      /* C order; valid while the result lives */
  const char *std_error; /* the dataset holding its standard errors, or NULL */
  int coordinate;        /* a coordinate (sample times, steps), not a statistic */
} sdekit_dataset;

/* Datasets: count, name i, and the dataset by name (SDEKIT_ERR_USAGE when
 * there is none). */
SDEKIT_API int sdekit_result_ndatasets(const sdekit_result *r);
SDEKIT_API const char *sdekit_result_dataset_name(const sdekit_result *r, int i);
SDEKIT_API sdekit_status sdekit_result_dataset(const sdekit_result *r, const char *name,
                                               sdekit_dataset *out, sdekit_error *err);

/* Attributes of the root ("" or "/"), a group ("density/x") or a dataset. */
typedef enum sdekit_attr_type {
  SDEKIT_ATTR_STRING = 0,
  SDEKIT_ATTR_STRINGS = 1, /* an array of strings */
  SDEKIT_ATTR_F64 = 2,     /* one number or an array */
  SDEKIT_ATTR_I64 = 3,
  SDEKIT_ATTR_U64 = 4
} sdekit_attr_type;
typedef struct sdekit_attr {
  const char *name;
  sdekit_attr_type type;
  int64_t count; /* elements (1 for a scalar or a string) */
  const char *s;
  const char *const *strs;
  const double *f64;
  const int64_t *i64;
  const uint64_t *u64;
} sdekit_attr;
/* Number of attributes of object (-1: no such object), attribute i, and
 * one by name (SDEKIT_ERR_USAGE when absent). */
SDEKIT_API int sdekit_result_nattrs(const sdekit_result *r, const char *object);
SDEKIT_API sdekit_status sdekit_result_attr_at(const sdekit_result *r, const char *object, int i,
                                               sdekit_attr *out, sdekit_error *err);
SDEKIT_API sdekit_status sdekit_result_attr(const sdekit_result *r, const char *object,
                                            const char *name, sdekit_attr *out, sdekit_error *err);

/* ------------------------------------------------------------------------ */
/* Registry, devices, kernel cache                                           */

/* The names of the registry (kind: "scheme", "observable", "noise",
 * "backend"): name i and its one-line description; NULL past the end. */
SDEKIT_API const char *sdekit_registry_name(const char *kind, int i);
SDEKIT_API const char *sdekit_registry_description(const char *kind, int i);
/* A value of row i of the registry's backends (kind "backend"), by key:
 * "device" 1 when it computes on a device that --device picks (a GPU), else
 * 0; "auto" its rank for --backend auto (tried from the highest down; 0:
 * never); "bench-paths" the paths `sdekit bench` times by default.  -1 for
 * another kind or key, or past the end. */
SDEKIT_API int64_t sdekit_registry_value(const char *kind, int i, const char *key);

/* CUDA devices (the configuration says where NVRTC is; may be NULL). */
typedef struct sdekit_device_info {
  int ordinal;
  char name[256];
  char arch[16]; /* "sm_90" */
  int multiprocessors;
  double memory_bytes;
} sdekit_device_info;
typedef struct sdekit_cuda_info {
  int driver_version;           /* 12040: 12.4 */
  int nvrtc_major, nvrtc_minor; /* 0 when NVRTC was not found */
  char nvrtc_path[512];
  int ndevices;
} sdekit_cuda_info;
SDEKIT_API sdekit_status sdekit_cuda_info_get(const sdekit_config *c, sdekit_cuda_info *out,
                                              sdekit_error *err);
SDEKIT_API sdekit_status sdekit_cuda_device(const sdekit_config *c, int ordinal,
                                            sdekit_device_info *out, sdekit_error *err);

/* The kernel cache of a configuration's directory: its entries (an array
 * to free with sdekit_free) and removing one (only entries sdekit made). */
typedef struct sdekit_cache_entry {
  char name[256];
  int64_t size;  /* bytes */
  int64_t mtime; /* seconds since the epoch */
  int is_dir;
} sdekit_cache_entry;
SDEKIT_API sdekit_status sdekit_cache_list(const char *dir, sdekit_cache_entry **entries, size_t *n,
                                           sdekit_error *err);
SDEKIT_API sdekit_status sdekit_cache_remove(const char *dir, const sdekit_cache_entry *e,
                                             sdekit_error *err);

/* ------------------------------------------------------------------------ */
/* Timing (sdekit bench)                                                     */

typedef struct sdekit_timing {
  double median_s, min_s, max_s; /* over the repeats */
  double work;     /* per repeat: path-steps, particle-steps, pair interactions or bytes */
  double checksum; /* a number from the results, so the work cannot be skipped */
  char device[256];
} sdekit_timing;

/* The stepping of a run alone: `repeats` launches of nsteps steps after a
 * warm-up, the clock stopped after a reduction returned. */
SDEKIT_API sdekit_status sdekit_time_steps(const sdekit_config *c, int64_t nsteps, int repeats,
                                           sdekit_timing *out, sdekit_error *err);
/* Whole runs of c: the median of `repeats` after one warm-up. */
SDEKIT_API sdekit_status sdekit_time_runs(const sdekit_config *c, int repeats, sdekit_timing *out,
                                          sdekit_error *err);
/* The paper's programs, re-implemented as baselines, in this process:
 * program "prog1" (size paths of the Josephson junction, SRK2), "prog2"
 * (all-pairs Kuramoto, size particles), "prog3" (mean-field Kuramoto), or
 * "copy" (device-to-device copy of size bytes: the memory roofline); on
 * backend "cpu" (scalar C, one thread) or "cuda" (the configuration gives
 * the device).  Single precision, as in the paper. */
SDEKIT_API sdekit_status sdekit_time_baseline(const sdekit_config *c, const char *program,
                                              const char *backend, int64_t size, int64_t steps,
                                              int repeats, unsigned seed, sdekit_timing *out,
                                              sdekit_error *err);

#ifdef __cplusplus
}
#endif

#endif
