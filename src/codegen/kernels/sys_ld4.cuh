#line 2 "kernels/sys_ld4.cuh"
/* Four consecutive values of a row, by vector accesses (one 16-byte access in
 * single precision, two in double): the mean-field chunks' state when N % 4 == 0
 * and the pair tiles' x_j in shared memory (16-byte aligned).  Hole: SDK_SINGLE
 * (1: real is float).  (Each macro is one line: the generated text keeps the
 * tokens it always had, no line continuations.) */
// clang-format off
#if SDK_SINGLE
#define SDK_LD4(p, a, b, c, d) do { const float4 sdk_v4 = *(const float4 *)(p); a = sdk_v4.x; b = sdk_v4.y; c = sdk_v4.z; d = sdk_v4.w; } while (0)
#define SDK_ST4(p, a, b, c, d) (*(float4 *)(p) = make_float4(a, b, c, d))
#else
#define SDK_LD4(p, a, b, c, d) do { const double2 sdk_v0 = *(const double2 *)(p), sdk_v1 = *((const double2 *)(p) + 1); a = sdk_v0.x; b = sdk_v0.y; c = sdk_v1.x; d = sdk_v1.y; } while (0)
#define SDK_ST4(p, a, b, c, d) do { *(double2 *)(p) = make_double2(a, b); *((double2 *)(p) + 1) = make_double2(c, d); } while (0)
#endif
// clang-format on
