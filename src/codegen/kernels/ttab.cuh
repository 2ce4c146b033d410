#line 2 "kernels/ttab.cuh"
/* The time-only values of a periodic model (cuda_paths.c): SDK_TT_SLOTS of
 * them at each of the SDK_TT_PHASES phases of the period (the generator
 * defines both before this file), filled once per module; sdk_advance reads
 * them instead of evaluating the expressions at every step.  Hook
 * (codegen/cuda_paths.c): values (the parameters, the expressions at phase
 * ph, the table's row). */
extern "C" __device__ __align__(16) real sdk_ttab[SDK_TT_PHASES * SDK_TT_SLOTS];

/* one thread per phase */
extern "C" __global__ void sdk_ttab_fill(void) {
  const int ph = blockIdx.x * blockDim.x + threadIdx.x;
  if (ph >= SDK_TT_PHASES) return;
  SDK_HOOK(values, ph);
}
