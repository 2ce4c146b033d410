#line 2 "kernels/sys_chunk.cuh"
/* A chunk of a mean-field group (written in sdk_sys_group's chunk_whole and
 * chunk_part, sys_group.cuh): x_n -> x_{n+1} of the thread's SDK_QI quads
 * (particles li .. li + 3 at li = i0 + it * 1024) and their terms of the
 * system sums, at x_{n+1} (mode 0: at x_n, no step).  Its state in registers
 * (xv), read from and written back to xb (variable v at v * vs, the chunk
 * at off).
 *
 * Holes: real, sdk_i64, SDK_QI, SDK_NV, SDK_NN, SDK_CHUNK_PART (1: the group's last,
 * partial chunk, bounds-checked; 0: a whole one; the file undefines it at
 * its end).  Hooks (codegen/sys_cuda_mf.c): load and store (a quad's
 * variables: vector accesses in whole chunks when N % 4 == 0), noise (this
 * step's noise values of the quads, zv), particle (particle li's x_n and
 * parameters), step (x_n -> x_{n+1}), accumulate (its terms of the sums).
 * The file is a block of sdk_sys_group; on its own (tests/kernels/prelude.h
 * defines SDK_KERNEL_ALONE) the body of a function of the group's values it
 * reads. */
#ifdef SDK_KERNEL_ALONE
static __device__ void sdk_sys_chunk_alone_(int sdk_i0, int sdk_glen, sdk_i64 sdk_s, sdk_i64 sdk_N,
                                            sdk_i64 sdk_gi0, int sdk_mode)
#endif
{
  real sdk_xv[SDK_QI][4][SDK_NV];
#pragma unroll
  for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {
    const int sdk_li = sdk_i0 + sdk_it * 1024;
    SDK_HOOK(load, sdk_xv, sdk_li);
  }
#if SDK_NN > 0
  real sdk_zv[SDK_QI][4][SDK_NN];
  if (sdk_mode) {
    SDK_HOOK(noise, sdk_zv);
  }
#endif
#pragma unroll
  for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {
#pragma unroll
    for (int sdk_l = 0; sdk_l < 4; sdk_l++) {
      const int sdk_li = sdk_i0 + sdk_it * 1024 + sdk_l;
#if SDK_CHUNK_PART
      const int sdk_act = (sdk_li < sdk_glen);
#else
      const int sdk_act = (1);
#endif
      const sdk_i64 sdk_gp = sdk_s * sdk_N + sdk_gi0 + sdk_li; /* global particle index */
      (void)sdk_act;
      (void)sdk_gp;
      SDK_HOOK(particle);
      if (sdk_mode) {
        SDK_HOOK(step);
      }
      SDK_HOOK(accumulate);
    }
  }
  if (sdk_mode) {
#pragma unroll
    for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++) {
      const int sdk_li = sdk_i0 + sdk_it * 1024;
      SDK_HOOK(store, sdk_xv, sdk_li);
    }
  }
}
#undef SDK_CHUNK_PART
