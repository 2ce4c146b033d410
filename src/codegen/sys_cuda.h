/* sdekit: the CUDA system driver's parts (sys_cuda*.c; sys_cuda.c explains
 * the kernels and their reduction contract). */
#ifndef SDK_CODEGEN_SYS_CUDA_H
#define SDK_CODEGEN_SYS_CUDA_H

#include "codegen/emit.h"
#include "codegen/opts.h"
#include "codegen/sys.h"

/* sys_cuda_common.c: kernels/sys_step.cuh, its kernel sdk_sys_sums (sums =
 * 1), sdk_sys_step_half (half = 1) or sdk_sys_step, with the pair models'
 * hooks (emit.h; none for mean-field models). */
void sdk_cg_sys_step_kernel(sdk_emit *em, int sums, int half, const sdk_em_hook *hooks, int nhooks,
                            const void *ctx);
/* Bind the model's variable names to sdk_x<v>, and t to step n (next = 0)
 * or, in mode 1, to step n + 1 (next = 1). */
void sdk_cg_sys_bind_state(sdk_emit *em, const sdk_codegen_opts *o, int next);
/* The particle parameters of global particle sdk_gp: drawn (sdk_pp<k>, the
 * ones not the same for every particle), then bound to their names. */
void sdk_cg_sys_draw_params(sdk_emit *em, const sdk_codegen_opts *o);
/* An active particle's terms of the system sums, at x_{n+1}: sdk_acc[k]. */
void sdk_cg_sys_accumulate(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red);
/* The kernels of the two model kinds (sys_cuda_mf.c, sys_cuda_pairs.c). */
void sdk_cg_sys_meanfield(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red);
void sdk_cg_sys_pairs(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red);

#endif
