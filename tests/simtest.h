/* Helpers for tests that run simulations through the library API. */
#ifndef SDK_SIMTEST_H
#define SDK_SIMTEST_H
#include "codegen/scheme.h"
#include "sim/registry.h"
#include "sim/run.h"

/* Backend named by $SDK_TEST_BACKEND (default "cpu"). */
const char *st_backend(void);
/* Write model text to a temporary .sde file; returns its path (static buffer per call index,
 * slot 0..7; NULL for another slot). */
const char *st_model_file(const char *text, int slot);
/* The backend's surroundings as the CLI fills them from the environment
 * (cli/env.h: the kernel cache $SDEKIT_CACHE_DIR, the C compiler, NVRTC's
 * toolkit), so that tests build what the tool builds, in its cache. */
void st_env(sdk_backend_env *env);
/* Run (with st_env unless the configuration names a compiler); on failure
 * print the error and return NULL. */
sdk_run *st_run(const sdk_run_config *c);
/* The model `text` (st_model_file slot) run with `scheme` (NULL: the
 * default) must fail with a message containing want1 (and want2 unless
 * NULL): a check. */
void st_refused(const char *text, int slot, const char *scheme, const char *want1,
                const char *want2);
/* c: the defaults, the backend st_backend(), the model `text` under the
 * name `name` (model and model_path: the same #line in every kernel), paths,
 * dt and t_end. */
void st_config_text(sdk_run_config *c, const char *name, const char *text, int64_t paths, double dt,
                    double t_end);
/* An estimate est +- se against the exact value: a line printed, and a check
 * that it is within k standard errors. */
void st_within(const char *what, double est, double se, double exact, double k);
/* Skip (exit 77) when the chosen backend cannot be opened. */
void st_require_backend(void);

/* The observables of a run's results in flat arrays, as the tests read them
 * (the results keep them as named datasets: observe/store.h).  Arrays of
 * observables the run did not compute are NULL.  Made by st_view; freed when
 * the test program exits. */
typedef struct st_view {
  int64_t nsamples;          /* moments (else paths, density) */
  int64_t *sample_step;      /* [s] */
  double *mean, *var;        /* [g][s][v] */
  double *drift, *drift_err; /* [g] */
  int64_t bins;
  double *hist_lo, *hist_hi;        /* [g][v] */
  double *density;                  /* [g][v][b] */
  uint64_t *hist_under, *hist_over; /* [g][v] */
  int64_t nsaved;
  int64_t *saved_index; /* [k] */
  double *saved;        /* [g][k][s][v] */
  int64_t order_nsamples;
  int64_t *order_step;                       /* [s] */
  double *order_r, *order_r_err, *order_psi; /* [g][s] */
} st_view;
const st_view *st_view_of(const sdk_results *R);

/* One step of scheme s, from its explicit SRK table, on the linear equation
 * dx = -k x dt + b dW with additive noise: x' = a x + cw b sqrt(dt) psi
 * (psi the step's noise value).  Returns 0 (a and cw untouched) for a scheme
 * without an SRK table. */
int st_srk_linear(const sdk_scheme_type *s, double k, double dt, double *a, double *cw);

/* The weighted least-squares slope of y against x (n points, weights w):
 * *slope and its standard error *sslope. */
void st_fit_slope(const double *x, const double *y, const double *w, int n, double *slope,
                  double *sslope);

/* User observable NAME's means and standard errors at every sample of a
 * run's results (expr/mean_NAME, expr/err_NAME): pointers into the results
 * and the number of samples; 0 when the run has no such observable. */
int st_expr_series(const sdk_results *R, const char *name, const double **mean, const double **err,
                   int64_t *ns);
/* Every dataset of A is in B with the same shape and bytes, and back. */
int st_same_store(const sdk_results *A, const sdk_results *B);
/* Run c stopped half way (its cancel and progress callbacks) with a
 * checkpoint into a scratch file, whose path goes into ck (n bytes; the
 * caller removes it): the checkpoint read back, or NULL after a failed
 * check naming `what`. */
struct sdk_ckpt;
struct sdk_ckpt *st_stop_half_way(sdk_run_config *c, char *ck, size_t n, const char *what);
/* Dataset `path` of R as doubles (a failed check when there is none). */
const double *st_f64(const sdk_results *R, const char *path);
/* The stationary autocovariance at lag m steps of OU dx = -k x dt +
 * sqrt(2 D) dW by Euler at dt, the AR(1) process x' = r x + sqrt(2 D dt) z,
 * r = 1 - k dt: 2 D dt / (1 - r^2) r^m. */
double st_ar1_cov(double k, double D, double dt, int64_t m);
/* The run that make() configures gives every dataset bitwise the same in 1
 * and 3 shards, 3 in-process ranks, and stopped half way with a checkpoint
 * and resumed (checks naming `what`). */
void st_same_over_layouts(void (*make)(sdk_run_config *c), const char *what);
/* make()'s run on 1 thread and on 2: bitwise the same results */
void st_same_over_threads(void (*make)(sdk_run_config *c), const char *what);
/* The run config(&c, arg) stopped half way and resumed must give the results
 * ref bitwise (a check naming `what`): the step it resumed from, -1 when it
 * could not be stopped. */
int64_t st_resumed_same(void (*config)(sdk_run_config *, int), int arg, const sdk_results *ref,
                        const char *what);
/* NVRTC for sm_90 with fast math, no device needed, compiling into a fresh
 * cache under the scratch directory (every source compiled for real): the
 * context, or NULL (a line printed saying why) where NVRTC cannot be loaded. */
sdk_bctx *st_nvrtc_open(void);
/* The CUDA source of run c (backend "cuda") compiled through ctx: checks
 * naming `what` that it is generated and compiles (NVRTC's errors name
 * c->model_path's lines); NVRTC's report into
 * report (n bytes).  Returns the source (the caller frees it; NULL where it
 * could not be generated). */
char *st_cuda_source(sdk_bctx *ctx, const sdk_run_config *c, const char *what, char *report,
                     size_t n);
/* c runs to a requested error (--target-se, --mlmc, --target-error) with a
 * progress hook: the fractions it reports are checked as a bar takes them
 * (the last call 1 and none before it, every one in [0, 1), and calls before
 * the end that reach at least half way, so that the bar shows the whole run
 * and not each window's) */
void st_progress_whole(sdk_run_config *c, const char *what);
#endif
