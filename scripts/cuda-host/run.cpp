/* The CUDA driver's kernels of independent paths run on the host
 * (scripts/cuda-host-adaptive.sh): the generated source (KERNEL, included)
 * read as C++ through host_shim.h, sdk_init and sdk_advance called for
 * every thread of every block in turn, the steps cut into LAUNCHES
 * launches; prints every path's first variable (%a), or with ROWS=all in
 * the environment every row of its state (the controller's rows of an
 * adaptive run too).  Only the logic of the kernel is checked so (the
 * device's math and scheduling are not).
 *   run NP LAUNCHES STEPS SEED */
#include <cstring>

#include "host_shim.h"
/* (defined by a module whose delays' rings are quads: ROWS=all prints the
 * canonical rows, as the backend's rows read them, src/codegen/abi.h) */
extern "C" const int sdk_ring_quads[2] __attribute__((weak));
#include KERNEL
#include "../../src/codegen/abi.h"
unsigned int sh[1]; /* (the reductions' dynamic shared memory: unused) */
#ifdef SDK_TT_SLOTS
/* a periodic model's per-phase table (kernels/ttab.cuh: --adaptive's whole
 * steps read it), filled as the module's load does, one phase at a time */
extern "C" {
real sdk_ttab[SDK_TT_PHASES * SDK_TT_SLOTS];
}
#endif

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  const long np = atol(argv[1]), nl = atol(argv[2]), steps = atol(argv[3]);
  const unsigned long long seed = strtoull(argv[4], 0, 10);
  const long npad = (np + SDK_TPB - 1) / SDK_TPB * SDK_TPB;
  real *st = (real *)calloc((size_t)sdk_state_rows * (size_t)npad, sizeof *st);
  if (!st) return 1;
#ifdef SDK_TT_SLOTS
  for (unsigned ph = 0; ph < SDK_TT_PHASES; ph++)
    blockIdx.x = 0, threadIdx.x = ph, sdk_ttab_fill();
#endif
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
  const char *rows = getenv("ROWS");
  const long nr = rows && !strcmp(rows, "all") ? (long)sdk_state_rows : 1;
  for (long r = 0; r < nr; r++)
    for (long p = 0; p < np; p++)
      printf("%a\n",
             (double)st[&sdk_ring_quads[0] && r >= sdk_ring_quads[0] && r < sdk_ring_quads[1]
                            ? sdk_quad_at(sdk_ring_quads[0], r, npad, p)
                            : r * npad + p]);
  free(st);
  return 0;
}
