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
 * read and write coalesced at the same index: per transform the first pass
 * writes them, each later pass reads and writes them, the bins read them
 * once).
 * Holes: real, sdk_i64, SDK_PSD_M, SDK_PSD_HANN, SDK_PSD_CUDA, sdk_psd_ctab
 * (codegen/psd.c's table of cos(2 pi n / M), n <= M/4). */
#if SDK_PSD_CUDA
static __device__ __noinline__ void sdk_psd_segment(real *r, sdk_i64 npad, sdk_i64 smp) {
  SDK_PSD_KZ;
  double z[SDK_PSD_M];
  const double *const tab = sdk_psd_ctab; /* (codegen/psd.c's constant table) */
  const sdk_psd_ring x = {r, npad, smp};  /* (read, windowed, by the first pass) */
  sdk_psd_fft(x, z, SDK_PSD_M, tab);
  /* the bins k and M/2 - k from the same two points, read once (4 pairs
   * at a time: their loads in flight together, not one round trip each) */
#pragma unroll 4
  for (sdk_i64 k = 0; k <= SDK_PSD_M / 4; k++) {
    const sdk_i64 b = (SDK_PSD_M / 2 - k) & (SDK_PSD_M / 2 - 1);
    const double zr = z[2 * k], zi = z[2 * k + 1], yr = z[2 * b], yi = z[2 * b + 1];
    SDK_PSD_UNROLL
    for (int u = 0; u < 1 + (2 * k != SDK_PSD_M / 2); u++) {
      const sdk_i64 kk = u ? SDK_PSD_M / 2 - k : k;
      real *h = r + (SDK_PSD_M + 2 * kk) * npad;
      const double p = u ? sdk_psd_power2(yr, yi, zr, zi, SDK_PSD_M, kk, tab)
                         : sdk_psd_power2(zr, zi, yr, yi, SDK_PSD_M, kk, tab);
      const double s = SDK_PSD_ADD(SDK_PSD_ADD((double)h[0], (double)h[npad]), p);
      const double hi = (double)(float)s;
      h[0] = (real)hi;
      h[npad] = (real)SDK_PSD_SUB(s, hi);
    }
  }
}
#else
/* CPU: the segments of the block's n paths from r (path 0's row 0), G paths
 * at a time (G M doubles, 128 KiB, and one path's M, on the stack): each row read across the
 * paths, side by side (a path's rows are npad apart: one at a time, every
 * value would be a cache miss), the quarter wave codegen/psd.c's table */
#define SDK_PSD_G (SDK_PSD_M >= 16384 ? 1 : 16384 / SDK_PSD_M)
static void sdk_psd_segments(real *r, sdk_i64 npad, sdk_i64 smp, int n) {
  SDK_PSD_KZ;
  const double *const tab = sdk_psd_ctab; /* (codegen/psd.c's table) */
  double z[SDK_PSD_G][SDK_PSD_M], x[SDK_PSD_M];
  for (int i0 = 0; i0 < n; i0 += SDK_PSD_G) {
    const int g = n - i0 < SDK_PSD_G ? n - i0 : SDK_PSD_G;
    for (sdk_i64 m = 0; m < SDK_PSD_M; m++) {
      const double w = sdk_psd_window(m, SDK_PSD_M, SDK_PSD_HANN, tab);
      const real *x = r + ((smp + 1 + m) & (SDK_PSD_M - 1)) * npad + i0;
      for (int i = 0; i < g; i++)
        z[i][m] = SDK_PSD_MUL(w, (double)x[i]);
    }
    for (int i = 0; i < g; i++) { /* (the transform from x) */
      for (sdk_i64 m = 0; m < SDK_PSD_M; m++)
        x[m] = z[i][m];
      sdk_psd_fft(x, z[i], SDK_PSD_M, tab);
    }
    for (sdk_i64 k = 0; k <= SDK_PSD_M / 2; k++) {
      real *h = r + (SDK_PSD_M + 2 * k) * npad + i0;
      for (int i = 0; i < g; i++) {
        const double s = SDK_PSD_ADD(SDK_PSD_ADD((double)h[i], (double)h[i + npad]),
                                     sdk_psd_power(z[i], SDK_PSD_M, k, tab));
        const double hi = (double)(float)s;
        h[i] = (real)hi;
        h[i + npad] = (real)SDK_PSD_SUB(s, hi);
      }
    }
  }
}
#endif
