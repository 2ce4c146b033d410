#line 2 "kernels/sys_step.cuh"
/* The per-step kernels of systems of particles (codegen/sys_cuda.c has the
 * work and reduction contract), and sdk_sys_sums, which ends as they do.
 *
 *   sdk_sys_step       one launch per step: block = group; mean-field
 *                      models step it with sdk_sys_group (sys_group.cuh),
 *                      pair models one particle per thread, the system's
 *                      x_n passing through shared memory in tiles of
 *                      SDK_STPB particles (the paper's PROG2); the last
 *                      block of a system (acquire-release counter) forms
 *                      the system's sums and the order parameter.  mode 0
 *                      only sums x_n (priming).
 *   sdk_sys_step_half  (pair models with odd or even pair functions) the
 *                      same with the tiles' pair sums of sdk_sys_half and
 *                      sdk_sys_edge (sys_half.cuh) read instead of computed.
 *   sdk_sys_sums       (mean field) systems spanning MPI ranks: block s
 *                      forms system s's sums of the state the step kernel
 *                      just summed, from part[] holding every rank's group
 *                      sums, exactly as the last block of sdk_sys_step does.
 *
 * The generator writes this file once per kernel, after defining which:
 * SDK_SYS_SUMS (1: sdk_sys_sums) and SDK_STEP_HALF (1: sdk_sys_step_half);
 * the file undefines them at its end.  Holes: real, sdk_i64, sdk_u64,
 * SDK_NRED, SDK_STPB, SDK_MINB, SDK_CH, SDK_NV, SDK_NN, SDK_NPAIR (pairs),
 * SDK_PAIRS (1: a pair model), SDK_OCOS and SDK_OSIN (the order
 * parameter's sums, -1: none).  Hooks (codegen/sys_cuda_pairs.c): scope
 * (the parameters, times, mean fields, particle parameters of particle j
 * in shared memory), particle (x_n of particle i), noise (its noise
 * values), params (its parameters), pair_zero (F = 0), pair_tile_sums (F += the tiles' sums of
 * sdk_sys_half), tile_load (x_j of the tile into shared memory),
 * tile_open, tile_whole, tile_part, tile_close (the pairs with the
 * particles of a tile: whole tiles eight at a time, a partial one one by
 * one, into F), coupling (the pair fields from F), step (x_n -> x_{n+1}),
 * accumulate (the particle's terms of the sums). */
#if SDK_STEP_HALF
#define SDK_STEP_NAME sdk_sys_step_half
#define SDK_STEP_ARGS , const real *__restrict__ sdk_psum
#else
#define SDK_STEP_NAME sdk_sys_step
#define SDK_STEP_ARGS
#endif
#if SDK_SYS_SUMS
extern "C" __global__ void __launch_bounds__(SDK_STPB, 1)
    sdk_sys_sums(const double *sdk_part, int sdk_nblk, sdk_i64 sdk_N, sdk_i64 sdk_spg,
                 double *sdk_sums_out, unsigned *sdk_cnt, double *sdk_zsys, unsigned *sdk_gcnt,
                 double *sdk_obs_row) {
  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];
  __shared__ double sdk_sz[SDK_STPB / 32][4];
  __shared__ double sdk_stot[SDK_NRED];
  __shared__ int sdk_slast;
  const int sdk_tid = threadIdx.x;
  const sdk_i64 sdk_s = blockIdx.x, sdk_g = sdk_s / sdk_spg;
  const double sdk_invN = 1.0 / (double)sdk_N;
  (void)sdk_invN;
  (void)sdk_g;
  (void)sdk_slast;
  (void)sdk_sz;
#else
extern "C" __global__ void __launch_bounds__(SDK_STPB, SDK_MINB)
    SDK_STEP_NAME(const real *sdk_st_in, real *sdk_st_out, sdk_i64 sdk_npad,
                  const real *__restrict__ sdk_sv, sdk_i64 sdk_ppg, sdk_i64 sdk_N, sdk_i64 sdk_spg,
                  int sdk_nchunk, int sdk_nblk, int sdk_cpb, sdk_i64 sdk_n, sdk_u64 sdk_seed,
                  int sdk_mode, const double *__restrict__ sdk_sums_in, double *sdk_sums_out,
                  double *sdk_part, unsigned *sdk_cnt, double *sdk_zsys, unsigned *sdk_gcnt,
                  double *sdk_obs_row, sdk_i64 sdk_b0 SDK_STEP_ARGS) {
  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];
  __shared__ double sdk_sz[SDK_STPB / 32][4];
  __shared__ double sdk_stot[SDK_NRED];
  __shared__ int sdk_slast;
  const int sdk_tid = threadIdx.x;
  /* the group: b0 + block (b0 > 0: a shard of the groups, systems spanning MPI ranks) */
  const sdk_i64 sdk_gb = sdk_b0 + (sdk_i64)blockIdx.x;
  const sdk_i64 sdk_s = sdk_gb / sdk_nblk;
  const int sdk_c = (int)(sdk_gb - sdk_s * sdk_nblk); /* group of the system */
  const sdk_i64 sdk_g = sdk_s / sdk_spg;
  const double sdk_invN = 1.0 / (double)sdk_N;
  (void)sdk_ppg;
  (void)sdk_nchunk;
  (void)sdk_invN;
  (void)sdk_g;
  (void)sdk_st_out;
#if SDK_PAIRS
#if !SDK_STEP_HALF
  /* (16-byte aligned: x_j is read four at a time, see tile_whole) */
  __shared__ __align__(16) real sdk_sx[SDK_NV][SDK_STPB];
#endif
  SDK_HOOK(scope, sdk_sv, sdk_n, sdk_sums_in);
  real sdk_acc[SDK_NRED];
#pragma unroll
  for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++)
    sdk_acc[sdk_k] = (real)0;
  const sdk_i64 sdk_li = (sdk_i64)sdk_c * SDK_STPB + sdk_tid; /* in the system */
  const int sdk_act = sdk_li < sdk_N;
  const sdk_i64 sdk_gp = sdk_s * sdk_N + (sdk_act ? sdk_li : 0);
  SDK_HOOK(particle, sdk_st_in, sdk_gp);
#if SDK_NN > 0
  /* its noise: its lane of its quad's Philox block (stream domain 3) */
  real sdk_zv[SDK_NN];
  if (sdk_mode) {
    const sdk_u64 sdk_q = (sdk_u64)sdk_s * (sdk_u64)((sdk_N + 3) >> 2) + (sdk_u64)(sdk_li >> 2);
    const int sdk_lane = (int)(sdk_li & 3);
    SDK_HOOK(noise, sdk_zv, sdk_q, sdk_lane, sdk_seed);
  }
#endif
  SDK_HOOK(params, sdk_seed);
  /* F_i = (1/N) sum_j f(x_i, x_j): tiles of the system's x_n in shared
   * memory or (half) the tiles' sums of sdk_sys_half and sdk_sys_edge, in
   * the same order */
  double sdk_F[SDK_NPAIR];
  SDK_HOOK(pair_zero, sdk_F);
  if (sdk_mode) {
    const int sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);
#if SDK_STEP_HALF
    if (sdk_act) {
      const real *sdk_pq = sdk_psum + sdk_s * SDK_NPAIR * (sdk_i64)sdk_ntile * sdk_N + sdk_li;
      for (int sdk_tile = 0; sdk_tile < sdk_ntile; sdk_tile++) {
        SDK_HOOK(pair_tile_sums, sdk_pq);
      }
    }
#else
    for (int sdk_tile = 0; sdk_tile < sdk_ntile; sdk_tile++) {
      const sdk_i64 sdk_lj = (sdk_i64)sdk_tile * SDK_STPB + sdk_tid;
      __syncthreads();
      if (sdk_lj < sdk_N) {
        const sdk_i64 sdk_q = sdk_s * sdk_N + sdk_lj;
        SDK_HOOK(tile_load, sdk_q, sdk_sx);
      }
      __syncthreads();
      const int sdk_cntj = (int)(sdk_N - (sdk_i64)sdk_tile * SDK_STPB < SDK_STPB
                                     ? sdk_N - (sdk_i64)sdk_tile * SDK_STPB
                                     : SDK_STPB);
      SDK_HOOK(tile_open);
      /* a whole tile in groups of 8 (unrolled), a partial one one by one */
      if (sdk_cntj == SDK_STPB) {
#pragma unroll 1
        for (int sdk_j8 = 0; sdk_j8 < SDK_STPB; sdk_j8 += 8) {
          SDK_HOOK(tile_whole, sdk_j8);
        }
      } else {
        for (int sdk_j8 = 0; sdk_j8 < sdk_cntj; sdk_j8++) {
          SDK_HOOK(tile_part, sdk_j8);
        }
      }
      SDK_HOOK(tile_close);
    }
#endif
  }
  SDK_HOOK(coupling, sdk_F);
  /* the step, into the other state buffer */
  if (sdk_mode) {
    SDK_HOOK(step, sdk_st_out, sdk_npad);
  }
  SDK_HOOK(accumulate, sdk_act);
  sdk_sys_block_sum(sdk_acc, sdk_sred, sdk_part + sdk_gb * SDK_NRED, 0);
#else
  const sdk_i64 sdk_gi0 = (sdk_i64)sdk_c * sdk_cpb * SDK_CH;
  const int sdk_glen =
      (int)(sdk_N - sdk_gi0 < sdk_cpb * SDK_CH ? sdk_N - sdk_gi0 : sdk_cpb * SDK_CH);
  sdk_sys_group((real *)sdk_st_in + sdk_s * sdk_N + sdk_gi0, sdk_npad, (real *)0, 0, 0,
                (const short *)0, sdk_glen, sdk_s, sdk_c, sdk_N, sdk_spg, sdk_cpb * SDK_CH, sdk_sv,
                sdk_n, sdk_seed, sdk_mode, sdk_sums_in + sdk_s * SDK_NRED,
                sdk_part + sdk_gb * SDK_NRED, sdk_sred, 0);
#endif
  /* no counters: the groups of a system span MPI ranks; sdk_sys_sums forms the sums
   * once every rank's group sums are in part[] */
  if (!sdk_cnt) return;
  if (sdk_tid == 0) /* release: part[] before the count; acquire: the others' part[] after it */
    sdk_slast = sdk_atom_inc_acqrel(&sdk_cnt[sdk_s]) == (unsigned)(sdk_nblk - 1);
  __syncthreads();
  if (!sdk_slast) return;
#endif
  /* the system's sums from its groups' */
  sdk_sys_total(sdk_part + sdk_s * sdk_nblk * SDK_NRED, sdk_nblk, sdk_sred, sdk_stot);
  if (sdk_tid == 0) {
    for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++)
      sdk_sums_out[sdk_s * SDK_NRED + sdk_k] = sdk_stot[sdk_k];
    if (sdk_cnt) sdk_cnt[sdk_s] = 0u;
  }
#if SDK_OCOS >= 0
  /* order parameter: Z of the system, then of its grid point */
  if (!sdk_obs_row) return;
  if (sdk_tid == 0) {
    const double sdk_zr = sdk_stot[SDK_OCOS] * sdk_invN, sdk_zi = sdk_stot[SDK_OSIN] * sdk_invN,
                 sdk_z2 = sdk_zr * sdk_zr + sdk_zi * sdk_zi;
    if (sdk_spg == 1) { /* one system per grid point: its Z is the row */
      sdk_obs_row[sdk_g * 4 + 0] = sqrt(sdk_z2);
      sdk_obs_row[sdk_g * 4 + 1] = sdk_z2;
      sdk_obs_row[sdk_g * 4 + 2] = sdk_zr;
      sdk_obs_row[sdk_g * 4 + 3] = sdk_zi;
      sdk_slast = 0;
    } else {
      sdk_zsys[sdk_s * 4 + 0] = sqrt(sdk_z2);
      sdk_zsys[sdk_s * 4 + 1] = sdk_z2;
      sdk_zsys[sdk_s * 4 + 2] = sdk_zr;
      sdk_zsys[sdk_s * 4 + 3] = sdk_zi;
      sdk_slast = sdk_atom_inc_acqrel(&sdk_gcnt[sdk_g]) == (unsigned)(sdk_spg - 1);
    }
  }
  __syncthreads();
  if (!sdk_slast) return;
  const int sdk_lane = sdk_tid & 31, sdk_warp = sdk_tid >> 5;
#pragma unroll
  for (int sdk_k = 0; sdk_k < 4; sdk_k++) {
    double sdk_v = 0.0;
    for (sdk_i64 sdk_q = sdk_tid; sdk_q < sdk_spg; sdk_q += SDK_STPB)
      sdk_v += __ldcg(&sdk_zsys[(sdk_g * sdk_spg + sdk_q) * 4 + sdk_k]);
#pragma unroll
    for (int sdk_o = 16; sdk_o > 0; sdk_o >>= 1)
      sdk_v += __shfl_down_sync(0xffffffffu, sdk_v, sdk_o);
    if (sdk_lane == 0) sdk_sz[sdk_warp][sdk_k] = sdk_v;
  }
  __syncthreads();
  if (sdk_tid == 0) {
    for (int sdk_k = 0; sdk_k < 4; sdk_k++) {
      double sdk_a = 0.0;
      for (int sdk_w = 0; sdk_w < SDK_STPB / 32; sdk_w++)
        sdk_a += sdk_sz[sdk_w][sdk_k];
      sdk_obs_row[sdk_g * 4 + sdk_k] = sdk_a;
    }
    sdk_gcnt[sdk_g] = 0u;
  }
#else
  (void)sdk_zsys;
  (void)sdk_gcnt;
  (void)sdk_obs_row;
  (void)sdk_sz;
#endif
}
#undef SDK_STEP_NAME
#undef SDK_STEP_ARGS
#undef SDK_STEP_HALF
#undef SDK_SYS_SUMS
