#line 2 "kernels/sys_sums.cuh"
/* The reduction helpers of every system module (codegen/sys_cuda.c has the
 * contract): the block's sum of a group, the system's sum of its groups and
 * the persistent kernel's grid barrier.  Every sum runs in a fixed order, so
 * the systems' sums have the same bits whatever the device, the launch shape
 * or the scheduling.  Holes: SDK_NRED (sums per system), SDK_STPB (threads
 * per block), real, sdk_i64. */
static __device__ __forceinline__ unsigned sdk_atom_inc_acqrel(unsigned *sdk_p) {
  unsigned sdk_old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(sdk_old)
               : "l"(sdk_p)
               : "memory");
  return sdk_old;
}
/* thread 0: out[k] = the warps' sums sred[w][k] in the order w = 0..7 */
static __device__ __forceinline__ void sdk_warps_in_order(double (*sdk_sred)[SDK_NRED],
                                                          double *sdk_out) {
  if (threadIdx.x == 0)
    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {
      double sdk_a = 0.0;
      for (int sdk_w = 0; sdk_w < SDK_STPB / 32; sdk_w++)
        sdk_a += sdk_sred[sdk_w][sdk_k];
      sdk_out[sdk_k] = sdk_a;
    }
}
/* group: the threads' sums (in real), warps by shuffles, the 8 warps in order in
 * double -> part_g[k] (written by thread 0).  sred alternates between two halves
 * from one group to the next, so one barrier per group suffices: a half is
 * written again only after the next group's barrier, which thread 0 reaches
 * after reading it. */
static __device__ __forceinline__ void sdk_sys_block_sum(const real *sdk_acc,
                                                         double (*sdk_sred)[SDK_NRED],
                                                         double *sdk_part_g, int sdk_half) {
  sdk_sred += sdk_half * (SDK_STPB / 32);
  const int sdk_tid = threadIdx.x, sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;
#pragma unroll
  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {
    real sdk_v = sdk_acc[sdk_k];
#pragma unroll
    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1)
      sdk_v += __shfl_down_sync(0xffffffffu, sdk_v, sdk_o);
    if (sdk_lane == 0) sdk_sred[sdk_warp][sdk_k] = (double)sdk_v;
  }
  __syncthreads();
  sdk_warps_in_order(sdk_sred, sdk_part_g);
}
/* system: its nblk group sums (part_s[c * SDK_NRED + k], written by other
 * blocks: read through L2) in the fixed order of the contract -> tot[k]
 * (shared; every thread of the block calls this) */
static __device__ __forceinline__ void sdk_sys_total(const double *sdk_part_s, int sdk_nblk,
                                                     double (*sdk_sred)[SDK_NRED],
                                                     double *sdk_tot) {
  const int sdk_tid = threadIdx.x, sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;
#pragma unroll
  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {
    const double *sdk_pk = sdk_part_s + sdk_k;
    double sdk_a = 0.0, sdk_a1 = 0.0, sdk_a2 = 0.0, sdk_a3 = 0.0;
    int sdk_q = sdk_tid;
    for (; sdk_q + 3 * SDK_STPB < sdk_nblk; sdk_q += 4 * SDK_STPB) {
      sdk_a += __ldcg(sdk_pk + (sdk_i64)sdk_q * SDK_NRED);
      sdk_a1 += __ldcg(sdk_pk + (sdk_i64)(sdk_q + SDK_STPB) * SDK_NRED);
      sdk_a2 += __ldcg(sdk_pk + (sdk_i64)(sdk_q + 2 * SDK_STPB) * SDK_NRED);
      sdk_a3 += __ldcg(sdk_pk + (sdk_i64)(sdk_q + 3 * SDK_STPB) * SDK_NRED);
    }
    for (; sdk_q < sdk_nblk; sdk_q += SDK_STPB)
      sdk_a += __ldcg(sdk_pk + (sdk_i64)sdk_q * SDK_NRED);
    double sdk_v = (sdk_a + sdk_a1) + (sdk_a2 + sdk_a3);
#pragma unroll
    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1)
      sdk_v += __shfl_down_sync(0xffffffffu, sdk_v, sdk_o);
    if (sdk_lane == 0) sdk_sred[sdk_warp][sdk_k] = sdk_v;
  }
  __syncthreads();
  sdk_warps_in_order(sdk_sred, sdk_tot);
  __syncthreads();
}
/* The persistent kernel's step barrier: every block arrives once per step
 * (release: its group sums, written by the same thread, before the count) and
 * waits for all B arrivals of the step (acquire: the others' sums after it).
 * The count only grows during a launch: no reset, no generation. */
static __device__ __forceinline__ void sdk_grid_sync(unsigned *sdk_bar, unsigned sdk_target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" : : "l"(sdk_bar) : "memory");
    unsigned sdk_v;
    do
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(sdk_v) : "l"(sdk_bar) : "memory");
    while ((int)(sdk_v - sdk_target) < 0);
  }
  __syncthreads();
}
