/* Typical values of the holes of the CUDA kernel files
 * (src/codegen/kernels/NAME.cuh; the generator defines them before each
 * file), so that every kernel file compiles on its own:
 * NVRTC (or nvcc -x cu -include tests/kernels/prelude.cuh). */
typedef float real;
typedef long long sdk_i64;
typedef unsigned long long sdk_u64;
#define SDK_NV 2
#define SDK_NN 1
/* systems of particles (codegen/sys_cuda.c) */
#define SDK_NRED 2
#define SDK_STPB 256
#define SDK_SINGLE 1
