/* The paper's GPU programs (Januszewski & Kostur 2010), written from its
 * description, as baselines for `sdekit bench`: run on a CUDA backend opened
 * by the caller, in the same process as sdekit's own kernels.  Kept out of
 * the library: they compute nothing sdekit reports as a result. */
#ifndef SDK_BENCH_PROG_CUDA_H
#define SDK_BENCH_PROG_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

/* The paper's PROG1 kernel (xorshift, Box-Muller, SRK2, float time, 100 steps
 * per launch, fast math) on the opened CUDA device: median time in ms of
 * `steps` steps of `paths` paths over `repeats`, CUDA events. */
sdk_err sdk_cuda_bench_prog1(sdk_bctx *c, int64_t paths, int64_t steps, int repeats,
                             double *median_ms, double *checksum, sdk_errbuf *eb);

/* The paper's PROG3 (pairs = 0: mean-field sums through the host every step)
 * or PROG2 (pairs = 1: tiled all-pairs UpdateRHS + AdvanceSystem) for the
 * Kuramoto model (K = 4, T = 1, dt = 1/128, uniform initial phases), written
 * from its description: median time in ms of `steps` steps of one system of
 * `particles` over `repeats` (CUDA events), and the final order parameter.
 * The cubin goes to the opened backend's tuning.baseline_cubin when set
 * (SDEKIT_BASELINE_CUBIN: SASS comparisons; a warning when it cannot be written). */
sdk_err sdk_cuda_bench_kuramoto_paper(sdk_bctx *c, int pairs, int64_t particles, int64_t steps,
                                      int repeats, double *median_ms, double *r_end,
                                      sdk_errbuf *eb);

/* Device memory bandwidth for the roofline of `sdekit bench`: a device-to-device
 * copy of `bytes` bytes, median of `repeats` (CUDA events); *GBps counts the
 * bytes read plus the bytes written. */
sdk_err sdk_cuda_bench_copy(sdk_bctx *c, size_t bytes, int repeats, double *GBps, sdk_errbuf *eb);

#endif
