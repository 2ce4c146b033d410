/* A host shim for reading CUDA kernel files as C++ (tests/kernels/check.sh,
 * on machines without the CUDA toolkit, CI included): the CUDA keywords as
 * nothing and the device intrinsics the kernel files call as declarations
 * of their types.  It checks syntax, names and types, not CUDA's rules
 * (where __shared__ may stand, what a __device__ function may call, launch
 * bounds): that is test_kernel_nvrtc's (NVRTC, label gpu).  A kernel file
 * that calls another intrinsic declares it here. */
#ifndef SDK_TEST_HOST_CUDA_H
#define SDK_TEST_HOST_CUDA_H

#include <cmath>
#include <cstddef>

#define __device__
#define __constant__
#define __global__
#define __host__
#define __shared__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
float4 make_float4(float, float, float, float);
double2 make_double2(double, double);

struct sdk_host_uint3_ {
  unsigned x, y, z;
};
extern const sdk_host_uint3_ threadIdx, blockIdx, blockDim, gridDim;

long long __double_as_longlong(double);
double __longlong_as_double(long long);
int __float_as_int(float);
float __int_as_float(int);
double __dmul_rn(double, double);
float __fmul_rn(float, float);
double __dadd_rn(double, double);
double __dsub_rn(double, double);
double __fma_rn(double, double, double);
unsigned __umulhi(unsigned, unsigned);
template <class T> T __ldcg(const T *);
int __popc(unsigned);
int __all_sync(unsigned, int);
int __any_sync(unsigned, int);
unsigned __ballot_sync(unsigned, int);
template <class T> T __shfl_sync(unsigned, T, int);
template <class T> T __shfl_up_sync(unsigned, T, unsigned);
template <class T> T __shfl_down_sync(unsigned, T, unsigned);
template <class T> T __shfl_xor_sync(unsigned, T, int);
void __syncwarp(unsigned = 0xffffffffu);
void __syncthreads();
template <class T> T atomicAdd(T *, T);
template <class T> T atomicMin(T *, T);
template <class T> T atomicMax(T *, T);

#endif
