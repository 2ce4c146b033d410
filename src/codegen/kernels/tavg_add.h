#line 2 "kernels/tavg_add.h"
/* Time averages (codegen/codegen.h): Knuth's TwoSum of S + V into the sum S
 * and its error E (the error term exact whatever the magnitudes), each
 * rounded value through SDK_OPQ so that the CPU's fast math cannot fold the
 * error away.  Holes: real, SDK_OPQ. */
#define SDK_TAVG_ADD(S, E, V)                                                                      \
  do {                                                                                             \
    const real sdk_v_ = (V);                                                                       \
    const real sdk_s_ = SDK_OPQ((S) + sdk_v_);                                                     \
    const real sdk_b_ = SDK_OPQ(sdk_s_ - (S));                                                     \
    (E) += ((S)-SDK_OPQ(sdk_s_ - sdk_b_)) + (sdk_v_ - sdk_b_);                                     \
    (S) = sdk_s_;                                                                                  \
  } while (0)
