/* The reduction kernels of the CUDA backend, part of every CUDA module: the
 * fixed text of kernels/reduce.cuh after the two sizes of abi.h it needs. */
#include "codegen/drivers.h"

extern const char sdk_embedded_reduce_cuh[];

void sdk_cg_cuda_reductions(sdk_emit *em) {
  sdk_em_line(em, "#define SDK_RED_FOLD %d", SDK_RED_FOLD);
  sdk_em_line(em, "#define SDK_RED_WARPS %d", SDK_RED_WARPS);
  sdk_em_kernel(em, sdk_embedded_reduce_cuh);
}
