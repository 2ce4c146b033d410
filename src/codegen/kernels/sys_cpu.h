#line 2 "kernels/sys_cpu.h"
/* The CPU driver of systems of interacting particles (codegen/sys_cpu.c
 * explains it): sdk_advance_sys and the functions it calls per chunk of
 * SDK_BLK particles, sdk_red_chunk (the sums of the reduced expressions) and
 * sdk_pair_chunk (the pair functions, pair models).
 *
 * Holes: real, sdk_i64, sdk_u64, SDK_BLK, SDK_NV, SDK_NN, SDK_NSV, SDK_NRED,
 * SDK_NMEAN, SDK_NPAIR, SDK_NPART (each at least 1), SDK_JB (particles j
 * per block of a pair sum), SDK_PAIRS (1: a pair model), SDK_NDRAW
 * (particle parameters drawn), SDK_NOISE_VPB (values of a Philox block,
 * the noise source's), SDK_OCOS and SDK_OSIN (the order parameter's
 * sums, -1: none); sdk_threads (codegen/cpu_paths.c).  Hooks
 * (codegen/sys_cpu.c): red_scope, pair_scope (the parameters and times of
 * step n), red_values (particle p's reduced expressions), red_sums (their
 * sums, SDK_RED_SUM), pair_j (particle j's values and parameters),
 * pair_values (particle i's pair functions with j), draw (the parameters of
 * particle p), noise_quad, noise_lane (a quad's Philox block of this step,
 * by its noise source), update (the step of particle p0 + i). */
#include <stdlib.h>

/* the sum of reduced expression k over the chunk's particles, in double */
#define SDK_RED_SUM(k)                                                                             \
  {                                                                                                \
    double sdk_a = 0;                                                                              \
    for (int sdk_i = 0; sdk_i < sdk_cnt; sdk_i++)                                                  \
      sdk_a += (double)sdk_vals[k][sdk_i];                                                         \
    sdk_out[k] = sdk_a;                                                                            \
  }

/* sums of the reduced expressions over particles [i0, i0 + cnt) of one system */
static void sdk_red_chunk(const real *restrict sdk_st, sdk_i64 sdk_npad,
                          const real *restrict sdk_sv, sdk_i64 sdk_g, const real *restrict sdk_pp,
                          sdk_i64 sdk_i0, int sdk_cnt, sdk_i64 sdk_n, sdk_u64 sdk_seed,
                          double *restrict sdk_out) {
  real sdk_vals[SDK_NRED][SDK_BLK];
  (void)sdk_sv;
  (void)sdk_g;
  (void)sdk_pp;
  (void)sdk_seed;
  SDK_HOOK(red_scope, sdk_n);
#pragma omp simd
  for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
    const sdk_i64 sdk_p = sdk_i0 + (sdk_i < sdk_cnt ? sdk_i : 0);
    SDK_HOOK(red_values, sdk_st, sdk_npad, sdk_p, sdk_vals);
  }
  SDK_HOOK(red_sums, sdk_out);
}

#if SDK_PAIRS
/* pair functions of particles [i0, i0 + cnt) of the system starting at s0:
 * particle i's sum over j in blocks of SDK_JB (float within a block, double
 * across blocks), i vectorised */
static void sdk_pair_chunk(const real *restrict sdk_st, sdk_i64 sdk_npad,
                           const real *restrict sdk_sv, sdk_i64 sdk_g, const real *restrict sdk_pp,
                           sdk_i64 sdk_s0, sdk_i64 sdk_N, sdk_i64 sdk_i0, int sdk_cnt,
                           sdk_i64 sdk_n, sdk_u64 sdk_seed, real *restrict sdk_fp) {
  (void)sdk_sv;
  (void)sdk_g;
  (void)sdk_pp;
  (void)sdk_seed;
  SDK_HOOK(pair_scope, sdk_n);
  real sdk_xi[SDK_NV][SDK_BLK], sdk_ppi[SDK_NPART][SDK_BLK];
  double sdk_accd[SDK_NPAIR][SDK_BLK];
  for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
    const sdk_i64 sdk_p = sdk_i0 + (sdk_i < sdk_cnt ? sdk_i : 0);
    for (int sdk_v = 0; sdk_v < SDK_NV; sdk_v++)
      sdk_xi[sdk_v][sdk_i] = sdk_st[sdk_v * sdk_npad + sdk_p];
    for (int sdk_k = 0; sdk_k < SDK_NPART; sdk_k++)
      sdk_ppi[sdk_k][sdk_i] = sdk_pp ? sdk_pp[sdk_k * sdk_npad + sdk_p] : 0;
    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++)
      sdk_accd[sdk_k][sdk_i] = 0;
  }
  for (sdk_i64 sdk_j0 = 0; sdk_j0 < sdk_N; sdk_j0 += SDK_JB) {
    const sdk_i64 sdk_nj = sdk_N - sdk_j0 < SDK_JB ? sdk_N - sdk_j0 : SDK_JB;
    real sdk_acc[SDK_NPAIR][SDK_BLK];
    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++)
      for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++)
        sdk_acc[sdk_k][sdk_i] = 0;
    for (sdk_i64 sdk_jj = 0; sdk_jj < sdk_nj; sdk_jj++) {
      const sdk_i64 sdk_q = sdk_s0 + sdk_j0 + sdk_jj;
      SDK_HOOK(pair_j, sdk_q);
#pragma omp simd
      for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
        SDK_HOOK(pair_values, sdk_xi, sdk_ppi, sdk_acc);
      }
    }
    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++)
      for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++)
        sdk_accd[sdk_k][sdk_i] += (double)sdk_acc[sdk_k][sdk_i];
  }
  for (int sdk_i = 0; sdk_i < sdk_cnt; sdk_i++)
    for (int sdk_k = 0; sdk_k < SDK_NPAIR; sdk_k++)
      sdk_fp[sdk_k * sdk_npad + sdk_i0 + sdk_i] = (real)(sdk_accd[sdk_k][sdk_i] / (double)sdk_N);
}
#endif

int sdk_advance_sys(real *restrict sdk_st, sdk_i64 sdk_npad, const real *restrict sdk_sv,
                    sdk_i64 sdk_ppg, sdk_i64 sdk_ngrid, sdk_i64 sdk_path0, sdk_i64 sdk_step0,
                    sdk_i64 sdk_nsteps, sdk_u64 sdk_seed, int sdk_nthreads, sdk_i64 sdk_N,
                    sdk_i64 sdk_obs_every, double *sdk_obs, sdk_i64 sdk_nloc,
                    int (*sdk_xchg)(void *, double *), void *sdk_xu) {
  const sdk_i64 sdk_ntot = sdk_ngrid * sdk_ppg, sdk_nsys = sdk_ntot / sdk_N,
                sdk_nch = (sdk_N + SDK_BLK - 1) / SDK_BLK;
  const sdk_i64 sdk_nblk = sdk_npad / SDK_BLK;
  /* this shard's chunks [sdk_q0, sdk_q1) (shards begin and end on chunks) */
  const sdk_i64 sdk_e1 = sdk_path0 + sdk_nloc;
  const sdk_i64 sdk_q0 = (sdk_path0 / sdk_N) * sdk_nch + (sdk_path0 % sdk_N) / SDK_BLK;
  const sdk_i64 sdk_q1 = sdk_e1 >= sdk_ntot
                             ? sdk_nsys * sdk_nch
                             : (sdk_e1 / sdk_N) * sdk_nch + (sdk_e1 % sdk_N) / SDK_BLK;
  double *sdk_sums = calloc((size_t)(sdk_nsys + 1) * SDK_NRED, sizeof(double));
  double *sdk_part = malloc((size_t)(sdk_nsys * sdk_nch) * SDK_NRED * sizeof(double));
  real *sdk_pp = malloc((size_t)sdk_npad * SDK_NPART * sizeof(real));
  real *sdk_fp = calloc((size_t)sdk_npad * SDK_NPAIR, sizeof(real));
  if (!sdk_sums || !sdk_part || !sdk_pp || !sdk_fp) {
    free(sdk_sums);
    free(sdk_part);
    free(sdk_pp);
    free(sdk_fp);
    return 1;
  }
  sdk_i64 sdk_orow = 0;
  (void)sdk_orow;
  (void)sdk_obs;
  (void)sdk_obs_every;
#pragma omp parallel num_threads(sdk_threads(sdk_nthreads))
  {
#if SDK_NDRAW > 0
    /* per-particle parameters (Philox domain 2), by blocks as the steps: a
     * loop over each thread's share of particles was vectorised from where
     * the share began, so a particle at a share's edge took the scalar
     * logarithm and sine of the Gaussians, an ulp from the vector ones, and
     * the bits depended on the number of threads */
#pragma omp for schedule(static)
    for (sdk_i64 sdk_blk = 0; sdk_blk < sdk_nblk; sdk_blk++)
      for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
        const sdk_i64 sdk_p = sdk_blk * SDK_BLK + sdk_i;
        sdk_i64 sdk_g = (sdk_path0 + sdk_p) / sdk_ppg;
        if (sdk_g >= sdk_ngrid) sdk_g = sdk_ngrid - 1;
        (void)sdk_g;
        SDK_HOOK(draw, sdk_g, sdk_p);
      }
#endif
    for (sdk_i64 sdk_n = sdk_step0;; sdk_n++) {
      /* sums over each system at step n */
#pragma omp for schedule(static)
      for (sdk_i64 sdk_q = sdk_q0; sdk_q < sdk_q1; sdk_q++) {
        const sdk_i64 sdk_s = sdk_q / sdk_nch, sdk_c = sdk_q - sdk_s * sdk_nch;
        const int sdk_cnt =
            (int)(sdk_N - sdk_c * SDK_BLK < SDK_BLK ? sdk_N - sdk_c * SDK_BLK : SDK_BLK);
        sdk_red_chunk(sdk_st, sdk_npad, sdk_sv, (sdk_s * sdk_N) / sdk_ppg, sdk_pp,
                      sdk_s * sdk_N + sdk_c * SDK_BLK - sdk_path0, sdk_cnt, sdk_n, sdk_seed,
                      sdk_part + sdk_q * SDK_NRED);
      }
      if (sdk_xchg) {
        /* the other ranks' chunks (MPI from the master thread only) */
#pragma omp master
        sdk_xchg(sdk_xu, sdk_part);
#pragma omp barrier
      }
#pragma omp for schedule(static)
      for (sdk_i64 sdk_s = 0; sdk_s < sdk_nsys; sdk_s++)
        for (int sdk_k = 0; sdk_k < SDK_NRED; sdk_k++) {
          double sdk_a = 0;
          for (sdk_i64 sdk_c = 0; sdk_c < sdk_nch; sdk_c++)
            sdk_a += sdk_part[(sdk_s * sdk_nch + sdk_c) * SDK_NRED + sdk_k];
          sdk_sums[sdk_s * SDK_NRED + sdk_k] = sdk_a;
        }
#if SDK_OCOS >= 0
      /* order parameter of the state at step n: per grid point, over its systems,
       * sums of |Z|, |Z|^2, Re Z, Im Z with Z = <exp(i k x)> of the system */
      if (sdk_obs && (sdk_nsteps == 0 ||
                      (sdk_n > sdk_step0 && sdk_obs_every > 0 && sdk_n % sdk_obs_every == 0))) {
#pragma omp single
        {
          const sdk_i64 sdk_spg = sdk_ppg / sdk_N;
          for (sdk_i64 sdk_g = 0; sdk_g < sdk_ngrid; sdk_g++) {
            double sdk_a = 0, sdk_a2 = 0, sdk_re = 0, sdk_im = 0;
            for (sdk_i64 sdk_s = sdk_g * sdk_spg; sdk_s < (sdk_g + 1) * sdk_spg; sdk_s++) {
              const double sdk_zr = sdk_sums[sdk_s * SDK_NRED + SDK_OCOS] / (double)sdk_N;
              const double sdk_zi = sdk_sums[sdk_s * SDK_NRED + SDK_OSIN] / (double)sdk_N;
              const double sdk_z2 = sdk_zr * sdk_zr + sdk_zi * sdk_zi;
              sdk_a += sqrt(sdk_z2);
              sdk_a2 += sdk_z2;
              sdk_re += sdk_zr;
              sdk_im += sdk_zi;
            }
            double *sdk_o = sdk_obs + (sdk_orow * sdk_ngrid + sdk_g) * 4;
            sdk_o[0] = sdk_a;
            sdk_o[1] = sdk_a2;
            sdk_o[2] = sdk_re;
            sdk_o[3] = sdk_im;
          }
          sdk_orow++;
        }
      }
#endif
      if (sdk_n >= sdk_step0 + sdk_nsteps) break;
#if SDK_PAIRS
        /* pair functions at step n */
#pragma omp for schedule(dynamic, 1)
      for (sdk_i64 sdk_q = 0; sdk_q < sdk_nsys * sdk_nch; sdk_q++) {
        const sdk_i64 sdk_s = sdk_q / sdk_nch, sdk_c = sdk_q - sdk_s * sdk_nch;
        const int sdk_cnt =
            (int)(sdk_N - sdk_c * SDK_BLK < SDK_BLK ? sdk_N - sdk_c * SDK_BLK : SDK_BLK);
        sdk_pair_chunk(sdk_st, sdk_npad, sdk_sv, (sdk_s * sdk_N) / sdk_ppg, sdk_pp, sdk_s * sdk_N,
                       sdk_N, sdk_s * sdk_N + sdk_c * SDK_BLK, sdk_cnt, sdk_n, sdk_seed, sdk_fp);
      }
#endif
      /* one Euler step of every particle */
#pragma omp for schedule(static)
      for (sdk_i64 sdk_blk = 0; sdk_blk < sdk_nblk; sdk_blk++) {
        const sdk_i64 sdk_p0 = sdk_blk * SDK_BLK;
#if SDK_NN > 0
        /* this step's Gaussians (domain 3, by quads of a system) */
        real sdk_zb[SDK_NN][SDK_BLK];
        for (int sdk_j = 0; sdk_j < SDK_NN; sdk_j++) {
          const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + (sdk_u64)sdk_j;
          /* N % 4 == 0: the quads are aligned with the global index (quad p >> 2) */
          if (sdk_N % 4 == 0) {
#pragma omp simd
            for (int sdk_q = 0; sdk_q < SDK_BLK / 4; sdk_q++) {
              real sdk_g4[SDK_NOISE_VPB];
              SDK_HOOK(noise_quad, sdk_k, sdk_g4);
              for (int sdk_l = 0; sdk_l < 4; sdk_l++)
                sdk_zb[sdk_j][4 * sdk_q + sdk_l] = sdk_g4[sdk_l];
            }
          } else {
            const sdk_i64 sdk_nq = (sdk_N + 3) / 4;
            for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
              const sdk_i64 sdk_p = sdk_path0 + sdk_p0 + sdk_i, sdk_s = sdk_p / sdk_N,
                            sdk_li = sdk_p - sdk_s * sdk_N;
              real sdk_g4[SDK_NOISE_VPB];
              SDK_HOOK(noise_lane, sdk_k, sdk_nq, sdk_s, sdk_g4);
              sdk_zb[sdk_j][sdk_i] = sdk_g4[sdk_li & 3];
            }
          }
        }
#endif
        real sdk_mv[SDK_NMEAN][SDK_BLK], sdk_spv[SDK_NSV][SDK_BLK];
        {
          sdk_i64 sdk_s = (sdk_path0 + sdk_p0) / sdk_N, sdk_bnd = (sdk_s + 1) * sdk_N;
          for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
            if (sdk_path0 + sdk_p0 + sdk_i >= sdk_bnd) {
              sdk_s++;
              sdk_bnd += sdk_N;
            }
            const sdk_i64 sdk_sr = sdk_s < sdk_nsys ? sdk_s : sdk_nsys; /* padding: the zero row */
            for (int sdk_k = 0; sdk_k < SDK_NMEAN; sdk_k++)
              sdk_mv[sdk_k][sdk_i] = (real)(sdk_sums[sdk_sr * SDK_NRED + sdk_k] / (double)sdk_N);
            sdk_i64 sdk_g = (sdk_path0 + sdk_p0 + sdk_i) / sdk_ppg;
            if (sdk_g >= sdk_ngrid) sdk_g = sdk_ngrid - 1;
            for (int sdk_j = 0; sdk_j < SDK_NSV; sdk_j++)
              sdk_spv[sdk_j][sdk_i] = sdk_sv ? sdk_sv[sdk_g * SDK_NSV + sdk_j] : 0;
          }
        }
#pragma omp simd
        for (int sdk_i = 0; sdk_i < SDK_BLK; sdk_i++) {
          SDK_HOOK(update, sdk_mv, sdk_spv, sdk_fp, sdk_zb);
        }
      }
    }
  }
  free(sdk_sums);
  free(sdk_part);
  free(sdk_pp);
  free(sdk_fp);
  return 0;
}
