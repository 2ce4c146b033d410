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
/* The compensated update's Fast2Sum (codegen.h) where the compiler can turn
 * reassociation off for one block (clang >= 13: #pragma clang fp
 * reassociate, on the block's own operations only; the increment y before
 * it keeps fast math): no XORs there, 4% of PROG1's CPU step (issue 32);
 * else through SDK_OPQ as above. */
#if defined(__clang__) && __clang_major__ >= 13
#define SDK_F2S_BEGIN _Pragma("clang fp reassociate(off)")
#define SDK_F2S_OPQ(v) (v)
#else
#define SDK_F2S_BEGIN
#define SDK_F2S_OPQ(v) SDK_OPQ(v)
#endif
/* The step loop of a small compensated model (codegen/comp_vars.c): its
 * vector iterations interleaved 8 ways, as the compiler unrolls the plain
 * body of its own accord; the Kahan sum's few more operations put the body
 * past its threshold, and each iteration then reloads the constants and
 * spills that the vector libm calls clobber (6% of PROG1's CPU step). */
#if defined(__clang__) && __clang_major__ >= 13
#define SDK_F2S_LOOP _Pragma("clang loop interleave_count(8)")
#else
#define SDK_F2S_LOOP
#endif
