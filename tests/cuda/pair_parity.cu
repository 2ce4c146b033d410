// The functions that codegen/pair_sym.c treats as odd or even under
// exchanging the particles i and j must be odd or even bit for bit in the
// CUDA code the generator emits (single precision: sinf, ... which fast math
// turns into __sinf, __cosf, __tanf; double: sin, ...), or the half
// all-pairs kernel would not give the full loop's bits.  Every finite
// non-negative float x: f(-x) == -f(x) (odd) or f(-x) == f(x) (even) bit for
// bit (NaN results: both NaN); 2^26 doubles of magnitudes 2^-30 .. 2^30.
// Built twice, with and without -use_fast_math (the generator's two modes).
// (tanh is not in the lists: with fast math, tanhf(-d) != -tanhf(d) for every
// denormal d, which this test found.)
//
//   nvcc -arch=sm_90 [-use_fast_math] -o pair_parity tests/cuda/pair_parity.cu && ./pair_parity
//
// Exit status: 0 pass, 1 failure, 77 no CUDA device (skip).
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>

// the lists of pair_sym.c (ODD_FNS, EVEN_FNS): name, float, double, odd
#define FUNCS(X)                                                                                   \
  X(sin, sinf, sin, 1)                                                                             \
  X(tan, tanf, tan, 1)                                                                             \
  X(asin, asinf, asin, 1)                                                                          \
  X(atan, atanf, atan, 1)                                                                          \
  X(sinh, sinhf, sinh, 1)                                                                          \
  X(cbrt, cbrtf, cbrt, 1)                                                                          \
  X(erf, erff, erf, 1)                                                                             \
  X(round, roundf, round, 1)                                                                       \
  X(cos, cosf, cos, 0)                                                                             \
  X(cosh, coshf, cosh, 0)                                                                          \
  X(fabs, fabsf, fabs, 0)

#define COUNT(n, f, d, odd) +1
enum { NF = 0 FUNCS(COUNT) };

__device__ static bool same_f(float a, float b, int odd) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  unsigned ua = __float_as_uint(a), ub = __float_as_uint(b);
  return ua == (odd ? ub ^ 0x80000000u : ub);
}
__device__ static bool same_d(double a, double b, int odd) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  unsigned long long ua = __double_as_longlong(a), ub = __double_as_longlong(b);
  return ua == (odd ? ub ^ 0x8000000000000000ull : ub);
}

// bad[2 k]: floats failing function k, bad[2 k + 1]: doubles
__global__ void check(unsigned long long *bad) {
  unsigned long long nb[2 * NF] = {0};
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < 0x7f800000u; u += stride) {
    const float x = __uint_as_float(u);
    int k = 0;
#define CHECK_F(n, f, d, odd)                                                                      \
  nb[2 * k] += !same_f(f(x), f(-x), odd);                                                          \
  k++;
    FUNCS(CHECK_F)
  }
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < (1ull << 26);
       i += stride) {
    unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    const double x = ldexp(1.0 + (double)(h >> 11) * 0x1p-53, (int)(h % 61) - 30);
    int k = 0;
#define CHECK_D(n, f, d, odd)                                                                      \
  nb[2 * k + 1] += !same_d(d(x), d(-x), odd);                                                      \
  k++;
    FUNCS(CHECK_D)
  }
  for (int k = 0; k < 2 * NF; k++)
    if (nb[k]) atomicAdd(&bad[k], nb[k]);
}

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    printf("pair_parity: no CUDA device, skipped\n");
    return 77;
  }
  unsigned long long *bad, hb[2 * NF];
  if (cudaMalloc(&bad, sizeof hb) != cudaSuccess || cudaMemset(bad, 0, sizeof hb) != cudaSuccess)
    return 1;
  check<<<4096, 256>>>(bad);
  if (cudaMemcpy(hb, bad, sizeof hb, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("pair_parity: kernel failed\n");
    return 1;
  }
  static const char *const names[] = {
#define NAME(n, f, d, odd) #n,
      FUNCS(NAME)};
  static const int odd[] = {
#define ODD(n, f, d, o) o,
      FUNCS(ODD)};
  int fails = 0;
#ifdef SDK_FAST_MATH
  const char *mode = "fast math";
#else
  const char *mode = "no fast math";
#endif
  for (int k = 0; k < NF; k++) {
    printf("%-6s %s (%s): %llu of 2139095040 floats and %llu of 2^26 doubles break it\n", names[k],
           odd[k] ? "odd" : "even", mode, hb[2 * k], hb[2 * k + 1]);
    fails += hb[2 * k] != 0 || hb[2 * k + 1] != 0;
  }
  printf("pair_parity (%s): %d of %d functions %s\n", mode, NF - fails, NF,
         fails ? "FAILED" : "passed");
  return fails ? 1 : 0;
}
