#line 2 "kernels/live_list.cuh"
/* [boundaries]: the list of the paths still alive (status row 0), for the
 * backend to launch sdk_advance over them alone: absorbed paths scattered
 * over the warps would otherwise keep every warp busy.  One atomic per block
 * (the warps' counts added in shared memory, each warp's place in the
 * block's share by its index): per warp, 32768 same-address atomics a
 * launch for 2^20 paths.  The list's order (which blocks come first) varies
 * from run to run, the results do not (a path's steps depend on its index
 * alone).  npad is a multiple of SDK_TPB and below 2^32 (the backend
 * checks).  Hook (codegen/cuda_paths.c): alive (the end of `alive`: whether
 * path p's status row, or with --dt-check its coarse copy's, is 0). */
extern "C" __global__ void __launch_bounds__(SDK_TPB)
    sdk_live_list(const real *__restrict__ st, sdk_i64 npad, unsigned *__restrict__ live,
                  unsigned long long *__restrict__ nlive) {
  __shared__ unsigned wc[SDK_TPB / 32];
  __shared__ unsigned long long base;
  const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;
  const int alive = p < npad && /* and alive (the hook): */
                    SDK_HOOK(alive, st, npad, p);
  const unsigned mask = __ballot_sync(0xffffffffu, alive);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) wc[warp] = (unsigned)__popc(mask);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (int w = 0; w < SDK_TPB / 32; w++) {
      const unsigned c = wc[w];
      wc[w] = (unsigned)t; /* (the warp's offset in the block's share) */
      t += c;
    }
    base = t ? atomicAdd(nlive, t) : 0ull;
  }
  __syncthreads();
  if (alive) live[base + wc[warp] + __popc(mask & ((1u << lane) - 1u))] = (unsigned)p;
}
