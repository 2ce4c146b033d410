/* The holes of the CUDA kernel files (src/codegen/kernels/NAME.cuh): those of
 * prelude.h, which is valid CUDA too, and the ones only CUDA text has.  test_kernel_nvrtc writes this file (its includes expanded) before
 * each kernels/NAME.cuh and compiles the two through NVRTC; check.sh includes
 * it after host_cuda.h to read the files as host C++. */
#ifndef SDK_TEST_KERNEL_PRELUDE_CUH
#define SDK_TEST_KERNEL_PRELUDE_CUH

#include "prelude.h"

/* cuda_paths.c: the fixed paths per thread (kept for the kernel identity),
 * the time table of periodic drives */
#define SDK_ILP 1
#define SDK_TT_SLOTS 2
#define SDK_TT_PHASES 100

#endif
