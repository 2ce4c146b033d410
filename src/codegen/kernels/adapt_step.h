#line 2 "kernels/adapt_step.h"
/* One step n of dt (dt-max) of a path as adaptive dyadic sub-steps
 * (codegen/adaptive.c explains the construction, the estimate and the
 * controller): written by both drivers in place of the step's noise and the
 * scheme's step, with the state in sdk_x<v>, the parameters, sdk_t0 (step
 * n's time) and sdk_dt in scope.  Hooks (adaptive.c): walk (the cached walks
 * of the Brownian tree through step n, one per channel, rng/btree.h), noise
 * (their increments over the sub-step as sdk_z<j>), moved (the walks after
 * an accepted sub-step, sdk_pos its end, sdk_lev its level), pair (the
 * scheme's step from sdk_y<v> = sdk_x<v> and its embedded partner's, and
 * their error norm sdk_err and sdk_ok: every component within tolerance), back (sdk_x<v> =
 * sdk_y<v>: a rejected sub-step), bound and hit ([boundaries], boundary.c: the tentative end's
 * reflections, hit and bridge crossing probabilities, sdk_cross set where
 * the sub-step must be shorter; an accepted one's bridge draws and the
 * path's status), time0, time and timenext (a periodic model's phase
 * time: the step's kept, the try's sdk_tp0, the next sub-step's after an
 * accepted one ends at sdk_pos inside the step).  Holes (adaptive.c, at the module's head):
 * SDK_ADAPT_ROW(k) the controller's carried value k (codegen.h SDK_CG_ADAPT_ROWS), SDK_ADAPT_LEV0
 * and SDK_ADAPT_LEVMAX the levels of the first try and of dt-min, SDK_ADAPT_GROW the error below
 * which the next try doubles, SDK_ADAPT_SHRINK1..3 those above which a retry is 2, 3, 4 levels
 * finer, SDK_ADAPT_QCROSS -ln of the crossing probability above which a sub-step is retried one
 * level finer, SDK_ADAPT_LIVE whether the path is alive (not absorbed: it takes no more sub-steps);
 * SDK_BTREE_DEPTH (btree.h); sdk_nfirst the step's index (adaptive.c). SDK_ADAPT_SLICES (CUDA
 * without [boundaries]): the file takes all the steps sdk_nfirst .. sdk_nend - 1 of a launch, step
 * sdk_ns's time (real)(sdk_ns SDK_ADAPT_DT) as the driver computes it, hook restart (the walks of
 * the next step, a periodic model's phase time). */
#ifdef SDK_KERNEL_ALONE
static void sdk_adapt_alone_(real sdk_t0, real sdk_dt, real *sdk_row, sdk_i64 sdk_nfirst) {
#define SDK_ADAPT_ROW(k) sdk_row[k]
#endif
  {
    const double sdk_db = sdk_dt;
    SDK_HOOK(time0);
    const double sdk_unit = 1.0 / (double)(1ull << SDK_BTREE_DEPTH);
    /* the counts as two rows each, mod 2^20 and >> 20: exact in single
     * precision too (integers here: no double add per sub-step) */
    int sdk_lev = SDK_ADAPT_LEV0 + (int)SDK_ADAPT_ROW(0), sdk_ldeep = (int)SDK_ADAPT_ROW(5);
    sdk_u64 sdk_nacc = (sdk_u64)SDK_ADAPT_ROW(1) + ((sdk_u64)SDK_ADAPT_ROW(2) << 20);
    sdk_u64 sdk_nrej = (sdk_u64)SDK_ADAPT_ROW(3) + ((sdk_u64)SDK_ADAPT_ROW(4) << 20);
    /* positions and lengths in units of 2^-D of the step: 32-bit integers
     * (2^D <= 2^30), no 64-bit shifts and adds per sub-step */
    sdk_u32 sdk_pos = 0;
#if SDK_BTREE_DEPTH > 30
#error "adapt_step.h: 32-bit positions need SDK_BTREE_DEPTH <= 30"
#endif
    /* the sub-step's length, its square root and 1/sqrt(h): the same values
     * at every try of one level, so computed where the level changes (none
     * of it for a sub-step of the same level as the last) */
    double sdk_hzs = 0;
    real sdk_hdt = 0, sdk_hsq = 0;
#define SDK_ADAPT_LEVEL_                                                                           \
  {                                                                                                \
    const double sdk_hd = (double)(1u << (SDK_BTREE_DEPTH - sdk_lev)) * sdk_unit;                  \
    const real sdk_dt = sdk_db * sdk_hd;                                                           \
    sdk_hdt = sdk_dt, sdk_hsq = sqrt(sdk_dt), sdk_hzs = 1.0 / sqrt(sdk_hd);                        \
  }
    SDK_ADAPT_LEVEL_
#ifdef SDK_ADAPT_SLICES
    /* the steps sdk_ns .. sdk_nend - 1 of the launch in one loop of
     * sub-steps: a lane whose step is done goes on with its next one, so a
     * warp runs as many tries as its busiest lane over the launch, not the
     * sum over the steps of each step's busiest lane's */
    sdk_i64 sdk_ns = sdk_nfirst;
    real sdk_tb = sdk_t0; /* (a value of the run's precision, as the driver's) */
#define SDK_ADAPT_MORE_ (sdk_ns < sdk_nend)
#else
  const sdk_i64 sdk_ns = sdk_nfirst;
  const real sdk_tb = sdk_t0;
  (void)sdk_ns;
#define SDK_ADAPT_MORE_ (sdk_pos < (1u << SDK_BTREE_DEPTH))
#endif
    /* the time of the sub-step's start (its phase time: hook time0), set
     * where a sub-step is accepted and where a step starts, not at every
     * try */
    real sdk_tcur = sdk_tb;
    SDK_HOOK(walk);
#ifdef SDK_ADAPT_WHOLE
    /* whether step sdk_ns starts a block of four (a multiple of 4) that the
     * launch holds: set where a step starts, so that a try tests it and the
     * level alone (level 0 is a step's start: pos is a multiple of 2^D) */
#define SDK_ADAPT_GO4_ ((sdk_ns & 3) == 0 && sdk_nend - sdk_ns >= 4)
    int sdk_go4 = SDK_ADAPT_GO4_;
#endif
    while (SDK_ADAPT_MORE_ && SDK_ADAPT_LIVE) {
#ifdef SDK_ADAPT_WHOLE
      /* four whole steps of dt-max at once where the lane starts a block of
       * four at level 0 (hook whole: a tolerance that accepts them costs
       * their pairs and little else); a rejected one goes on below */
      if (sdk_go4 && sdk_lev == 0) {
        int sdk_k = 0;
        SDK_HOOK(whole);
        if (sdk_k > 0) {
          sdk_nacc += (sdk_u64)sdk_k;
          if (sdk_ldeep < 0) sdk_ldeep = 0;
          SDK_HOOK(rewalk);
          sdk_go4 = SDK_ADAPT_GO4_;
          continue;
        }
      }
#endif
      /* (the sub-step's end is a multiple of its length: pos is 0 at a
       * step's start, a retry is finer, and a longer next try is taken only
       * where pos is a multiple of it, below) */
      const sdk_u32 sdk_hu = 1u << (SDK_BTREE_DEPTH - sdk_lev);
      {
        const real sdk_dt = sdk_hdt;
        const real sdk_sqdt = sdk_hsq;
        const real sdk_t0 = sdk_tcur;
        SDK_HOOK(time);
        /* z = dW / sqrt(h): the tree's B increment over the sub-step */
        const double sdk_zs = sdk_hzs;
        real sdk_err = 0; /* (the run's precision: a float division, not a double one) */
        int sdk_ok = 1;   /* every component within its tolerance (hook pair) */
        (void)sdk_sqdt, (void)sdk_t0, (void)sdk_zs;
        SDK_HOOK(noise, sdk_pos, sdk_lev, sdk_zs);
        SDK_HOOK(pair, sdk_dt, sdk_sqdt, sdk_t0, sdk_err);
        if (sdk_err != sdk_err) sdk_err = (real)1e30; /* NaN: down to dt-min, then taken */
        int sdk_cross = 0; /* a boundary reached or likely crossed: shorter */
        SDK_HOOK(bound, sdk_cross);
        if ((sdk_ok && !sdk_cross) || sdk_lev >= SDK_ADAPT_LEVMAX) {
          SDK_HOOK(hit, sdk_lev, sdk_pos, sdk_hu);
          sdk_pos += sdk_hu;
          SDK_HOOK(moved);
          if (sdk_pos <
              (1u << SDK_BTREE_DEPTH)) { /* (at a step's start, the step's time as it is) */
            sdk_tcur = (real)((double)sdk_tb + sdk_db * ((double)sdk_pos * sdk_unit));
            SDK_HOOK(timenext, sdk_pos, sdk_unit);
          }
          sdk_nacc += 1;
          if (sdk_lev > sdk_ldeep) sdk_ldeep = sdk_lev;
          /* twice as long next where the new position is a multiple of
           * 2 h (else the same: pos + h is a multiple of h) */
          if (sdk_lev > 0 && sdk_err <= SDK_ADAPT_GROW && (sdk_pos & sdk_hu) == 0u) {
            sdk_lev--;
            SDK_ADAPT_LEVEL_
          }
        } else {
          SDK_HOOK(back);
          sdk_nrej += 1;
          sdk_lev += 1 + (sdk_err > SDK_ADAPT_SHRINK1) + (sdk_err > SDK_ADAPT_SHRINK2) +
                     (sdk_err > SDK_ADAPT_SHRINK3);
          if (sdk_lev > SDK_ADAPT_LEVMAX) sdk_lev = SDK_ADAPT_LEVMAX;
          SDK_ADAPT_LEVEL_ /* (finer: a new level) */
        }
      }
#ifdef SDK_ADAPT_SLICES
      if (sdk_pos == (1u << SDK_BTREE_DEPTH)) { /* step sdk_ns done: the next */
        sdk_pos = 0;
        /* (one loop, its one condition above, so a lane whose step ends
         * goes on with the next without waiting for the warp's others; after
         * the launch's last step the next one's walks are started and not
         * used: one draw per launch, no second test per step) */
        ++sdk_ns;
        sdk_tb = (real)((double)sdk_ns * SDK_ADAPT_DT); /* (the driver's sdk_t0) */
        sdk_tcur = sdk_tb;
        SDK_HOOK(restart);
#ifdef SDK_ADAPT_WHOLE
        sdk_go4 = SDK_ADAPT_GO4_;
#endif
      }
#endif
    }
#undef SDK_ADAPT_MORE_
#undef SDK_ADAPT_GO4_
#undef SDK_ADAPT_LEVEL_
    SDK_ADAPT_ROW(0) = (real)(sdk_lev - SDK_ADAPT_LEV0);
    SDK_ADAPT_ROW(1) = (real)(sdk_nacc & 0xfffffu);
    SDK_ADAPT_ROW(2) = (real)(sdk_nacc >> 20);
    SDK_ADAPT_ROW(3) = (real)(sdk_nrej & 0xfffffu);
    SDK_ADAPT_ROW(4) = (real)(sdk_nrej >> 20);
    SDK_ADAPT_ROW(5) = (real)sdk_ldeep;
  }
#ifdef SDK_KERNEL_ALONE
#undef SDK_ADAPT_ROW
}
#endif
