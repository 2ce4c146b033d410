// GPU against CPU for rng/philox.h: the header's functions are compiled as
// __host__ __device__, so host calls run its C branch (built by nvcc's host
// compiler) and device calls its CUDA branch (__umulhi, sincospi).  For 2^20
// (seed, path, block, domain) tuples the Philox words must agree bit for bit
// and the Gaussians to 1e-6 (float) / 1e-14 (double) relative.
//
//   nvcc -arch=sm_90 -o kat_cuda tests/cuda/kat_cuda.cu && ./kat_cuda
//
// Exit status: 0 pass, 1 failure, 77 no CUDA device (skip).
#define SDK_RNG_FN __host__ __device__ __forceinline__
#include "../../src/rng/philox.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

static const int N = 1 << 20;

__host__ __device__ static sdk_u64 mix64(sdk_u64 z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Tuple i: random seed and path; blocks mostly small, sometimes using the
// high word; all four domains in turn.
__host__ __device__ static void tuple(int i, sdk_u64 *seed, sdk_u64 *path, sdk_u64 *block,
                                      sdk_u32 *domain) {
  *seed = mix64(3 * (sdk_u64)i);
  *path = mix64(3 * (sdk_u64)i + 1);
  sdk_u64 b = mix64(3 * (sdk_u64)i + 2);
  *block = (i & 2) ? (b & 0x7fffffffffffffffull) : (b & 0xffff);
  *domain = (sdk_u32)(i & 3);
}

__global__ void kat_kernel(int n, sdk_u32 *words, float *gf, double *gd) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sdk_u64 seed, path, block;
  sdk_u32 domain;
  tuple(i, &seed, &path, &block, &domain);
  sdk_philox4x32_10((sdk_u32)block, (sdk_u32)(block >> 32) & 0x7fffffffu, (sdk_u32)path,
                    (sdk_u32)(path >> 32), (sdk_u32)seed, (sdk_u32)(seed >> 32), words + 8 * i);
  sdk_philox_block(seed, path, block, domain, words + 8 * i + 4);
  sdk_gauss4_f(seed, path, block, domain, gf + 4 * i);
  sdk_gauss4_d(seed, path, block, domain, gd + 4 * i);
}

// Random123 kat_vectors (philox4x32, 10 rounds): counter, key, output.
__host__ __device__ static void kat_vector(int v, sdk_u32 c[4], sdk_u32 k[2], sdk_u32 want[4]) {
  const sdk_u32 t[3][10] = {{0, 0, 0, 0, 0, 0, 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
                            {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                             0xffffffffu, 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
                            {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u,
                             0x299f31d0u, 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}};
  for (int j = 0; j < 4; j++)
    c[j] = t[v][j], want[j] = t[v][6 + j];
  k[0] = t[v][4], k[1] = t[v][5];
}

__global__ void kat_vector_kernel(sdk_u32 *out) {
  int v = threadIdx.x;
  if (v >= 3) return;
  sdk_u32 c[4], k[2], want[4];
  kat_vector(v, c, k, want);
  sdk_philox4x32_10(c[0], c[1], c[2], c[3], k[0], k[1], out + 4 * v);
}

static bool close_rel(double got, double want, double rel) {
  return fabs(got - want) <= rel * fabs(want) + 1e-300;
}

int main(void) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("kat_cuda: no CUDA device, skipped\n");
    return 77;
  }
  sdk_u32 *dw;
  float *dgf;
  double *dgd;
  if (cudaMalloc(&dw, sizeof(sdk_u32) * 8 * N) != cudaSuccess ||
      cudaMalloc(&dgf, sizeof(float) * 4 * N) != cudaSuccess ||
      cudaMalloc(&dgd, sizeof(double) * 4 * N) != cudaSuccess) {
    printf("kat_cuda: cudaMalloc failed\n");
    return 1;
  }
  kat_kernel<<<(N + 255) / 256, 256>>>(N, dw, dgf, dgd);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    printf("kat_cuda: kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::vector<sdk_u32> w(8 * (size_t)N);
  std::vector<float> gf(4 * (size_t)N);
  std::vector<double> gd(4 * (size_t)N);
  cudaMemcpy(w.data(), dw, sizeof(sdk_u32) * w.size(), cudaMemcpyDeviceToHost);
  cudaMemcpy(gf.data(), dgf, sizeof(float) * gf.size(), cudaMemcpyDeviceToHost);
  cudaMemcpy(gd.data(), dgd, sizeof(double) * gd.size(), cudaMemcpyDeviceToHost);
  cudaFree(dw);
  cudaFree(dgf);
  cudaFree(dgd);

  // Known-answer vectors on the device and on the host.
  long passed = 0, failed = 0;
  {
    sdk_u32 *dk, kw[12];
    cudaMalloc(&dk, sizeof kw);
    kat_vector_kernel<<<1, 32>>>(dk);
    err = cudaMemcpy(kw, dk, sizeof kw, cudaMemcpyDeviceToHost);
    cudaFree(dk);
    for (int v = 0; v < 3; v++) {
      sdk_u32 c[4], k[2], want[4], o[4];
      kat_vector(v, c, k, want);
      sdk_philox4x32_10(c[0], c[1], c[2], c[3], k[0], k[1], o);
      bool ok = err == cudaSuccess;
      for (int j = 0; j < 4; j++)
        ok = ok && o[j] == want[j] && kw[4 * v + j] == want[j];
      ok ? passed++ : failed++;
      if (!ok) printf("kat_cuda: known-answer vector %d differs (host or device)\n", v);
    }
  }

  double maxf = 0, maxd = 0;
  int shown = 0;
  for (int i = 0; i < N; i++) {
    sdk_u64 seed, path, block;
    sdk_u32 domain;
    tuple(i, &seed, &path, &block, &domain);
    sdk_u32 o[8];
    float hf[4];
    double hd[4];
    sdk_philox4x32_10((sdk_u32)block, (sdk_u32)(block >> 32) & 0x7fffffffu, (sdk_u32)path,
                      (sdk_u32)(path >> 32), (sdk_u32)seed, (sdk_u32)(seed >> 32), o);
    sdk_philox_block(seed, path, block, domain, o + 4);
    sdk_gauss4_f(seed, path, block, domain, hf);
    sdk_gauss4_d(seed, path, block, domain, hd);
    bool ok = true;
    for (int j = 0; j < 8; j++)
      ok = ok && o[j] == w[8 * (size_t)i + j];
    for (int j = 0; j < 4; j++) {
      float g = gf[4 * (size_t)i + j];
      double h = gd[4 * (size_t)i + j];
      double ef = fabs((double)g - hf[j]) / (fabs((double)hf[j]) + 1e-30);
      double ed = fabs(h - hd[j]) / (fabs(hd[j]) + 1e-300);
      if (ef > maxf) maxf = ef;
      if (ed > maxd) maxd = ed;
      ok = ok && close_rel(g, hf[j], 1e-6) && close_rel(h, hd[j], 1e-14);
    }
    ok ? passed++ : failed++;
    if (!ok && shown++ < 5)
      printf("kat_cuda: tuple %d (seed %llx path %llx block %llx domain %u) differs: "
             "gpu f %.9g cpu f %.9g, gpu d %.17g cpu d %.17g\n",
             i, seed, path, block, domain, gf[4 * (size_t)i], hf[0], gd[4 * (size_t)i], hd[0]);
  }
  printf("kat_cuda: max relative difference GPU vs CPU: float %.3g, double %.3g\n", maxf, maxd);
  printf("kat_cuda: %ld passed, %ld failed\n", passed, failed);
  return failed ? 1 : 0;
}
