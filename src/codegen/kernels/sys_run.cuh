#line 2 "kernels/sys_run.cuh"
/* sdk_sys_run: many steps of mean-field systems in one cooperative launch
 * (codegen/sys_cuda.c has the work and reduction contract).  Block b owns
 * groups [G b / B, G (b+1) / B) of the G = nsys * nblk groups (in system
 * order), and the systems (at most msys) they belong to; of its J chunks,
 * Rb = min(R, J), spread evenly (chunk j when (j + 1) Rb / J > j Rb / J, in
 * slot j Rb / J), live in shared memory for the whole launch (see
 * sdk_sys_group, sys_group.cuh), the others stream through device memory.
 * Every step the block writes its groups' sums, meets the others at the
 * step barrier (bar: 0 at the start) and forms the sums of its systems from
 * their groups' (the half of part of step n + 1 is written again only after
 * the next barrier, which every block reaches after reading it).  The sums
 * of step step0 must be in sums[step0 & 1]; the owner of a system's group 0
 * writes its sums of every step (and, one system per grid point, its
 * order-parameter row: obs + r * nsys * 4).
 *
 * Holes: real, sdk_i64, sdk_u64, SDK_NRED, SDK_STPB, SDK_MINB_RUN, SDK_CH,
 * SDK_NV, SDK_OCOS and SDK_OSIN (the order parameter's sums, -1: none). */
extern __shared__ __align__(16) unsigned char sdk_dsm[];
extern "C" __global__ void __launch_bounds__(SDK_STPB, SDK_MINB_RUN)
    sdk_sys_run(real *sdk_st, sdk_i64 sdk_npad, const real *__restrict__ sdk_sv, sdk_i64 sdk_N,
                sdk_i64 sdk_nsys, sdk_i64 sdk_spg, int sdk_nblk, int sdk_cpb, sdk_i64 sdk_step0,
                int sdk_nsteps, sdk_u64 sdk_seed, double *sdk_sums, double *sdk_part,
                unsigned *sdk_bar, double *sdk_obs, sdk_i64 sdk_obs_every, int sdk_R,
                int sdk_msys) {
  __shared__ double sdk_sred[2 * SDK_STPB / 32][SDK_NRED];
  double *sdk_tot = (double *)sdk_dsm; /* [msys][SDK_NRED] */
  real *sdk_xs =
      (real *)(sdk_dsm + (((size_t)sdk_msys * SDK_NRED * sizeof(double) + 15) & ~(size_t)15));
  const int sdk_tid = threadIdx.x, sdk_gsz = sdk_cpb * SDK_CH;
  const sdk_i64 sdk_G = sdk_nsys * sdk_nblk, sdk_B = gridDim.x;
  const sdk_i64 sdk_gb0 = sdk_G * blockIdx.x / sdk_B, sdk_gb1 = sdk_G * (blockIdx.x + 1) / sdk_B;
  const sdk_i64 sdk_slo = sdk_gb0 / sdk_nblk, sdk_shi = (sdk_gb1 - 1) / sdk_nblk;
  const int sdk_J = (int)(sdk_gb1 - sdk_gb0) * sdk_cpb, sdk_Rb = sdk_R < sdk_J ? sdk_R : sdk_J;
  const sdk_i64 sdk_vss = (sdk_i64)sdk_R * SDK_CH;
  /* the slot of each chunk of the block (-1: streamed), after x */
  short *sdk_slot_of = (short *)(sdk_xs + SDK_NV * sdk_vss);
  for (int sdk_j = sdk_tid; sdk_j < sdk_J; sdk_j += SDK_STPB) {
    const int sdk_sl = (int)((sdk_i64)sdk_j * sdk_Rb / sdk_J);
    sdk_slot_of[sdk_j] =
        (int)(((sdk_i64)sdk_j + 1) * sdk_Rb / sdk_J) > sdk_sl ? (short)sdk_sl : (short)-1;
  }
  __syncthreads();
  const sdk_i64 sdk_hs = sdk_nsys * SDK_NRED;
  const double sdk_invN = 1.0 / (double)sdk_N;
  (void)sdk_invN;
  (void)sdk_obs;
  (void)sdk_obs_every;
  for (sdk_i64 sdk_i = sdk_tid; sdk_i < (sdk_shi - sdk_slo + 1) * SDK_NRED; sdk_i += SDK_STPB)
    sdk_tot[sdk_i] = __ldcg(sdk_sums + (sdk_step0 & 1) * sdk_hs + sdk_slo * SDK_NRED + sdk_i);
  for (int sdk_pass = 0; sdk_pass < 2; sdk_pass++) {
    if (sdk_pass == 1) { /* the steps, then the resident chunks out */
      for (int sdk_it = 0; sdk_it < sdk_nsteps; sdk_it++) {
        const sdk_i64 sdk_n = sdk_step0 + sdk_it;
        double *sdk_pw = sdk_part + ((sdk_n + 1) & 1) * sdk_G * SDK_NRED;
        for (sdk_i64 sdk_gr = sdk_gb0; sdk_gr < sdk_gb1; sdk_gr++) {
          const sdk_i64 sdk_s = sdk_gr / sdk_nblk, sdk_c = sdk_gr - sdk_s * sdk_nblk,
                        sdk_gi0 = sdk_c * sdk_gsz;
          const int sdk_glen = (int)(sdk_N - sdk_gi0 < sdk_gsz ? sdk_N - sdk_gi0 : sdk_gsz);
          sdk_sys_group(sdk_st + sdk_s * sdk_N + sdk_gi0, sdk_npad, sdk_xs, sdk_vss,
                        (int)(sdk_gr - sdk_gb0) * sdk_cpb,
                        sdk_Rb > 0 ? sdk_slot_of : (const short *)0, sdk_glen, sdk_s, sdk_c, sdk_N,
                        sdk_spg, sdk_gsz, sdk_sv, sdk_n, sdk_seed, 1,
                        sdk_tot + (sdk_s - sdk_slo) * SDK_NRED, sdk_pw + sdk_gr * SDK_NRED,
                        sdk_sred, (int)(sdk_gr - sdk_gb0) & 1);
        }
        sdk_grid_sync(sdk_bar, (unsigned)(sdk_it + 1) * (unsigned)sdk_B);
        for (sdk_i64 sdk_s = sdk_slo; sdk_s <= sdk_shi; sdk_s++) {
          double *sdk_ts = sdk_tot + (sdk_s - sdk_slo) * SDK_NRED;
          sdk_sys_total(sdk_pw + sdk_s * sdk_nblk * SDK_NRED, sdk_nblk, sdk_sred, sdk_ts);
          if (sdk_tid == 0 && sdk_s * sdk_nblk >= sdk_gb0) { /* the system's owner */
            for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++)
              sdk_sums[((sdk_n + 1) & 1) * sdk_hs + sdk_s * SDK_NRED + sdk_k] = sdk_ts[sdk_k];
#if SDK_OCOS >= 0
            if (sdk_obs && (sdk_n + 1) % sdk_obs_every == 0) {
              const sdk_i64 sdk_row = (sdk_n + 1) / sdk_obs_every - sdk_step0 / sdk_obs_every - 1;
              const double sdk_zr = sdk_ts[SDK_OCOS] * sdk_invN,
                           sdk_zi = sdk_ts[SDK_OSIN] * sdk_invN,
                           sdk_z2 = sdk_zr * sdk_zr + sdk_zi * sdk_zi;
              double *sdk_o = sdk_obs + (sdk_row * sdk_nsys + sdk_s) * 4;
              sdk_o[0] = sqrt(sdk_z2);
              sdk_o[1] = sdk_z2;
              sdk_o[2] = sdk_zr;
              sdk_o[3] = sdk_zi;
            }
#endif
          }
        }
      }
      __syncthreads();
    }
    /* pass 0: the resident chunks in; pass 1: out */
    for (int sdk_j = 0; sdk_Rb > 0 && sdk_j < sdk_J; sdk_j++) {
      const int sdk_slot = sdk_slot_of[sdk_j];
      if (sdk_slot < 0) continue;
      const sdk_i64 sdk_gr = sdk_gb0 + sdk_j / sdk_cpb, sdk_s = sdk_gr / sdk_nblk;
      const sdk_i64 sdk_c0 = (sdk_gr - sdk_s * sdk_nblk) * sdk_gsz + (sdk_j % sdk_cpb) * SDK_CH;
      const int sdk_clen = (int)(sdk_N - sdk_c0 < SDK_CH ? sdk_N - sdk_c0 : SDK_CH);
      for (int sdk_v = 0; sdk_v < SDK_NV; sdk_v++)
        for (int sdk_i = sdk_tid; sdk_i < sdk_clen; sdk_i += SDK_STPB) {
          real *sdk_d = sdk_st + sdk_v * sdk_npad + sdk_s * sdk_N + sdk_c0 + sdk_i;
          real *sdk_h = sdk_xs + sdk_v * sdk_vss + (sdk_i64)sdk_slot * SDK_CH + sdk_i;
          if (sdk_pass == 0)
            *sdk_h = *sdk_d;
          else
            *sdk_d = *sdk_h;
        }
    }
    if (sdk_pass == 0) __syncthreads();
  }
}
