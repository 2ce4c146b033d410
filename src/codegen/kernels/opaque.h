#line 2 "kernels/opaque.h"
/* CPU kernels: SDK_OPQ(v), v through an XOR of its bits with a zero that a
 * volatile read gives once per call (into sdk_kz), which no optimiser can see
 * through: under -ffast-math (reassociation) the compensated update and the
 * time averages' TwoSum would otherwise lose their error terms
 * (codegen/codegen.h).  The CUDA kernels define SDK_OPQ(v) as (v): NVRTC's
 * fast math does not reassociate.  Hole: real. */
static volatile int sdk_opq_zero_;
static inline real sdk_opq_(real v, int k) {
  union {
    real f;
    int i;
  } u;
  u.f = v;
  u.i ^= k;
  return u.f;
}
#define SDK_OPQ(v) sdk_opq_((v), sdk_kz)
