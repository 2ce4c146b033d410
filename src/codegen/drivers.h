/* sdekit: the drivers, the loops around the step (called by codegen.c).
 *
 * A module is the prelude (common.h), then a head with the ABI entries and
 * sdk_init (shared by independent paths and systems of particles), then
 * either the driver of independent paths or the system driver of the
 * target, and on CUDA the reduction kernels. */
#ifndef SDK_CODEGEN_DRIVERS_H
#define SDK_CODEGEN_DRIVERS_H

#include "codegen/abi.h"
#include "codegen/emit.h"
#include "codegen/opts.h"

/* CPU (cpu_paths.c): ABI entries and sdk_init; sdk_advance of independent paths. */
void sdk_cg_cpu_head(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_cpu_paths(sdk_emit *em, const sdk_codegen_opts *o);
/* CUDA (cuda_paths.c, cuda_reduce.c): ABI entries and sdk_init; sdk_advance
 * of independent paths; the reduction kernels of the backend. */
void sdk_cg_cuda_head(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_cuda_paths(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_cuda_reductions(sdk_emit *em);
/* User observables (observe_paths.c): sdk_observe, for models with an
 * [observe] section or --observe-expr, independent paths only. */
void sdk_cg_observe(sdk_emit *em, const sdk_codegen_opts *o);
/* CUDA: sdk_observe_units, their evaluation fused with their reduction
 * (after sdk_cg_cuda_reductions, whose device functions it calls). */
void sdk_cg_observe_units(sdk_emit *em, const sdk_codegen_opts *o);
/* Time averages (observe_paths.c, codegen.h): a block adding every user
 * observable and every variable at the state after a step into the
 * accumulators; x_fmt, s_fmt, e_fmt: printf formats of an index giving
 * variable v, sum S_j and error E_j; n_after: the step index of the state
 * (an sdk_i64 expression).  Needs the parameters and sdk_dt in scope. */
void sdk_cg_tavg_add(sdk_emit *em, const sdk_codegen_opts *o, const char *x_fmt, const char *s_fmt,
                     const char *e_fmt, const char *n_after);
/* Systems of interacting particles (sys_cpu.c; sys_cuda.c, sys_cuda_mf.c). */
void sdk_cg_sys_cpu(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_sys_cuda(sdk_emit *em, const sdk_codegen_opts *o);

#endif
