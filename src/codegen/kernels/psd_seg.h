#line 2 "kernels/psd_seg.h"
/* --observe psd computed by the kernel (codegen/psd.c): at the end of a
 * segment (every M/2 samples from the M-th on), the path's last M samples,
 * oldest first, windowed and transformed by kernels/psd_fft.h, their
 * |X_k|^2 added to the path's sums: the host's rows and operations
 * (observe/obs_psd.c), so that the sums are the host's bits in either
 * precision.  r: the path's first row of the quantity's block (ring [M],
 * then per bin the sum as a pair of rows (hi, lo) = ((float)S, S -
 * (float)S)), rows npad apart; smp: the sample just taken.  The transform's
 * M doubles are the path's own (CUDA: local memory, which a warp's threads
 * read and write coalesced at the same index).
 * Holes: real, sdk_i64, SDK_PSD_M, SDK_PSD_HANN, SDK_PSD_CUDA. */
#if SDK_PSD_CUDA
#define SDK_PSD_SEGFN static __device__ __noinline__
#else
#define SDK_PSD_SEGFN static
#endif
SDK_PSD_SEGFN void sdk_psd_segment(real *r, sdk_i64 npad, sdk_i64 smp) {
  double z[SDK_PSD_M];
  SDK_PSD_ROLLED
  for (sdk_i64 m = 0; m < SDK_PSD_M; m++)
    z[m] = SDK_PSD_MUL(sdk_psd_window(m, SDK_PSD_M, SDK_PSD_HANN, 0),
                       (double)r[((smp + 1 + m) & (SDK_PSD_M - 1)) * npad]);
  sdk_psd_fft(z, SDK_PSD_M, 0);
  SDK_PSD_ROLLED
  for (sdk_i64 k = 0; k <= SDK_PSD_M / 2; k++) {
    real *h = r + (SDK_PSD_M + 2 * k) * npad;
    const double s =
        SDK_PSD_ADD(SDK_PSD_ADD((double)h[0], (double)h[npad]), sdk_psd_power(z, SDK_PSD_M, k, 0));
    const double hi = (double)(float)s;
    h[0] = (real)hi;
    h[npad] = (real)SDK_PSD_SUB(s, hi);
  }
}
