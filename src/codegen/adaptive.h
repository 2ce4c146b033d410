/* sdekit: adaptive time steps per path (issue 30, --adaptive). */
#ifndef SDK_CODEGEN_ADAPTIVE_H
#define SDK_CODEGEN_ADAPTIVE_H

#include "codegen/emit.h"
#include "codegen/opts.h"
#include "core/error.h"

struct sdk_cg_hoist;

/* Refuse (SDK_ERR_USAGE, one message naming the reason) what the adaptive
 * steps cannot integrate correctly: a scheme without an error estimator
 * valid for the model's noise (naming one with it), systems, [boundaries],
 * events, periodic time tables, a noise source other
 * than the Gaussian, --dt-check, time averages, a dt that varies over the
 * grid, and levels outside the tree (rng/btree.h).  SDK_OK without
 * opts.adaptive. */
sdk_err sdk_cg_adaptive_check(const sdk_codegen_opts *o, sdk_errbuf *eb);

/* The module's head with --adaptive: the Brownian tree (rng/btree.h) and
 * the holes of kernels/adapt_step.h.  Nothing without opts.adaptive. */
void sdk_cg_adaptive_head(sdk_emit *em, const sdk_codegen_opts *o);

/* 1 when the CUDA driver takes a launch's steps in one call of the step
 * (kernels/adapt_step.h SDK_ADAPT_SLICES: its lanes go on to their next
 * step without waiting for the warp's): CUDA, --adaptive, no [boundaries]. */
int sdk_cg_adaptive_slices(const sdk_codegen_opts *o);

/* One step n of dt of a path, taken as accepted dyadic sub-steps
 * (kernels/adapt_step.h, in place of the step's noise and the scheme's
 * step): the state in sdk_x<v>, the parameters, sdk_t0 (step n's time),
 * sdk_dt and the controller's rows (SDK_ADAPT_ROW, the head) in scope;
 * `n`, `path` and `seed` C expressions of the step (sdk_i64), the global
 * path index and the seed (sdk_u64).  A periodic model's time-only values
 * are hoisted (expr_emit.h) and computed at each sub-step's phase time; tab
 * (the CUDA driver's, enabled: a per-phase table is possible; else NULL):
 * the whole steps of SDK_ADAPT_WHOLE read them from the table sdk_ttab at
 * phase sdk_phn instead, and tab records the values the table must hold. */
void sdk_cg_adaptive_step(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *path,
                          const char *seed, struct sdk_cg_hoist *tab);

#endif
