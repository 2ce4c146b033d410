/* The paper's baseline programs on the GPU for `sdekit bench` (see
 * prog_cuda.h), compiled by NVRTC and run through the CUDA backend's
 * driver tables (backend/cuda_internal.h). */
#include "bench/prog_cuda.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"
#include "core/atomicfile.h"

/* ---- the paper's PROG1 as a CUDA baseline for `sdekit bench` ----
 * Written here from the paper's description (Alg. 1 and 2): one thread per
 * path, a 32-bit xorshift generator per thread, two uniforms -> Box-Muller ->
 * two Gaussians per step, SRK2 for Eq. 1, float time t = t0 + i*dt, and
 * M = 100 steps per launch with the state in global memory between launches.
 * It is compiled with --use_fast_math like the original. */
static const char PROG1_SRC[] =
    "extern \"C\" __global__ void prog1(float *x_, float *v_, const float *a_, unsigned *seed_,\n"
    "                                  float t0, float dt, int m, float gamma, float omega,\n"
    "                                  float D, float f, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float x = x_[i], v = v_[i], a = a_[i];\n"
    "  unsigned s = seed_[i];\n"
    "  const float pi2 = 6.2831853f, sq = sqrtf(2.0f * gamma * D * dt);\n"
    "  for (int k = 0; k < m; k++) {\n"
    "    s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "    float u1 = (s + 1.0f) * 2.3283064e-10f;\n"
    "    s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "    float u2 = s * 2.3283064e-10f;\n"
    "    float r = sqrtf(-2.0f * logf(u1));\n"
    "    float n1 = r * cosf(pi2 * u2), n2 = r * sinf(pi2 * u2);\n"
    "    float psi = (n1 + n2) * 0.70710678f; /* one noise channel: both Gaussians used */\n"
    "    float t = t0 + k * dt;\n"
    "    float fx1 = v;\n"
    "    float fv1 = -gamma * v - pi2 * cosf(pi2 * x) + a * cosf(omega * t) + f;\n"
    "    float xt = x + dt * fx1, vt = v + dt * fv1 + sq * psi;\n"
    "    float fx2 = vt;\n"
    "    float fv2 = -gamma * vt - pi2 * cosf(pi2 * xt) + a * cosf(omega * (t + dt)) + f;\n"
    "    x = x + 0.5f * dt * (fx1 + fx2);\n"
    "    v = v + 0.5f * dt * (fv1 + fv2) + sq * psi;\n"
    "  }\n"
    "  x_[i] = x; v_[i] = v; seed_[i] = s;\n"
    "}\n";

/* The paper's PROG3 and PROG2 for the Kuramoto model (Eq. 2 with w_i = 0),
 * written from its description (Sec. 5): xorshift32 per particle and
 * Box-Muller as PROG1, Euler, --use_fast_math.
 *   PROG3: per step, a kernel sums sin x and cos x per block of 256 (shared
 *          memory tree), the partial sums go to the host, which adds them and
 *          launches the update with S and C as arguments.
 *   PROG2: per step, UpdateRHS sums sin(x_j - x_i) over tiles of 256 j in
 *          shared memory (tile = block, one i per thread), then AdvanceSystem. */
static const char PROG23_SRC[] =
    "extern \"C\" __global__ void prog3_sums(const float *x, int n, float *ps, float *pc) {\n"
    "  __shared__ float ss[256], sc[256];\n"
    "  const int t = threadIdx.x, i = blockIdx.x * 256 + t;\n"
    "  const float xi = i < n ? x[i] : 0.0f;\n"
    "  ss[t] = i < n ? sinf(xi) : 0.0f;\n"
    "  sc[t] = i < n ? cosf(xi) : 0.0f;\n"
    "  __syncthreads();\n"
    "  for (int o = 128; o > 0; o >>= 1) {\n"
    "    if (t < o) { ss[t] += ss[t + o]; sc[t] += sc[t + o]; }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) { ps[blockIdx.x] = ss[0]; pc[blockIdx.x] = sc[0]; }\n"
    "}\n"
    "__device__ float gauss(unsigned &s) {\n"
    "  s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "  const float u1 = (s + 1.0f) * 2.3283064e-10f;\n"
    "  s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "  const float u2 = s * 2.3283064e-10f;\n"
    "  return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);\n"
    "}\n"
    "extern \"C\" __global__ void prog3_advance(float *x, unsigned *seed, int n, float S, float "
    "C,\n"
    "                                         float K, float dt, float sq) {\n"
    "  const int i = blockIdx.x * 256 + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float xi = x[i];\n"
    "  unsigned s = seed[i];\n"
    "  xi += dt * K * (S * cosf(xi) - C * sinf(xi)) + sq * gauss(s);\n"
    "  x[i] = xi; seed[i] = s;\n"
    "}\n"
    "extern \"C\" __global__ void prog2_rhs(const float *x, float *rhs, int n) {\n"
    "  __shared__ float sx[256];\n"
    "  const int t = threadIdx.x, i = blockIdx.x * 256 + t;\n"
    "  const float xi = i < n ? x[i] : 0.0f;\n"
    "  float acc = 0.0f;\n"
    "  for (int tile = 0; tile * 256 < n; tile++) {\n"
    "    const int j = tile * 256 + t;\n"
    "    __syncthreads();\n"
    "    sx[t] = j < n ? x[j] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (n - tile * 256 >= 256) {\n"
    "#pragma unroll 8\n"
    "      for (int jj = 0; jj < 256; jj++) acc += sinf(sx[jj] - xi);\n"
    "    } else {\n"
    "      for (int jj = 0; jj < n - tile * 256; jj++) acc += sinf(sx[jj] - xi);\n"
    "    }\n"
    "  }\n"
    "  if (i < n) rhs[i] = acc;\n"
    "}\n"
    "extern \"C\" __global__ void prog2_advance(float *x, const float *rhs, unsigned *seed, int "
    "n,\n"
    "                                         float KN, float dt, float sq) {\n"
    "  const int i = blockIdx.x * 256 + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  unsigned s = seed[i];\n"
    "  x[i] += dt * KN * rhs[i] + sq * gauss(s);\n"
    "  seed[i] = s;\n"
    "}\n";

static int cmp_d(const void *a, const void *b);

/* A driver call of the programs below: on failure, its error in err (with
 * CUresult r) and to the cleanup at out. */
#define BCU(call)                                                                                  \
  do {                                                                                             \
    if ((r = (call)) != CUDA_SUCCESS) {                                                            \
      err = sdk_cu_fail(eb, #call, r);                                                             \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

/* A program compiled as the paper's were: for the device, with fast math. */
static sdk_err compile_prog(sdk_bctx *c, const char *src, const char *name, char **bin, size_t *len,
                            sdk_errbuf *eb) {
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=%s", c->arch);
  const char *opts[] = {arch, "--use_fast_math", "-default-device"};
  char *log = NULL;
  SDK_CHECK(sdk_cuda_nvrtc(c, src, NULL, opts, 3, name, bin, len, &log, eb));
  free(log);
  return SDK_OK;
}

/* The median of v[0..n) (reorders v). */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

/* Milliseconds from e0 (recorded) to now: record e1 and wait for it. */
static CUresult event_ms(CUevent e0, CUevent e1, float *ms) {
  CUresult r = sdk_cu.EventRecord(e1, NULL);
  if (r == CUDA_SUCCESS) r = sdk_cu.EventSynchronize(e1);
  if (r == CUDA_SUCCESS) r = sdk_cu.EventElapsedTime(ms, e0, e1);
  return r;
}

sdk_err sdk_cuda_bench_kuramoto_paper(sdk_bctx *c, int pairs, int64_t particles, int64_t steps,
                                      int repeats, double *median_ms, double *r_end,
                                      sdk_errbuf *eb) {
  if (!c->has_device)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: no device to run the baseline on");
  if (particles < 1 || particles > 0x7fffff00 || repeats < 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cuda: baseline size out of range");
  char *bin = NULL;
  size_t len = 0;
  SDK_CHECK(compile_prog(c, PROG23_SRC, "prog23.cu", &bin, &len, eb));
  const char *dump = c->o.tuning.baseline_cubin; /* for SASS comparisons */
  if (dump && *dump && sdk_atomic_write(dump, bin, len, 0, NULL) != SDK_OK)
    sdk_log(c->o.logger, SDK_LOG_WARN, "sdekit: warning: could not write %s\n", dump);
  sdk_err err = SDK_OK;
  CUmodule mod = NULL;
  CUfunction f1, f2;
  CUdeviceptr x = 0, sd = 0, aux = 0, aux2 = 0;
  CUevent e0 = NULL, e1 = NULL;
  int n = (int)particles;
  unsigned blocks = (unsigned)((n + 255) / 256);
  float *hx = malloc((size_t)n * sizeof *hx), *hp = malloc((size_t)blocks * 2 * sizeof *hp);
  unsigned *hs = malloc((size_t)n * sizeof *hs);
  double *ms = calloc((size_t)repeats, sizeof *ms);
  CUresult r;
  if (!hx || !hp || !hs || !ms) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  BCU(sdk_cu.CtxSetCurrent(c->cx));
  BCU(sdk_cu.ModuleLoadData(&mod, bin));
  BCU(sdk_cu.ModuleGetFunction(&f1, mod, pairs ? "prog2_rhs" : "prog3_sums"));
  BCU(sdk_cu.ModuleGetFunction(&f2, mod, pairs ? "prog2_advance" : "prog3_advance"));
  BCU(sdk_cu.MemAlloc(&x, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&sd, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&aux, pairs ? (size_t)n * 4 : (size_t)blocks * 4));
  BCU(sdk_cu.MemAlloc(&aux2, (size_t)blocks * 4));
  BCU(sdk_cu.EventCreate(&e0, 0));
  BCU(sdk_cu.EventCreate(&e1, 0));
  const float K = 4.0f, T = 1.0f, dt = 1.0f / 128, sq = sqrtf(2.0f * T * dt), KN = K / (float)n;
  for (int rep = -1; rep < repeats; rep++) { /* rep -1: warm-up */
    /* uniform initial phases, host-chosen seeds (as the paper's programs) */
    uint32_t h = 2463534242u + (uint32_t)rep;
    for (int i = 0; i < n; i++) {
      h ^= h << 13, h ^= h >> 17, h ^= h << 5;
      hs[i] = h ? h : 1;
      hx[i] = 6.2831853f * (float)(h >> 8) * (1.0f / 16777216.0f);
    }
    BCU(sdk_cu.MemcpyHtoD(sd, hs, (size_t)n * 4));
    BCU(sdk_cu.MemcpyHtoD(x, hx, (size_t)n * 4));
    BCU(sdk_cu.EventRecord(e0, NULL));
    for (int64_t k = 0; k < steps; k++) {
      if (pairs) {
        void *a1[] = {&x, &aux, &n};
        BCU(sdk_cu.LaunchKernel(f1, blocks, 1, 1, 256, 1, 1, 0, NULL, a1, NULL));
        float kn = KN, d = dt, q = sq;
        void *a2[] = {&x, &aux, &sd, &n, &kn, &d, &q};
        BCU(sdk_cu.LaunchKernel(f2, blocks, 1, 1, 256, 1, 1, 0, NULL, a2, NULL));
      } else {
        void *a1[] = {&x, &n, &aux, &aux2};
        BCU(sdk_cu.LaunchKernel(f1, blocks, 1, 1, 256, 1, 1, 0, NULL, a1, NULL));
        BCU(sdk_cu.MemcpyDtoH(hp, aux, (size_t)blocks * 4));
        BCU(sdk_cu.MemcpyDtoH(hp + blocks, aux2, (size_t)blocks * 4));
        double S = 0, C = 0;
        for (unsigned b = 0; b < blocks; b++)
          S += hp[b], C += hp[blocks + b];
        float Sf = (float)(S / n), Cf = (float)(C / n), k4 = K, d = dt, q = sq;
        void *a2[] = {&x, &sd, &n, &Sf, &Cf, &k4, &d, &q};
        BCU(sdk_cu.LaunchKernel(f2, blocks, 1, 1, 256, 1, 1, 0, NULL, a2, NULL));
      }
    }
    float t;
    BCU(event_ms(e0, e1, &t));
    if (rep >= 0) ms[rep] = t;
  }
  *median_ms = median(ms, repeats);
  /* the final order parameter, a check that the baseline integrates the model */
  BCU(sdk_cu.MemcpyDtoH(hx, x, (size_t)n * 4));
  double S = 0, C = 0;
  for (int i = 0; i < n; i++)
    S += sin(hx[i]), C += cos(hx[i]);
  *r_end = sqrt(S * S + C * C) / n;
out:
  if (e0) sdk_cu.EventDestroy(e0);
  if (e1) sdk_cu.EventDestroy(e1);
  CUdeviceptr bufs[] = {x, sd, aux, aux2};
  for (int i = 0; i < 4; i++)
    if (bufs[i]) sdk_cu.MemFree(bufs[i]);
  if (mod) sdk_cu.ModuleUnload(mod);
  free(bin);
  free(hx);
  free(hp);
  free(hs);
  free(ms);
  return err;
}

sdk_err sdk_cuda_bench_copy(sdk_bctx *c, size_t bytes, int repeats, double *GBps, sdk_errbuf *eb) {
  if (!c->has_device) return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: no device");
  CU(eb, CtxSetCurrent(c->cx));
  CUdeviceptr a = 0, b = 0;
  CUevent e0 = NULL, e1 = NULL;
  double ms[32];
  if (repeats > 32) repeats = 32;
  if (repeats < 1) repeats = 1;
  sdk_err err = SDK_OK;
  CUresult r;
  if ((r = sdk_cu.MemAlloc(&a, bytes)) != CUDA_SUCCESS ||
      (r = sdk_cu.MemAlloc(&b, bytes)) != CUDA_SUCCESS ||
      (r = sdk_cu.MemsetD8(a, 1, bytes)) != CUDA_SUCCESS ||
      (r = sdk_cu.EventCreate(&e0, 0)) != CUDA_SUCCESS ||
      (r = sdk_cu.EventCreate(&e1, 0)) != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "copy benchmark setup", r);
    goto out;
  }
  for (int i = -1; i < repeats; i++) {
    float t;
    if ((r = sdk_cu.EventRecord(e0, NULL)) != CUDA_SUCCESS ||
        (r = sdk_cu.MemcpyDtoD(b, a, bytes)) != CUDA_SUCCESS ||
        (r = sdk_cu.EventRecord(e1, NULL)) != CUDA_SUCCESS ||
        (r = sdk_cu.EventSynchronize(e1)) != CUDA_SUCCESS ||
        (r = sdk_cu.EventElapsedTime(&t, e0, e1)) != CUDA_SUCCESS) {
      err = sdk_cu_fail(eb, "copy benchmark", r);
      goto out;
    }
    if (i >= 0) ms[i] = t;
  }
  *GBps = 2.0 * (double)bytes / (median(ms, repeats) * 1e-3) / 1e9;
out:
  if (e0) sdk_cu.EventDestroy(e0);
  if (e1) sdk_cu.EventDestroy(e1);
  if (a) sdk_cu.MemFree(a);
  if (b) sdk_cu.MemFree(b);
  return err;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

sdk_err sdk_cuda_bench_prog1(sdk_bctx *c, int64_t paths, int64_t steps, int repeats,
                             double *median_ms, double *checksum, sdk_errbuf *eb) {
  if (!c->has_device)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: no device to run the baseline on");
  char *bin = NULL;
  size_t len = 0;
  SDK_CHECK(compile_prog(c, PROG1_SRC, "prog1.cu", &bin, &len, eb));
  sdk_err err = SDK_OK;
  CUmodule mod = NULL;
  CUfunction fn;
  CUdeviceptr x = 0, v = 0, a = 0, sd = 0;
  CUevent e0 = NULL, e1 = NULL;
  float *hf = NULL;
  unsigned *hs = NULL;
  double *ms = calloc((size_t)repeats, sizeof *ms);
  int n = (int)paths;
  CUresult r;
  BCU(sdk_cu.CtxSetCurrent(c->cx));
  BCU(sdk_cu.ModuleLoadData(&mod, bin));
  BCU(sdk_cu.ModuleGetFunction(&fn, mod, "prog1"));
  hf = malloc((size_t)n * sizeof *hf);
  hs = malloc((size_t)n * sizeof *hs);
  if (!hf || !hs || !ms) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  BCU(sdk_cu.MemAlloc(&x, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&v, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&a, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&sd, (size_t)n * 4));
  /* initial conditions as PROG1: x in [0,1), v in [-2,2), host-chosen seeds */
  uint32_t h = 2463534242u;
  for (int i = 0; i < n; i++) {
    h ^= h << 13, h ^= h >> 17, h ^= h << 5;
    hs[i] = h ? h : 1;
  }
  BCU(sdk_cu.MemcpyHtoD(sd, hs, (size_t)n * 4));
  for (int i = 0; i < n; i++)
    hf[i] = (float)(hs[i] >> 8) * (1.0f / 16777216.0f);
  BCU(sdk_cu.MemcpyHtoD(x, hf, (size_t)n * 4));
  for (int i = 0; i < n; i++)
    hf[i] = 4.0f * (float)((hs[i] * 2654435761u) >> 8) / 16777216.0f - 2.0f;
  BCU(sdk_cu.MemcpyHtoD(v, hf, (size_t)n * 4));
  for (int i = 0; i < n; i++)
    hf[i] = 4.2f + 9.9f * (float)(i % 100) / 99.0f; /* 100 values of a */
  BCU(sdk_cu.MemcpyHtoD(a, hf, (size_t)n * 4));
  BCU(sdk_cu.EventCreate(&e0, 0));
  BCU(sdk_cu.EventCreate(&e1, 0));
  float gamma = 0.9f, omega = 4.9f, D = 0.001f, f = 0.1f, dt = 6.2831853f / omega / 100.0f;
  int m = 100;
  unsigned blocks = (unsigned)((n + 255) / 256);
  int64_t launches = steps / m > 0 ? steps / m : 1;
  for (int rep = -1; rep < repeats; rep++) { /* rep -1: warm-up */
    BCU(sdk_cu.EventRecord(e0, NULL));
    for (int64_t l = 0; l < launches; l++) {
      float t0 = (float)(l * m) * dt;
      void *args[] = {&x, &v, &a, &sd, &t0, &dt, &m, &gamma, &omega, &D, &f, &n};
      BCU(sdk_cu.LaunchKernel(fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    }
    float t;
    BCU(event_ms(e0, e1, &t));
    if (rep >= 0) ms[rep] = t;
  }
  *median_ms = median(ms, repeats) * (double)steps / (double)(launches * m);
  BCU(sdk_cu.MemcpyDtoH(hf, x, (size_t)n * 4));
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += hf[i];
  *checksum = sum / n;
out:
  if (e0) sdk_cu.EventDestroy(e0);
  if (e1) sdk_cu.EventDestroy(e1);
  if (x) sdk_cu.MemFree(x);
  if (v) sdk_cu.MemFree(v);
  if (a) sdk_cu.MemFree(a);
  if (sd) sdk_cu.MemFree(sd);
  if (mod) sdk_cu.ModuleUnload(mod);
  free(bin);
  free(hf);
  free(hs);
  free(ms);
  return err;
}
