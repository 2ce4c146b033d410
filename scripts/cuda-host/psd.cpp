/* The CUDA driver's --observe psd (codegen/psd.h, kernels/psd_seg.h) run on
 * the host (scripts/cuda-host-psd.sh): the generated source (KERNEL,
 * included) read as C++ through host_shim.h; the steps once one per launch
 * (the trajectory of the first variable, every state) and once cut into
 * LAUNCHES launches; that run's psd rows of the first quantity (the first
 * variable, rows from ROW) against the host's operations of obs_psd.c on
 * the trajectory (the same segment schedule, window, transform and (hi, lo)
 * sums), bit for bit.  Prints "same bits" or the first difference.
 *   psd NP LAUNCHES STEPS SEED ROW */
#include <vector>

#include "host_shim.h"
#include KERNEL
unsigned int sh[1]; /* (the reductions' dynamic shared memory: unused) */

static void launch_all(real *st, long np, long npad, long nl, long steps, unsigned long long seed) {
  for (unsigned b = 0; b < npad / SDK_TPB; b++)
    for (unsigned t = 0; t < SDK_TPB; t++)
      blockIdx.x = b, threadIdx.x = t, sdk_init(st, npad, nullptr, np, 1, 0, seed);
  long s0 = 0;
  for (long l = 0; l < nl; l++) {
    const long ns = steps / nl + (l < steps % nl);
    for (unsigned b = 0; b < npad / SDK_TPB; b++)
      for (unsigned t = 0; t < SDK_TPB; t++)
        blockIdx.x = b, threadIdx.x = t, sdk_advance(st, npad, nullptr, np, 1, 0, s0, ns, seed);
    s0 += ns;
  }
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  const long np = atol(argv[1]), nl = atol(argv[2]), steps = atol(argv[3]);
  const unsigned long long seed = strtoull(argv[4], 0, 10);
  const long row = atol(argv[5]), M = SDK_PSD_M, B = M / 2 + 1;
  const long npad = (np + SDK_TPB - 1) / SDK_TPB * SDK_TPB;
  const size_t n = (size_t)sdk_state_rows * (size_t)npad;
  std::vector<real> a(n), b(n);
  /* the trajectory: state s after s steps (one launch per step) */
  std::vector<std::vector<double>> x((size_t)steps + 1, std::vector<double>((size_t)np));
  for (long s = 0; s <= steps; s++) {
    std::fill(a.begin(), a.end(), (real)0);
    launch_all(a.data(), np, npad, s > 0 ? 1 : 0, s, seed); /* (s steps, then read) */
    for (long p = 0; p < np; p++)
      x[(size_t)s][(size_t)p] = (double)a[(size_t)p];
  }
  launch_all(b.data(), np, npad, nl, steps, seed);
  long bad = 0, segs = 0;
  for (long p = 0; p < np; p++) {
    std::vector<double> sum((size_t)B, 0.0), z((size_t)M);
    std::vector<real> ring((size_t)M); /* (the samples in order: the kernel's ring of one path) */
    long t = 0;
    for (long s = SDK_PSD_FIRST; s <= steps; s += SDK_PSD_EVERY, t++) {
      if (t + 1 < M || (t + 1 - M) % (M / 2) != 0) continue;
      for (long m = 0; m < M; m++) /* samples t - M + 1 .. t */
        ring[(size_t)m] = (real)x[(size_t)(s - (M - 1 - m) * SDK_PSD_EVERY)][(size_t)p];
      /* (the transform reads them windowed: x_m at ((smp + 1 + m) mod M) npad) */
      sdk_psd_fft(sdk_psd_ring{ring.data(), 1, M - 1}, z.data(), M, 0);
      for (long k = 0; k < B; k++) {
        const double sm = sum[(size_t)k] + sdk_psd_power(z.data(), M, k, 0);
        const double hi = (double)(float)sm;
        sum[(size_t)k] = (double)(real)hi + (double)(real)(sm - hi);
      }
      segs += p == 0;
    }
    for (long k = 0; k < B; k++) {
      const double got = (double)b[(size_t)(row + M + 2 * k) * npad + p] +
                         (double)b[(size_t)(row + M + 2 * k + 1) * npad + p];
      if (got != sum[(size_t)k] && bad++ == 0)
        printf("DIFFERENT: path %ld bin %ld: kernel %a, host's operations %a\n", p, k, got,
               sum[(size_t)k]);
    }
  }
  if (!bad) printf("same bits: %ld paths x %ld bins, %ld segments each\n", np, B, segs);
  return bad != 0;
}
