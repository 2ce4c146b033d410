/* sdekit: the pieces of a kernel module every driver uses: the prelude, the
 * model's parameters and the initial conditions (common.c). */
#ifndef SDK_CODEGEN_COMMON_H
#define SDK_CODEGEN_COMMON_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* The head of every module: provenance comment, `real`, the embedded
 * rng/philox.h, SDK_NV / SDK_NN / SDK_NSV, the precision's random-number
 * functions and, with compensation, SDK_OPQ (codegen.h). */
void sdk_cg_prelude(sdk_emit *em, const sdk_codegen_opts *o);
/* Parameter declarations of one path, then sdk_dt and sdk_sqdt; `sp_fmt` is
 * a printf format taking a column of sv and yielding that path's value. */
void sdk_cg_params(sdk_emit *em, const sdk_codegen_opts *o, const char *sp_fmt);
/* The parameters that are the same for every path. */
void sdk_cg_fixed_params(sdk_emit *em, const sdk_codegen_opts *o);
/* The [particle] parameters of independent paths (codegen.h) as locals of
 * a path's code: "const real NAME = ...;" for each, a constant one from its
 * value, the others from fmt (printf with the parameter's row within the
 * block, sdk_cg_ppar_row); fmt NULL: only "(void)NAME;" for those (they are
 * the arguments of a function) and the constants. */
void sdk_cg_ppar_bind(sdk_emit *em, const sdk_codegen_opts *o, const char *fmt);
/* Initial conditions of one path: needs the parameters, sdk_seed and
 * sdk_gpath in scope; assigns sdk_x<v> (rng/philox.h domain 1). */
void sdk_cg_init(sdk_emit *em, const sdk_codegen_opts *o);

/* sdk_init: the kernel file `file` (kernels/init.h or init.cuh) with, at its
 * hook `path`, the body for path p of grid point g: its parameters (sv), its
 * initial state into st (rows 0..nvars-1), with compensation the zero
 * carried errors (rows nvars..) and with hi the high parts (rows 2 nvars..,
 * codegen.h: deferred compensation). */
void sdk_cg_init_kernel(sdk_emit *em, const sdk_codegen_opts *o, const char *file, int hi);

#endif
