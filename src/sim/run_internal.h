/* sdekit: the stages of a run (src/sim), and the plan they pass forward.
 *
 *   sdk_plan_make     (plan.c)     configuration + model -> grid, time steps,
 *                                  sizes, systems; sdk_plan_observables sets up
 *                                  the observables
 *   sdk_program_make  (program.c)  kernel source, backend, module, paths
 *   sdk_execute       (execute.c)  steps, samples, checkpoints (ckpt_run.c)
 *   sdk_record        (record.c)   observables finish; blown-up grid points
 *
 * Each stage reads what the earlier ones filled in and adds its own part;
 * nothing calls back up.  sdk_plan_free releases everything but the run's
 * results (struct sdk_run).
 */
#ifndef SDK_RUN_INTERNAL_H
#define SDK_RUN_INTERNAL_H

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "observe/observable.h"
#include "observe/paths.h"
#include "sim/run.h"
#include "sim/sample_times.h"
#include "sim/systems.h"

/* The results and the storage behind them (what sdk_run_execute returns). */
struct sdk_run {
  sdk_results r;
  sdk_model *model;
  const char **param_names;
  double *param_values;        /* in force at grid point 0 (scanned: their first value) */
  double *result_param_values; /* r.param_values: NaN where they vary over the grid */
  /* r.path_param_names (the model's names), r.path_params_from, r.init_from:
   * the run's own copies (the configuration's may not outlive it) */
  const char **pp_names;
  char *pp_from, *init_from;
  char *compensation; /* r.compensation (run.c, comp_note) */
  double *dt;
  double *sample_times; /* --sample-times: r.sample_times (NULL: none given) */
  double seconds, path_steps;
  char device[256];
  char version[32];
  char *command_line;
  char problem[1024]; /* results complete but some grid points NaN (sdk_run_problem) */
};

typedef struct sdk_plan {
  const sdk_run_config *c;
  sdk_run *run;
  /* seconds in the program stage's parts, and the device's own time of the
   * advances (CUDA events; -1 where the backend does not time them)
   * (--verbose: sim/run.c) */
  double t_open, t_source, t_compile, t_paths, t_device;
  /* ---- plan ---- */
  const sdk_scheme_type *scheme;
  /* why the default scheme is not the general one (plan_scheme), or NULL */
  const char *scheme_why;
  const sdk_noise_type *noise; /* --noise; NULL: the scheme's */
  /* per parameter: -1 = fixed, else its column in the kernels' per-grid-point
   * values sv: its entry in the configuration's scan list (scan_col), or
   * nscan + j (nscan: the configuration's) for the j-th derived parameter that
   * varies with a scanned one (plan_varying) */
  int *scan_column;
  /* per scanned parameter (the configuration's order): its axis and values in
   * the results (run->r.scan or run->r.zip) */
  const sdk_scan_axis *scan_col[SDK_MAX_SCAN_PARAMS];
  unsigned char *given; /* per parameter: its value given by --set or --scan */
  /* given per path as data (c->path_params, pathparams.c): per parameter and
   * per [particle] parameter the index of its name there, else -1; NULL
   * when none is */
  int *pp_param, *pp_part;
  int nvary;     /* derived parameters that vary over the grid */
  int nsv;       /* per-grid-point values of the kernels: scanned, varying derived, then dt */
  int dt_column; /* -1: dt is the same everywhere */
  double *sv;    /* [ngrid][nsv] */
  int64_t ngrid;
  int64_t spp; /* steps per period (0: no period) */
  double period0;
  /* what was asked where the time grid could not give it exactly (0: it
   * could, or nothing was asked): results and notices say so (plan_steps) */
  double dt_asked, t_end_asked, transient_asked;
  int64_t nsteps, transient_steps, sample_every, nsamples_max;
  /* --sample-times (plan_times.c): how they were given (their values are
   * run->sample_times), and their steps, the sample clock instead of
   * sample_every (then 0) */
  sdk_sample_times times;
  double dt_default; /* the dt before --sample-times chose one (0: none chosen) */
  int64_t *sample_steps;
  int64_t ppg; /* paths per grid point as held: particles, for systems */
  sdk_systems sys;
  int nobs;
  sdk_obs obs[SDK_MAX_OBSERVABLES];
  int sampling; /* some observable samples */
  sdk_obs_ctx octx;
  /* ---- program ---- */
  const sdk_backend *be;
  sdk_bctx *ctx;
  sdk_module *mod;
  char *src;
  char khash[33]; /* hash of the kernel source (codegen/identity.h) */
  /* the kernel as built: khash with the compiler, flags, processor or GPU
   * architecture (backend.h build_hash); a checkpoint continues only it */
  char bhash[33];
  int nshards;
  sdk_shard *shards; /* the paths, cut on chunks (sim/program.c); ens NULL where another rank
                      * holds them */
  int *owner;        /* [nshards] the rank holding each shard */
  int64_t *xchunks;  /* systems spanning ranks: the system driver's chunks per rank */
  sdk_paths paths;
  /* ---- execute ---- */
  sdk_moments *mom;        /* [g][v] at the current step */
  sdk_moments *omom;       /* [g][k] of the user observables at the current step */
  int64_t *nonfinite;      /* [g] at the current step */
  int64_t *bad, *bad_step; /* [g] most non-finite paths seen, and when first */
  int64_t *sample_step;    /* [nsamples_max] the run's sample clock */
  int64_t isample, step, step_start;
  int marked; /* the drift's origin is set (transient over) */
  /* several ranks: past the last agreement (sdk_comm_agree), where an error
   * of one rank is its own (errbuf.alone) */
  int lockstep;
} sdk_plan;

sdk_err sdk_plan_make(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb);
/* The observables' setup (after sdk_plan_make; not needed to generate code). */
sdk_err sdk_plan_observables(sdk_plan *p, sdk_errbuf *eb);
void sdk_plan_free(sdk_plan *p);
/* --sample-times (plan_times.c): the step that fits the times where dt is
 * free (after the step of every grid point), and the step of every time
 * (after the steps of the run) */
sdk_err sdk_plan_sample_dt(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb);
sdk_err sdk_plan_sample_steps(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb);
/* The model of a run: its stored text (resume), or a file or built-in name. */
sdk_err sdk_plan_model(const sdk_run_config *c, sdk_model **m, sdk_errbuf *eb);
/* The code generator's options for this plan on target t. */
void sdk_plan_codegen_opts(const sdk_plan *p, sdk_target t, sdk_codegen_opts *o);
/* --dt-check (dtcheck.c): its refusals and the observables' view of it (in
 * sdk_plan_make); the rows of the coarse path, once the paths exist */
sdk_err sdk_plan_dt_check(sdk_plan *p, sdk_errbuf *eb);
/* The notes of what a model makes of the run's statistics (notes.c): a
 * [levy] model's (no Brownian bridge at its boundaries, the statistics its
 * heavy tails leave without a value), a random start's in diffusion */
void sdk_plan_model_notes(const sdk_run_config *c, const sdk_run *r, const sdk_plan *p);
/* --adaptive (adaptive.c): the options it cannot be combined with (before
 * any driver of windows takes the run), its refusals and levels, and the
 * generator's options of it */
sdk_err sdk_adaptive_config(const sdk_run_config *c, sdk_errbuf *eb);
sdk_err sdk_plan_adaptive(sdk_plan *p, sdk_errbuf *eb);
/* the advice of a run whose paths became NaN/Inf: the option that makes its
 * steps smaller (--adaptive: --dt-min and the tolerances) */
const char *sdk_plan_smaller_step(const sdk_plan *p);
void sdk_plan_adaptive_opts(const sdk_plan *p, sdk_codegen_opts *o);
void sdk_plan_dt_check_rows(sdk_plan *p, const sdk_codegen_opts *o);
/* Delayed values (delays.c): their ring buffers' memory said, and refused
 * where it cannot fit (before the paths are made) */
sdk_err sdk_plan_delays(const sdk_plan *p, sdk_errbuf *eb);
/* The rows of acf and psd (delays.c): said, refused where they cannot fit */
sdk_err sdk_plan_host_rows(const sdk_plan *p, sdk_errbuf *eb);
/* Parameters given per path (pathparams.c): their refusals (in
 * sdk_plan_make), and their values written into a shard's rows after
 * sdk_init. */
sdk_err sdk_plan_path_params(sdk_plan *p, sdk_errbuf *eb);
sdk_err sdk_path_params_write(const sdk_plan *p, const sdk_shard *sh, sdk_errbuf *eb);
/* "grid point g (a=4.2, b=1)" for messages. */
void sdk_grid_point_name(const sdk_results *R, int64_t g, char *buf, size_t n);

/* One rank's run (or one process's): plan -> program -> execute -> record. */
sdk_err sdk_run_rank(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb);
/* A run as an in-process team of ranks (ranks.c): how many (1: none; the
 * list of --device, all GPUs for --device all, or c->ranks), and the run with
 * one thread per rank, rank 0 on the caller's thread. */
sdk_err sdk_run_team_size(const sdk_run_config *c, int *n, sdk_errbuf *eb);
sdk_err sdk_run_team(const sdk_run_config *c, int n, sdk_run **out, sdk_errbuf *eb);

sdk_err sdk_program_make(sdk_plan *p, sdk_errbuf *eb);
/* The backend of c opened and held by a driver of many runs (over windows
 * of paths: target.c, mlmc.c) for their duration, so that what a backend
 * keeps while any context is open (CUDA: the device's primary context, a
 * tenth of a second or more to make) is made once, not once per run; *ctx
 * NULL where it does not open (each run then says why). Close with
 * (*be)->close(ctx). */
void sdk_backend_hold(const sdk_run_config *c, const sdk_backend **be, sdk_bctx **ctx);
/* After every rank's sdk_program_make succeeded (sdk_comm_agree): what the
 * ranks learn from each other, and the check that they run the same thing
 * (collective: its errors are every rank's). */
sdk_err sdk_program_share(sdk_plan *p, sdk_errbuf *eb);

sdk_err sdk_execute(sdk_plan *p, sdk_errbuf *eb);
/* checkpoints (ckpt_run.c): write the run's state at p->step; restore it */
sdk_err sdk_ckpt_save_run(const sdk_plan *p, sdk_errbuf *eb);
sdk_err sdk_ckpt_restore_run(sdk_plan *p, sdk_errbuf *eb);

sdk_err sdk_record(sdk_plan *p, sdk_errbuf *eb);

/* Values per path from the user (pathdata.c, issue 28): the plan's checks of
 * c->init and c->path_params (names, counts, what supports them); the
 * initial states of shard sh written into its zeroed state before the init
 * kernel, which takes them as its variables (codegen's init_given; not on
 * resume: the checkpoint holds the state); --save-final's final/<var>
 * [ngrid][paths] ([paths] without a scan) into the results on rank 0. */
sdk_err sdk_plan_path_data(sdk_plan *p, sdk_errbuf *eb);
/* 2-D values per path ([ngrid][paths]) against the run's grid: their shape,
 * not only their count (pathdata.c; --init-from's and --path-params' check) */
sdk_err sdk_path_values_shape(const sdk_plan *p, const sdk_path_values *v, const char *what,
                              sdk_errbuf *eb);
static inline int sdk_init_given(const sdk_run_config *c) {
  return c->init.n > 0 || c->init_given;
}
sdk_err sdk_program_upload_init(sdk_plan *p, sdk_shard *sh, sdk_errbuf *eb);
sdk_err sdk_record_final(sdk_plan *p, sdk_errbuf *eb);
/* Values per path in the results (pathdata.c): the parameters given per
 * path NaN in param_values, their names and where they and the initial
 * states came from (io writes them: a caller's arrays leave no other trace) */
sdk_err sdk_pathdata_results(sdk_plan *p, sdk_errbuf *eb);
/* The values per path of name k of v (count == ppg: the same for every grid
 * point, else ngrid * ppg, sdk_path_values) written into backend rows
 * rows[0..nrows) of shard sh, a block of paths at a time (the initial
 * states, the parameters given per path: pathparams.c); from v's arrays,
 * or from its reader, asked for the shard's values alone. */
sdk_err sdk_path_values_put(const sdk_plan *p, const sdk_shard *sh, const sdk_path_values *v, int k,
                            const int *rows, int nrows, sdk_errbuf *eb);
/* The parameters' values at grid point g: those in force, the scanned ones
 * of g, the derived ones from those (plan.c) */
void sdk_plan_grid_values(const sdk_plan *p, int64_t g, double *pv);

/* A run to a requested standard error (c->target_se or target_rse):
 * batches of paths as windows with one carry (sim/target.c). */
sdk_err sdk_target_run(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb);
/* A run over a window of paths of such a driver (sim/target.c, sim/mlmc.c)
 * was interrupted: eb's message names the window (`what`), or, stopped
 * before a later window's first step (`later`) with a checkpoint, says that
 * the checkpoint holds the window before (each window's run writes one at its
 * end) and how to go on. */
void sdk_windows_interrupted(const sdk_run_config *c, int later, const char *what, sdk_errbuf *eb);

#endif
