#line 2 "kernels/acf_add.h"
/* The autocovariance's sums accumulated by the kernel (codegen/acf.c,
 * observe/obs_acf.c): per path and sampled quantity, a ring of the last
 * K - 1 samples and the sums S_s = sum_t x_t x_{t-s} (s < K) and sum_t x_t,
 * in double precision whatever the run's, as the host's sums of obs_acf.c:
 * a float sample's products are exact in double (a fused multiply-add gives
 * the same bits), a double one's are rounded on their own before the sum
 * (no fused multiply-add: on the CPU through an opaque XOR, on CUDA through
 * __dmul_rn/__dadd_rn), so that double runs give the host's sums bitwise.
 * Single precision's rows hold a total as three floats (SDK_ACF_SPLIT),
 * exactly (short of underflow below ~1e-23).
 * Holes: real, SDK_ACF_SINGLE, SDK_ACF_CUDA (0 on the CPU, whose sdk_akz is
 * the opaque zero of kernels/opaque.h). */
#if SDK_ACF_CUDA
#define SDK_ACF_OPQD(v, k) (v)
#else /* (sdk_opqd_: kernels/opaque_d.h, emitted before this text) */
#define SDK_ACF_OPQD(v, k) sdk_opqd_((v), (k))
#endif
#if SDK_ACF_SINGLE
#define SDK_ACF_MAD(S, X, Y, k) ((S) += (X) * (Y))
#elif SDK_ACF_CUDA
#define SDK_ACF_MAD(S, X, Y, k) ((S) = __dadd_rn((S), __dmul_rn((X), (Y))))
#else
#define SDK_ACF_MAD(S, X, Y, k) ((S) = (S) + SDK_ACF_OPQD((X) * (Y), (k)))
#endif
/* a double total T as three floats (H, M, L) with H + M + L == T, and back
 * (single precision's rows) */
#define SDK_ACF_SPLIT(T, H, M, L, k)                                                               \
  do {                                                                                             \
    const double sdk_t_ = (T);                                                                     \
    const float sdk_h_ = (float)sdk_t_;                                                            \
    const double sdk_r_ = sdk_t_ - SDK_ACF_OPQD((double)sdk_h_, (k));                              \
    const float sdk_m_ = (float)sdk_r_;                                                            \
    (L) = (float)(sdk_r_ - SDK_ACF_OPQD((double)sdk_m_, (k)));                                     \
    (H) = sdk_h_;                                                                                  \
    (M) = sdk_m_;                                                                                  \
  } while (0)
#define SDK_ACF_MERGE(T, H, M, L, k)                                                               \
  ((T) = SDK_ACF_OPQD((double)(H) + (double)(M), (k)) + (double)(L))
