/* sdekit: what the generator is asked for (see codegen/codegen.h). */
#ifndef SDK_CODEGEN_OPTS_H
#define SDK_CODEGEN_OPTS_H

#include <stdint.h>

#include "codegen/abi.h" /* sdk_target */
#include "codegen/scheme.h"
#include "core/tuning.h"
#include "model/model.h"

/* quantities of --observe acf the kernel accumulates, at most */
#define SDK_CG_ACF_MAXQ 32

typedef struct sdk_codegen_opts {
  const sdk_model *model;
  const sdk_scheme_type *scheme;
  sdk_target target;
  int single; /* 1: float, 0: double */
  /* compiled with fast math: only then may the generator itself fuse what
   * the model wrote (the CUDA kernel's drive FMAs, expr_emit.c drive_term) */
  int fast_math;
  const double *pvalues;  /* value of every parameter (after --set) */
  const int *scan_column; /* per parameter: -1 = constant, else column in sv */
  int nsv;                /* columns of sv */
  const double *sv;       /* ngrid x nsv: every grid point's scanned values (NULL: not known) */
  int dt_column;          /* -1: dt is the constant below */
  double dt;
  int64_t spp; /* > 0: t = (n mod spp) * dt (periodic driving) */
  int64_t ngrid;
  /* systems of interacting particles (see sys.h): the module then holds
   * sdk_init and the system driver instead of sdk_advance */
  int sysmode;
  int order_var;       /* >= 0: reduce exp(i factor x_var) every step (order parameter) */
  double order_factor; /* 2 pi / period of order_var */
  int64_t particles;   /* particles per system (tunes the CUDA system kernel) */
  /* compensated state update (single precision, codegen.h): the state then
   * has 2 * nvars rows, row nvars + v the carried error of variable v */
  int compensate;
  /* with compensate: every variable (the default); 0 (--compensate auto):
   * those the rule of comp_vars.c picks, the others updated plainly (issue 32) */
  int comp_all;
  /* the variables' initial values are given as data (--init-from): sdk_init
   * reads them from the state (written before it) instead of drawing
   * [init], and derives the other rows (high parts, coarse copy, boundary
   * status) from them */
  int init_given;
  /* with compensate (CUDA independent paths): renormalise at the ends of
   * the kernel's groups of G steps instead of every step (codegen.h); the
   * state then has 3 * nvars rows, row 2 nvars + v the high part h_v.
   * 0: a Kahan sum every step (CPU, systems). */
  int comp_defer;
  /* time averages (observe/obs_tavg.c, codegen.h: the accumulator rows):
   * every step n >= tavg_from adds each user observable and each variable
   * at the state after the step into per-path accumulators.  0: none, and
   * the source is what it was without them. */
  int tavg;
  int64_t tavg_from;
  /* rows of per-path state the host keeps between samples (observe/obs_corr.h:
   * --observe acf, psd), zeroed by sdk_init, never read or written by a step;
   * 0: none, and the source is what it was without them */
  int host_rows;
  /* [boundaries]: the Brownian-bridge correction of absorbing boundaries
   * (boundary.c); 0: discrete monitoring only (--no-bridge-correction) */
  int bridge;
  /* GPU tuning knobs of the system kernels (sys_qi, sys_minb, run_minb);
   * NULL or 0: the measured defaults.  They change speed, never results. */
  const sdk_tuning *tuning;
  /* set by sdk_codegen for a scheme with the Milstein term (scheme.h): per
   * variable, d noise[v] / d x_v, or NULL where it has no noise (callers
   * leave it NULL) */
  sdk_expr **dnoise;
  /* set by sdk_codegen when the drift is corrected for the calculus over
   * shared Wiener processes: the locals the corrected drifts use
   * (correction.h; callers leave it NULL) */
  const struct sdk_cg_corr *corr;
  /* --dt-check (codegen.h: the coupled coarse path): every path also
   * carries a copy integrated at 2 dt with the sum of its two fine steps'
   * noise; its rows follow all others.  0: none, and the source is what it
   * was without it.  dtc_mark: the step (even) whose coarse - fine
   * difference the displacements of the drift start from (the transient). */
  int dt_check;
  int64_t dtc_mark;
  /* set by the drivers on their copy of the options that emits the coarse
   * step (callers leave it 0): boundary.c then keys the bridge draws of
   * that path in its own block range */
  int coarse;
  /* for messages: a registered scheme of the model's calculus, which needs
   * no drift correction (sim/registry.h sdk_native_scheme); NULL: none named */
  const char *own_scheme;
  /* for messages: the registered schemes (sim/registry.h, NULL-terminated),
   * of which a refusal names those that can integrate the model; NULL: none
   * named */
  const sdk_scheme_type *const *schemes;
  /* the noise source in place of the scheme's (--noise); NULL: the scheme's */
  const sdk_noise_type *noise;
  /* per-path values given as data (sdk_run_config.path_params, codegen.h):
   * path_param[i] >= 0 where the paths' values of parameter i are rows of
   * the state, path_part[k] >= 0 likewise for [particle] parameter k (then
   * not drawn); NULL: none */
  const int *path_param, *path_part;
  /* polled between the generator's stages (NULL: never): nonzero stops it
   * with SDK_ERR_INTERRUPTED (a stop request, sdk_run_config.cancel) */
  int (*cancel)(void *user);
  void *cancel_user;
  /* --adaptive (codegen/adaptive.c): each step n of dt is integrated by
   * dyadic sub-steps dt 2^-l on the path's Brownian tree (rng/btree.h),
   * l from adapt_lev0 (the first try) to adapt_levmax (dt-min), controlled
   * by the scheme's embedded pair against rtol, atol.  0: fixed steps. */
  int adaptive;
  int adapt_lev0, adapt_levmax;
  double rtol, atol;
  /* --observe acf accumulated by the kernel (codegen/acf.h): acf_k lags
   * (0: none; the host samples it, if asked for, from its rows), the
   * quantities (variable v as v, user observable k as nvars + k), the first
   * sample step and the steps between samples; its rows are the first of
   * the host's (host_rows counts them) */
  int acf_k, acf_nq;
  int acf_q[SDK_CG_ACF_MAXQ];
  int64_t acf_first, acf_every;
  /* --observe psd computed by the kernel (codegen/psd.h): segment psd_m (0:
   * none; the host samples it, if asked for), its quantities as acf's, the
   * window (1 hann, 0 rect), the first sample step (the samples every
   * acf_every steps) and the first row of its block among the host's
   * (the host's layout: obs_corr.h) */
  int psd_m, psd_nq, psd_hann, psd_row;
  int psd_q[SDK_CG_ACF_MAXQ];
  int64_t psd_first;
} sdk_codegen_opts;

/* The noise source the steps draw from. */
static inline const sdk_noise_type *sdk_cg_noise(const sdk_codegen_opts *o) {
  return o->noise ? o->noise : o->scheme->noise;
}

/* Is parameter i the same on every path of the run (neither scanned nor
 * given per path)? */
static inline int sdk_cg_param_fixed(const sdk_codegen_opts *o, int i) {
  return o->scan_column[i] < 0 && !(o->path_param && o->path_param[i] >= 0);
}

#endif
