#line 2 "kernels/per_thread.cuh"
/* One path per thread.  Two (p and p + SDK_TPB) measured no faster on the
 * H100 (6.24e11 vs 6.27e11 steps/s, docs/BENCHMARKS.md): the kernel is bound
 * by issue and the MUFU pipe, not by latency.  Neither the generator nor the
 * backend has that dimension any more; these two names stay in the text only
 * because the kernel's identity (cache key, checkpoints' kernel hash) covers
 * its tokens: they go with the next change of the kernel ABI. */
#define SDK_ILP 1
extern "C" __device__ const int sdk_paths_per_thread = 1;
