/* A host shim that runs CUDA kernel source as C++ (scripts/cuda-host-adaptive.sh):
 * tests/kernels/host_cuda.h's keywords and declarations, given bodies (one
 * thread at a time: a warp vote is the lane's own value), and thread and
 * block indices the caller sets. */
#include "../../tests/kernels/host_cuda.h"

#include <cstdio>
#include <cstdlib>
using std::fabs;
using std::floor;
using std::fmax;
using std::fmod;
using std::log;
using std::sqrt;

sdk_host_uint3_ sdk_thread_, sdk_block_;
const sdk_host_uint3_ threadIdx = {}, blockIdx = {}, blockDim = {}, gridDim = {}; /* (unused) */
#define threadIdx sdk_thread_
#define blockIdx sdk_block_

float4 make_float4(float a, float b, float c, float d) {
  return {a, b, c, d};
}
double2 make_double2(double a, double b) {
  return {a, b};
}
/* (bit casts and atomics: the reductions', never called here) */
long long __double_as_longlong(double) {
  return 0;
}
double __longlong_as_double(long long) {
  return 0;
}
int __float_as_int(float) {
  return 0;
}
float __int_as_float(int) {
  return 0;
}
template <class T> T atomicMin(T *p, T) {
  return *p;
}
template <class T> T atomicMax(T *p, T) {
  return *p;
}
double __dmul_rn(double a, double b) {
  return a * b;
}
float __fmul_rn(float a, float b) {
  return a * b;
}
double __dadd_rn(double a, double b) {
  return a + b;
}
double __dsub_rn(double a, double b) {
  return a - b;
}
double __fma_rn(double a, double b, double c) {
  return std::fma(a, b, c);
}
unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
template <class T> T __ldcg(const T *p) {
  return *p;
}
int __popc(unsigned x) {
  return __builtin_popcount(x);
}
int __all_sync(unsigned, int p) {
  return p;
}
int __any_sync(unsigned, int p) {
  return p;
}
unsigned __ballot_sync(unsigned, int p) {
  return p != 0;
}
template <class T> T __shfl_sync(unsigned, T v, int) {
  return v;
}
template <class T> T __shfl_up_sync(unsigned, T v, unsigned) {
  return v;
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned) {
  return v;
}
template <class T> T __shfl_xor_sync(unsigned, T v, int) {
  return v;
}
void __syncwarp(unsigned) {}
void __syncthreads() {}
template <class T> T atomicAdd(T *p, T v) {
  T o = *p;
  *p += v;
  return o;
}
