// Prototype: all pairs of an antisymmetric pair function evaluated once per
// unordered pair (Newton's third law) against the full tiled loop, with the
// same per-tile float sums bit for bit (docs/BENCHMARKS.md, issue 14).
//   nvcc -arch=sm_90 -O3 -use_fast_math scripts/sym-pairs.cu -o sym-pairs && ./sym-pairs
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>
#define T 256
#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                            \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

// the oddness of the special functions: count x with f(-x) != -f(x) bitwise
__global__ void odd_f(unsigned lo, unsigned hi, unsigned long long *bad) {
  unsigned long long nb = 0;
  for (unsigned u = lo + blockIdx.x * blockDim.x + threadIdx.x; u < hi;
       u += gridDim.x * blockDim.x) {
    float x = __uint_as_float(u);
    float a = __sinf(x), b = __sinf(-x);
    nb += __float_as_uint(a) != (__float_as_uint(b) ^ 0x80000000u);
  }
  atomicAdd(bad, nb);
}
__global__ void odd_d(unsigned long long n, unsigned long long *bad) {
  unsigned long long nb = 0;
  for (unsigned long long k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += gridDim.x * blockDim.x) {
    unsigned long long h = (k + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    double x = (double)(h >> 11) * 0x1p-53 * 200.0 - 100.0;
    double a = sin(x), b = sin(-x);
    nb += __double_as_longlong(a) != (__double_as_longlong(b) ^ 0x8000000000000000ll);
  }
  atomicAdd(bad, nb);
}

// full: P[J][i] = sum_{j in J} sin(x_j - x_i), j ascending, in float
__global__ void __launch_bounds__(T) full_pairs(const float *x, float *P, int N) {
  __shared__ float4 tile[64];
  int i = blockIdx.x * T + threadIdx.x, nt = N / T;
  float xi = x[i];
  for (int J = 0; J < nt; J++) {
    __syncthreads();
    if (threadIdx.x < 64)
      tile[threadIdx.x] = reinterpret_cast<const float4 *>(x + J * T)[threadIdx.x];
    __syncthreads();
    float a = 0;
#pragma unroll 8
    for (int q = 0; q < 64; q++) {
      float4 v = tile[q];
      a += __sinf(v.x - xi);
      a += __sinf(v.y - xi);
      a += __sinf(v.z - xi);
      a += __sinf(v.w - xi);
    }
    P[(size_t)J * N + i] = a;
  }
}

// symmetric: a warp owns row tile I (8 rows per lane) and a stream of column
// tiles J = I + d (mod nt), d in [d0, d1); column blocks of 4 flow through the
// lanes (lane l works on block tau - l), their sums passed lane to lane, so
// row i adds j ascending and column j adds i ascending: the full loop's orders.
__global__ void __launch_bounds__(128)
    sym_pairs(const float *__restrict__ x, float *P, int N, const int4 *work, int nwork) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (w >= nwork) return;
  const int lane = threadIdx.x & 31, nt = N / T;
  const int4 wk = work[w];
  const int I = wk.x, d0 = wk.y, d1 = wk.z;
  float xi[8], ai[8];
  {
    float4 p = __ldg(reinterpret_cast<const float4 *>(x + I * T + 8 * lane));
    float4 q = __ldg(reinterpret_cast<const float4 *>(x + I * T + 8 * lane) + 1);
    xi[0] = p.x, xi[1] = p.y, xi[2] = p.z, xi[3] = p.w, xi[4] = q.x, xi[5] = q.y, xi[6] = q.z,
    xi[7] = q.w;
  }
#pragma unroll
  for (int r = 0; r < 8; r++)
    ai[r] = 0;
  float aj0 = 0, aj1 = 0, aj2 = 0, aj3 = 0;
  const int K = (d1 - d0) * 64;
  for (int tau = 0; tau < K + 31; tau++) {
    const int b = tau - lane;
    const bool valid = b >= 0 && b < K;
    const int bc = valid ? b : 0, d = d0 + (bc >> 6), cb = bc & 63;
    int J = I + d;
    if (J >= nt) J -= nt;
    if (valid) {
      const float4 xj = __ldg(reinterpret_cast<const float4 *>(x + J * T) + cb);
#pragma unroll
      for (int r = 0; r < 8; r++) {
        float v;
        v = __sinf(xj.x - xi[r]);
        ai[r] += v;
        aj0 -= v;
        v = __sinf(xj.y - xi[r]);
        ai[r] += v;
        aj1 -= v;
        v = __sinf(xj.z - xi[r]);
        ai[r] += v;
        aj2 -= v;
        v = __sinf(xj.w - xi[r]);
        ai[r] += v;
        aj3 -= v;
      }
      if (cb == 63) {
        float4 *o = reinterpret_cast<float4 *>(P + (size_t)J * N + I * T + 8 * lane);
        o[0] = make_float4(ai[0], ai[1], ai[2], ai[3]);
        o[1] = make_float4(ai[4], ai[5], ai[6], ai[7]);
#pragma unroll
        for (int r = 0; r < 8; r++)
          ai[r] = 0;
      }
      if (lane == 31 && d != 0)
        reinterpret_cast<float4 *>(P + (size_t)I * N + J * T)[cb] = make_float4(aj0, aj1, aj2, aj3);
    }
    aj0 = __shfl_up_sync(0xffffffffu, aj0, 1);
    aj1 = __shfl_up_sync(0xffffffffu, aj1, 1);
    aj2 = __shfl_up_sync(0xffffffffu, aj2, 1);
    aj3 = __shfl_up_sync(0xffffffffu, aj3, 1);
    if (lane == 0) aj0 = aj1 = aj2 = aj3 = 0;
  }
}

// F_i = sum over tiles in order, in double
__global__ void combine(const float *P, double *F, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, nt = N / T;
  double a = 0;
  for (int J = 0; J < nt; J++)
    a += (double)P[(size_t)J * N + i];
  F[i] = a;
}

static std::vector<int4> schedule(int nt, int S) {
  std::vector<int4> w;
  for (int I = 0; I < nt; I++) {
    int h = (nt - 1) / 2; // d = 0 (diagonal) .. h, and nt/2 for I < nt/2 when nt is even
    int dmax = h + ((nt % 2 == 0 && I < nt / 2) ? 1 : 0);
    int cnt = dmax + 1;
    for (int s = 0; s < S; s++) {
      int a = cnt * s / S, b = cnt * (s + 1) / S;
      if (b > a) w.push_back(make_int4(I, a, b, 0));
    }
  }
  return w;
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 65536;
  unsigned long long *bad;
  CK(cudaMalloc(&bad, 8));
  CK(cudaMemset(bad, 0, 8));
  odd_f<<<2048, 256>>>(0u, 0x43000000u, bad); // every float in [0, 128)
  unsigned long long hb = 0;
  CK(cudaMemcpy(&hb, bad, 8, cudaMemcpyDeviceToHost));
  printf("__sinf(-x) != -__sinf(x) for %llu of the %u floats in [0, 128)\n", hb, 0x43000000u);
  CK(cudaMemset(bad, 0, 8));
  odd_d<<<2048, 256>>>(1ull << 30, bad);
  CK(cudaMemcpy(&hb, bad, 8, cudaMemcpyDeviceToHost));
  printf("sin(-x) != -sin(x) (double) for %llu of 2^30 random x in [-100, 100)\n", hb);

  std::vector<float> hx(N);
  srand(7);
  for (int i = 0; i < N; i++)
    hx[i] = (float)(6.283185307179586 * rand() / (RAND_MAX + 1.0));
  float *x, *P1, *P2;
  double *F;
  int nt = N / T;
  CK(cudaMalloc(&x, N * 4));
  CK(cudaMalloc(&P1, (size_t)nt * N * 4));
  CK(cudaMalloc(&P2, (size_t)nt * N * 4));
  CK(cudaMalloc(&F, N * 8));
  CK(cudaMemcpy(x, hx.data(), N * 4, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto timeit = [&](auto fn) {
    std::vector<float> ts;
    for (int r = 0; r < 7; r++) {
      cudaEventRecord(e0);
      fn();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    return ts[3];
  };
  double pairs = (double)N * N;
  auto full = [&] {
    full_pairs<<<nt, T>>>(x, P1, N);
    combine<<<N / 256, 256>>>(P1, F, N);
  };
  full();
  CK(cudaDeviceSynchronize());
  float tf = timeit(full);
  printf("N = %d: full loop + combine %.3f ms  %.3e pairs/s\n", N, tf, pairs / (tf * 1e-3));
  for (int S : {2, 4, 8, 16, 32}) {
    std::vector<int4> w = schedule(nt, S);
    int4 *dw;
    CK(cudaMalloc(&dw, w.size() * sizeof(int4)));
    CK(cudaMemcpy(dw, w.data(), w.size() * sizeof(int4), cudaMemcpyHostToDevice));
    int nw = (int)w.size();
    CK(cudaMemset(P2, 0xff, (size_t)nt * N * 4));
    auto sym = [&] {
      sym_pairs<<<(nw + 3) / 4, 128>>>(x, P2, N, dw, nw);
      combine<<<N / 256, 256>>>(P2, F, N);
    };
    sym();
    CK(cudaDeviceSynchronize());
    size_t diff = 0;
    std::vector<unsigned> a((size_t)nt * N), b((size_t)nt * N);
    CK(cudaMemcpy(a.data(), P1, a.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), P2, b.size() * 4, cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < a.size(); k++)
      diff += a[k] != b[k];
    float ts = timeit(sym);
    float tf2 = timeit(full);
    printf("S = %2d (%5d warps): sym %.3f ms %.3e pairs/s, full again %.3f ms: ratio %.3f; "
           "partials differing: %zu of %zu\n",
           S, nw, ts, pairs / (ts * 1e-3), tf2, tf2 / ts, diff, a.size());
    cudaFree(dw);
  }
  return 0;
}
