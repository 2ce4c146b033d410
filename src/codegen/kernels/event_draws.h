#line 2 "kernels/event_draws.h"
/* The draws of [dichotomous] and [jumps] events (codegen/events.c, whose
 * head derives them and lays out their Philox blocks): C11 for the CPU
 * backend and CUDA C++ for NVRTC.  Holes: sdk_u32, sdk_u64 (rng/philox.h). */
#ifdef __CUDACC__
#define SDK_EVFN static __device__
#else
#define SDK_EVFN static inline
#endif
/* a uniform in (0, 1) from 53 bits of two words */
SDK_EVFN double sdk_u53(sdk_u32 a, sdk_u32 b) {
  return ((double)(((sdk_u64)a << 21) | (b >> 11)) + 0.5) * 1.1102230246251565e-16;
}
