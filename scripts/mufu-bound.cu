// The special-function unit's measured peak (__sinf: FMUL + MUFU.SIN) and the
// all-pairs loop of PROG2 (a 256-particle tile in shared memory read as float4,
// sin(x_j - x_i) summed in float per tile, double across tiles) with the j range
// split over `split` blocks (more warps per SM) and ILP i's per thread: what the
// loop shape can reach, stripped of the step (docs/BENCHMARKS.md, issue 14).
//   nvcc -arch=sm_90 -O3 -use_fast_math scripts/mufu-bound.cu -o mufu-bound && ./mufu-bound
#include <cstdio>
#include <cuda_runtime.h>
__global__ void pure(float *out, int iters) {
  float a0 = threadIdx.x * 1e-3f, a1 = a0 + 0.1f, a2 = a0 + 0.2f, a3 = a0 + 0.3f;
  float a4 = a0 + 0.4f, a5 = a0 + 0.5f, a6 = a0 + 0.6f, a7 = a0 + 0.7f;
  for (int i = 0; i < iters; i++) {
    a0 = __sinf(a0);
    a1 = __sinf(a1);
    a2 = __sinf(a2);
    a3 = __sinf(a3);
    a4 = __sinf(a4);
    a5 = __sinf(a5);
    a6 = __sinf(a6);
    a7 = __sinf(a7);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
// the pair loop: tile of 256 x_j in shared memory (float4 reads), ILP i's per thread
template <int ILP> __global__ void pairs(const float *x, float *f, int n, int jsplit) {
  __shared__ float4 tile[64];
  int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * ILP;
  int part = blockIdx.y, jn = n / jsplit, jb = part * jn;
  float xi[ILP];
  double acc[ILP];
  for (int k = 0; k < ILP; k++) {
    xi[k] = x[(i0 + k) % n];
    acc[k] = 0;
  }
  for (int j0 = jb; j0 < jb + jn; j0 += 256) {
    __syncthreads();
    if (threadIdx.x < 64) tile[threadIdx.x] = reinterpret_cast<const float4 *>(x + j0)[threadIdx.x];
    __syncthreads();
    float s[ILP];
    for (int k = 0; k < ILP; k++)
      s[k] = 0;
#pragma unroll 8
    for (int j = 0; j < 64; j++) {
      float4 q = tile[j];
      for (int k = 0; k < ILP; k++)
        s[k] +=
            __sinf(q.x - xi[k]) + __sinf(q.y - xi[k]) + __sinf(q.z - xi[k]) + __sinf(q.w - xi[k]);
    }
    for (int k = 0; k < ILP; k++)
      acc[k] += s[k];
  }
  for (int k = 0; k < ILP; k++)
    f[(size_t)part * n + (i0 + k) % n] = (float)acc[k];
}
int main() {
  float *out, *x, *f;
  int n = 65536;
  cudaMalloc(&out, 132 * 2048 * 8 * sizeof(float));
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&f, (size_t)64 * n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float ms;
  int blocks = 132 * 8, iters = 20000;
  pure<<<blocks, 256>>>(out, 100);
  cudaEventRecord(a);
  pure<<<blocks, 256>>>(out, iters);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  cudaEventElapsedTime(&ms, a, b);
  printf("pure __sinf: %.3e /s\n", (double)blocks * 256 * iters * 8 / (ms * 1e-3));
  for (int split = 1; split <= 64; split *= 2) {
    for (int ilp = 1; ilp <= 2; ilp++) {
      dim3 grid(n / 256 / ilp, split);
      for (int r = 0; r < 2; r++) {
        cudaEventRecord(a);
        for (int rep = 0; rep < 5; rep++) {
          if (ilp == 1)
            pairs<1><<<grid, 256>>>(x, f, n, split);
          else
            pairs<2><<<grid, 256>>>(x, f, n, split);
        }
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
      }
      printf("pairs split %2d ilp %d: %.3e pairs/s\n", split, ilp,
             5.0 * n * (double)n / (ms * 1e-3));
    }
  }
  return 0;
}
