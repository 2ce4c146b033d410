/* sdekit: the CUDA system driver's parts (sys_cuda*.c; sys_cuda.c explains
 * the kernels and their reduction contract). */
#ifndef SDK_CODEGEN_SYS_CUDA_H
#define SDK_CODEGEN_SYS_CUDA_H

#include "codegen/emit.h"
#include "codegen/opts.h"
#include "codegen/sys.h"

/* sys_cuda_common.c: the head of sdk_sys_step shared by both model kinds
 * (then one level deep; name: the kernel's, extra: more parameters after
 * sdk_b0, e.g. ", const real *p"), and its end: the last block of the system
 * forms its sums (and the order parameter) and the kernel closes. */
void sdk_cg_sys_step_head(sdk_emit *em, const char *name, const char *extra);
void sdk_cg_sys_step_end(sdk_emit *em, const sdk_cg_red *red);
/* sdk_sys_sums: the systems' sums from every rank's group sums (systems
 * spanning MPI ranks, mean-field modules). */
void sdk_cg_sys_sums_kernel(sdk_emit *em, const sdk_cg_red *red);
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
