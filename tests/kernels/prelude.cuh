/* The holes of the CUDA kernel files (src/codegen/kernels/NAME.cuh) with
 * typical values, for compiling each file on its own through NVRTC; the
 * generator defines them before the files (common.c, cuda_paths.c). */
typedef double real;
typedef long long sdk_i64;
typedef unsigned long long sdk_u64;
#define SDK_NV 2
#define SDK_NN 1
#define SDK_NSV 1
#define SDK_TPB 256
#define SDK_ILP 1
#define SDK_TT_SLOTS 2
#define SDK_TT_PHASES 100
