#line 2 "kernels/sys_half.cuh"
/* Pair models with odd or even pair functions (codegen/pair_sym.c): each
 * unordered pair once.
 *
 * The full loop of sdk_sys_step (sys_step.cuh) gives particle i, for every
 * tile J, the float sum
 *   P[J][i] = f(x_i, x_j0) + f(x_i, x_j0+1) + ...   (j ascending in J),
 * then F_i = sum over J ascending of P[J][i] in double.  sdk_sys_half
 * writes the same P[J][i] bit for bit with half the evaluations of f: a
 * warp owns a full tile I (lane l its rows SDK_HALF_ROWS l ..) and a stream
 * of full tiles J = I + d (mod nfull), d in [d0, d1) (work list: each
 * unordered pair of tiles once, d = 0 the tile with itself); the columns of
 * J come in blocks of SDK_HALF_COLS and flow through the lanes, lane l
 * working on block tau - l at step tau, each block carrying its column sums
 * from lane to lane.  So row i adds j ascending and column j adds i
 * ascending, as the full loop does for i and for j, and column j adds
 * -f(x_i, x_j) (odd f) or f(x_i, x_j) (even f), which is exactly the
 * f(x_j, x_i) the full loop computes for j.  Sums are SDK_PADD/SDK_PSUB (no
 * contraction into a fused multiply-add, here or in the full loop).
 * sdk_sys_edge does the pairs of a last, partial tile the full loop's way;
 * sdk_sys_step_half then adds P[J][i] over J.
 *
 * Holes: real, sdk_i64, SDK_STPB, SDK_NV, SDK_NPAIR, SDK_HALF_WPB (warps
 * per block), SDK_HALF_ROWS (rows per lane: 32 lanes hold one tile),
 * SDK_HALF_COLS (columns per block).  Hooks (codegen/sys_cuda_pairs.c):
 * scope (the system's parameters, times and constant particle parameters),
 * rows (the lane's rows of tile I, their sums and the column sums at 0),
 * pairs (the columns of block cb of tile J, the pairs with the lane's
 * rows), rows_out, cols_out (the complete sums into psum), shift, cols_zero
 * (the column sums to the next lane); edge_load, edge_row, edge_pair,
 * edge_out (sdk_sys_edge: x_j of the tile, particle i, a pair, its sums). */
extern "C" __global__ void __launch_bounds__(32 * SDK_HALF_WPB)
    sdk_sys_half(const real *__restrict__ sdk_st_in, sdk_i64 sdk_npad,
                 const real *__restrict__ sdk_sv, sdk_i64 sdk_N, sdk_i64 sdk_spg, sdk_i64 sdk_nsys,
                 sdk_i64 sdk_n, const int *__restrict__ sdk_work, int sdk_nwork, real *sdk_psum) {
  const int sdk_nfull = (int)(sdk_N / SDK_STPB),
            sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);
  (void)sdk_nsys;
  const sdk_i64 sdk_w = (sdk_i64)blockIdx.x * SDK_HALF_WPB + (threadIdx.x >> 5);
  if (sdk_w >= sdk_nsys * sdk_nwork) return;
  const sdk_i64 sdk_s = sdk_w / sdk_nwork;
  const int sdk_it = (int)(sdk_w - sdk_s * sdk_nwork), sdk_lane = threadIdx.x & 31;
  const int sdk_I = sdk_work[3 * sdk_it], sdk_d0 = sdk_work[3 * sdk_it + 1],
            sdk_d1 = sdk_work[3 * sdk_it + 2];
  const sdk_i64 sdk_g = sdk_s / sdk_spg, sdk_base = sdk_s * sdk_N;
  (void)sdk_g;
  SDK_HOOK(scope, sdk_sv, sdk_n);
  real *sdk_ps = sdk_psum + sdk_s * SDK_NPAIR * (sdk_i64)sdk_ntile * sdk_N;
  const sdk_i64 sdk_row = sdk_base + (sdk_i64)sdk_I * SDK_STPB + SDK_HALF_ROWS * sdk_lane;
  SDK_HOOK(rows, sdk_st_in, sdk_npad, sdk_row);
  const int sdk_K = (sdk_d1 - sdk_d0) * (SDK_STPB / SDK_HALF_COLS);
  for (int sdk_tau = 0; sdk_tau < sdk_K + 31; sdk_tau++) {
    const int sdk_b = sdk_tau - sdk_lane;
    if (sdk_b >= 0 && sdk_b < sdk_K) {
      const int sdk_d = sdk_d0 + sdk_b / (SDK_STPB / SDK_HALF_COLS),
                sdk_cb = sdk_b % (SDK_STPB / SDK_HALF_COLS);
      int sdk_J = sdk_I + sdk_d;
      if (sdk_J >= sdk_nfull) sdk_J -= sdk_nfull;
      const sdk_i64 sdk_q = sdk_base + (sdk_i64)sdk_J * SDK_STPB + SDK_HALF_COLS * sdk_cb;
      SDK_HOOK(pairs, sdk_q);
      /* row i's sum over tile J is complete */
      if (sdk_cb == SDK_STPB / SDK_HALF_COLS - 1) {
        SDK_HOOK(rows_out, sdk_ps);
      }
      /* column j's sum over tile I is complete in the last lane (the tile
       * with itself: the rows have them) */
      if (sdk_lane == 31 && sdk_d != 0) {
        SDK_HOOK(cols_out, sdk_ps);
      }
    }
    SDK_HOOK(shift);
    if (sdk_lane == 0) {
      SDK_HOOK(cols_zero);
    }
  }
}
/* The pairs of the last, partial tile: block e < ntile, rows of tile e
 * against the columns of the partial tile; block ntile + J, rows of the
 * partial tile against the full tile J; one row per thread, as the full
 * loop. */
extern "C" __global__ void __launch_bounds__(SDK_STPB)
    sdk_sys_edge(const real *__restrict__ sdk_st_in, sdk_i64 sdk_npad,
                 const real *__restrict__ sdk_sv, sdk_i64 sdk_N, sdk_i64 sdk_spg, sdk_i64 sdk_nsys,
                 sdk_i64 sdk_n, real *sdk_psum) {
  const int sdk_nfull = (int)(sdk_N / SDK_STPB),
            sdk_ntile = (int)((sdk_N + SDK_STPB - 1) / SDK_STPB);
  (void)sdk_nsys;
  const int sdk_nb = sdk_ntile + sdk_nfull, sdk_tid = threadIdx.x;
  const sdk_i64 sdk_s = blockIdx.x / sdk_nb;
  const int sdk_e = (int)(blockIdx.x - sdk_s * sdk_nb);
  const int sdk_ti = sdk_e < sdk_ntile ? sdk_e : sdk_nfull,
            sdk_tj = sdk_e < sdk_ntile ? sdk_nfull : sdk_e - sdk_ntile;
  __shared__ real sdk_sx[SDK_NV][SDK_STPB];
  const sdk_i64 sdk_g = sdk_s / sdk_spg, sdk_base = sdk_s * sdk_N;
  (void)sdk_g;
  SDK_HOOK(scope, sdk_sv, sdk_n);
  const sdk_i64 sdk_li = (sdk_i64)sdk_ti * SDK_STPB + sdk_tid,
                sdk_lj = (sdk_i64)sdk_tj * SDK_STPB + sdk_tid;
  if (sdk_lj < sdk_N) {
    SDK_HOOK(edge_load, sdk_st_in, sdk_npad, sdk_base, sdk_sx);
  }
  __syncthreads();
  if (sdk_li >= sdk_N) return;
  const int sdk_cntj =
      (int)(sdk_N - (sdk_i64)sdk_tj * SDK_STPB < SDK_STPB ? sdk_N - (sdk_i64)sdk_tj * SDK_STPB
                                                          : SDK_STPB);
  SDK_HOOK(edge_row);
  for (int sdk_jj = 0; sdk_jj < sdk_cntj; sdk_jj++) {
    SDK_HOOK(edge_pair);
  }
  SDK_HOOK(edge_out, sdk_psum);
}
