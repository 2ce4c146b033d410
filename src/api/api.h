/* sdekit: the public API's objects (include/sdekit.h) over the internals.
 *
 * sdekit_config owns a sdk_run_config and every string it points to; it also
 * keeps the arguments as they were applied ("items"), which a checkpoint
 * stores so that `sdekit resume` (sdekit_config_from_checkpoint) rebuilds
 * the same configuration through the same parser, and from which the
 * results' command line is made.  sdekit_run runs a copy of the sdk_run_config
 * with the callbacks attached, so the configuration itself is never written
 * by a run (distinct runs may share nothing but read-only data).
 */
#ifndef SDK_API_H
#define SDK_API_H

#include <sdekit.h>
#include <sys/types.h>

#include "core/cnumeric.h"
#include "core/error.h"
#include "core/log.h"
#include "io/table.h"
#include "observe/store.h"
#include "sim/checkpoint.h"
#include "sim/run.h"

/* An option as applied: its canonical name (NULL for an operand, the model)
 * and the words that gave it, as typed (one or two) or as made by a setter
 * ("--paths=1000"). */
typedef struct api_item {
  char *name;
  char *words[2];
  int nwords;
} api_item;

#define API_MAX_OUTPUTS 4

/* arrays of values per path by name, given through the C API (the caller's:
 * borrowed, never copied), sdekit_config_path_values */
typedef struct api_values {
  int n;
  char *names[SDK_TABLE_MAX_COLUMNS];
  const double *values[SDK_TABLE_MAX_COLUMNS];
  int64_t count;
  int64_t ngrid; /* sdekit_config_path_values_grid: [ngrid][count / ngrid]; 0: not said */
} api_values;

struct sdekit_config {
  sdk_run_config c;
  /* owned strings behind c's pointers */
  char *model, *model_search_path, *model_text, *model_label;
  char *scheme, *backend, *observe, *drift_var, *density_var, *checkpoint;
  char *diffusion_var, *noise, *target_on, *sample_times;
  char *corr_vars; /* --corr-vars (acf, psd) */
  /* issue 28: --init-from and --path-params (files read when a run starts,
   * api/pathdata.c), and arrays given by sdekit_config_path_values */
  char *init_from, *path_params_file;
  api_values init_arr, pp_arr;
  char *command_line;
  char *set_name[SDK_MAX_SET];
  char *obs_expr[SDK_MODEL_MAX_OBSERVE]; /* behind c.obs_expr */
  char *outputs[API_MAX_OUTPUTS];
  int noutputs;
  int quiet, verbose;
  /* --force: replace files that are refused otherwise (api_check_files);
   * never recorded, so a checkpoint does not carry it to its resume */
  int force;
  /* the checkpoint whose arguments are being applied (resume.c), or NULL:
   * untrusted data, where an option never recorded (--force, --scan-file)
   * is refused */
  const char *stored_args;
  /* an output that sdekit_config_check_outputs saw is TSV: the run checks
   * the TSV headers before it starts also where the caller clears the
   * outputs first and writes them after the run (Python's output=) */
  int tsv_checked;
  /* the environment's part (sdekit_config_set_environment, set_cache) */
  char *cache_dir, *tmp_dir, *cc, *cflags, *cflags_extra, *cuda_home, *cuda_path;
  char *sys_kernel, *baseline_cubin;
  /* the note on the environment's deprecated SDK_ names, said when a run
   * starts (NULL: none) */
  char *env_note;
  /* the arguments as applied, in order */
  api_item *items;
  int nitems, cap;
  /* callbacks */
  sdekit_progress_fn progress;
  void *progress_user;
  sdekit_cancel_fn cancel;
  void *cancel_user;
  sdekit_log_fn log;
  void *log_user;
  sdekit_log_level log_min;
  /* resumed from this checkpoint (sdekit_config_from_checkpoint) */
  sdk_ckpt *ckpt;
  char *ckpt_file;
  int ckpt_id_known; /* the checkpoint file read: its device and inode */
  dev_t ckpt_dev;
  ino_t ckpt_ino;
  char resolved[API_MAX_OUTPUTS][4200];
  /* the observables' names, for sdekit_config_observable */
  const char *obs_names[SDK_MAX_OBSERVABLES];
  int nobs;
};

struct sdekit_model {
  sdk_model *m;
};

/* A result: a run's (run != NULL) or a file's; `img` is the file's image
 * (io/image.h), made on first use for a run's. */
struct sdekit_result {
  sdk_run *run;
  sdk_store img;
  int have_img;
  const char *obs[SDK_MAX_OBSERVABLES];
  int nobs;
  /* per dataset: its dimension names and standard-error name, resolved */
  char **names_storage;
  int nnames;
};

/* Fill err from an internal error (NULL err: nothing); returns the status. */
sdekit_status api_fail(sdekit_error *err, sdk_err e, const sdk_errbuf *eb);
/* The same for a model error of the model at `path` (file and line from the
 * message's "PATH:LINE:" prefix). */
sdekit_status api_fail_model(sdekit_error *err, sdk_err e, const sdk_errbuf *eb, const char *path);
/* A usage error made here (printf-style). */
sdekit_status api_usage(sdekit_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
sdekit_status api_nomem(sdekit_error *err);
void api_ok(sdekit_error *err);

/* Replace *slot by a copy of s (NULL: NULL); SDK_ERR_NOMEM on failure. */
int api_set_str(char **slot, const char *s);

/* Record an applied option (config.c): words as given. */
/* "PREFIX[+]NAME=V1,V2,..." with every value exact (core/numfmt.h), malloc'd;
 * NULL when out of memory.  The values must be finite. */
char *api_scan_word(const char *prefix, const char *name, int zip, const double *v, int64_t n);
sdekit_status api_record(sdekit_config *c, const char *name, const char *w0, const char *w1,
                         sdekit_error *err);
/* Drop the recorded items of option `name`. */
void api_unrecord(sdekit_config *c, const char *name);
/* --scan and --scan-file (options_scan.c; options.c's table calls them). */
sdekit_status api_opt_scan(sdekit_config *c, const char *arg, sdekit_error *err);
sdekit_status api_opt_scan_file(sdekit_config *c, const char *path, sdekit_error *err);
/* SDEKIT_OK where a configuration may take option `name` (its long name):
 * anything while it is no resumed run, else only what a resumed run may
 * change (its length, threads, device, ranks, outputs, messages) */
sdekit_status api_resumed_option(const sdekit_config *c, const char *name, sdekit_error *err);
/* Apply option `name` = value to c without recording it (options.c). */
sdekit_status api_apply_option(sdekit_config *c, const char *name, const char *value,
                               sdekit_error *err);

/* Options that need each other (--checkpoint-every and --checkpoint,
 * --coarse-grain and the density): checked before any run. */
sdekit_status api_check_options(const sdekit_config *c, sdekit_error *err);
/* Whether an output of c is TSV (FILE.tsv, .txt, .dat or - for stdout:
 * anything but HDF5), so that the run checks the TSV headers at its plan. */
int api_outputs_tsv(const sdekit_config *c);

/* Files whose loss costs work, refused unless --force: an output (with
 * outputs set; every file it stands for) or the checkpoint that is the
 * model file, and a checkpoint that exists (the progress of a run), unless
 * it is the one this configuration was resumed from. */
sdekit_status api_check_files(const sdekit_config *c, int outputs, sdekit_error *err);

/* The run configuration to execute: a copy of c->c with the callbacks, the
 * logger and the stored arguments attached (run.c). */
typedef struct api_exec {
  sdk_run_config rc;
  sdk_logger logger;
  const sdekit_config *cfg;
  char **argv;
  int argc;
  char *cmdline;
  /* the values per path of the run (api/pathdata.c): the tables of files
   * (opened: the run reads its own paths' values from them), the names and
   * arrays rc.init / rc.path_params point at, and the
   * --paths the data gave (stored with the arguments, so that a resumed run,
   * which does not read the data again, has the same paths) */
  sdk_table_src *src[2];
  const char **names[2];
  const double **vals[2];
  char paths_word[48];
} api_exec;
sdekit_status api_exec_make(const sdekit_config *c, api_exec *x, sdekit_error *err);
void api_exec_free(api_exec *x);
/* pathdata.c: the init and path_params of run x from the config's files or
 * arrays (not --init-from's on resume: the checkpoint has the state); the
 * paths per grid point from the data where paths_given is 0 */
sdekit_status api_exec_data(const sdekit_config *c, api_exec *x, int paths_given,
                            sdekit_error *err);
void api_exec_data_free(api_exec *x);
void api_values_free(api_values *v);

#endif
