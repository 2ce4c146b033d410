/* sdekit: --observe psd computed by the kernel (codegen/psd.c).
 *
 * With opts.psd_m = M > 0 every path writes each sample of its quantities
 * (variables or user observables) into the host's ring rows of psd's block
 * (observe/obs_corr.h: the same rows, in the same order, as the host's
 * sampling) and at the end of each segment adds its periodogram to its sums
 * there (kernels/psd_seg.h, kernels/psd_fft.h): nothing is sampled, the
 * host reads the sums at the end (observe/obs_psd.c).  The sample clock is
 * acf's (codegen/acf.h): the state after step n is sample
 * (n + 1 - first) / every; with first = 0 the initial state is sample 0. */
#ifndef SDK_CODEGEN_PSD_H
#define SDK_CODEGEN_PSD_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* The prelude's part (common.c): the constants, the kernel files. */
void sdk_cg_psd_defs(sdk_emit *em, const sdk_codegen_opts *o);
/* The sample after step `step` (an sdk_i64 expression) of the path whose
 * state row 0 is at `base` (a real * expression, rows npad apart), its
 * variables named by x_fmt (the parameters and sdk_dt in scope). */
void sdk_cg_psd_step(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *x_fmt,
                     const char *base);
/* CPU: after the vector loop of step n over the block's paths, the
 * transforms of the segments that end there (a call in the loop would keep
 * it from vectorising). */
void sdk_cg_psd_cpu_segments(sdk_emit *em, const sdk_codegen_opts *o);
/* Before the first step (`step0` the launch's first step): without a
 * transient, the initial state is sample 0 (no step makes it). */
void sdk_cg_psd_first(sdk_emit *em, const sdk_codegen_opts *o, const char *step0, const char *x_fmt,
                      const char *base);

#endif
