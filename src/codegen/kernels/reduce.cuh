#line 2 "kernels/reduce.cuh"
/* The reduction kernels of the CUDA backend, part of every CUDA module
 * (emitted by codegen/cuda_reduce.c after the driver).  They compute in
 * double, combine in a fixed order, and test finiteness on the exponent
 * bits so that fast-math cannot drop it.  Chunks of SDK_RED_CHUNK paths
 * (abi.h) are the unit of determinism.
 *
 * Holes (defined by the generator before this file): the types real and
 * sdk_i64 (common.c), SDK_RED_CHUNK (cuda_paths.c, the CUDA head),
 * SDK_RED_FOLD and SDK_RED_WARPS (cuda_reduce.c); their values are abi.h's. */
/* ---- reductions (deterministic: fixed shapes, integer atomics only) ---- */
static __device__ __forceinline__ int sdk_finite_(double x) {
  return ((unsigned long long)__double_as_longlong(x) & 0x7ff0000000000000ull) !=
         0x7ff0000000000000ull;
}
static __device__ __forceinline__ int sdk_isnan_(double x) {
  return ((unsigned long long)__double_as_longlong(x) & 0x7fffffffffffffffull) >
         0x7ff0000000000000ull;
}
/* a / n for a count n > 0.  When n is a power of two 2^k, a times 2^-k
 * (exact): both round the same exact value a / n once, so the bits are
 * those of the division, for one multiplication instead of a division's
 * dozen.  The trees over whole chunks merge powers of two only. */
static __device__ __forceinline__ double sdk_divn_(double a, double n) {
  const unsigned long long b = (unsigned long long)__double_as_longlong(n);
  if ((b & 0x000fffffffffffffull) == 0ull) /* n = 2^k, biased exponent k + 1023 */
    return __dmul_rn(a, __longlong_as_double((long long)((2046ull - (b >> 52)) << 52)));
  return a / n;
}
/* Chan et al.: merge moments (nb, mb, qb) into (na, ma, qa), with
 * sdk_moments_merge's arithmetic (no product feeds an addition directly:
 * __dmul_rn is never contracted, division cannot be). */
static __device__ __forceinline__ void sdk_merge_(double &na, double &ma, double &qa, double nb,
                                                  double mb, double qb) {
  if (nb == 0.0) return;
  // (one line as in the generator's text before: sharing it with the other
  // merge would change the generated kernels, which issue 27 only moves)
  // clang-format off
  if (na == 0.0) { na = nb; ma = mb; qa = qb; return; }
  // clang-format on
  const double n = na + nb, d = mb - ma;
  ma = ma + sdk_divn_(d * nb, n);
  qa = qa + (qb + sdk_divn_(d * d * na * nb, n));
  na = n;
}
/* x / n correctly rounded, given y = 1 / n correctly rounded: q = RN(x y)
 * is within an ulp of x / n, the remainder r = x - q n is then exact (one
 * fma) and RN(q + r y) = RN(x / n) (P. Markstein, IBM J. Res. Develop. 34,
 * 1990).  Away from overflow and underflow (the exponent of x within 900 of
 * 0), and for Inf and NaN, the division itself; +-0 is its own quotient.
 * The fold's chain then waits on two fmas per division instead of a whole
 * division. */
static __device__ __forceinline__ double sdk_divy_(double x, double n, double y) {
  const int ex = (int)(((unsigned long long)__double_as_longlong(x) >> 52) & 0x7ffu);
  if (x == 0.0) return x; /* (equal values, paths that start alike, made every merge divide) */
  if (ex < 1023 - 900 || ex > 1023 + 900) return x / n;
  const double q = __dmul_rn(x, y);
  return __fma_rn(__fma_rn(-q, n, x), y, q);
}
/* sdk_merge_ with the merged count n = na + nb and y = 1 / n given */
static __device__ __forceinline__ void sdk_merge_y_(double &na, double &ma, double &qa, double nb,
                                                    double mb, double qb, double n, double y) {
  if (nb == 0.0) return;
  // (one line as in the generator's text before: sharing it with the other
  // merge would change the generated kernels, which issue 27 only moves)
  // clang-format off
  if (na == 0.0) { na = nb; ma = mb; qa = qb; return; }
  // clang-format on
  const double d = mb - ma;
  ma = ma + sdk_divy_(d * nb, n, y);
  qa = qa + (qb + sdk_divy_(d * d * na * nb, n, y));
  na = n;
}
/* sdk_merge_ of two halves of h = 2^k values each (r = 1 / (2 h)): the
 * same operations with the counts as constants */
static __device__ __forceinline__ void sdk_merge_h_(double &ma, double &qa, double mb, double qb,
                                                    double h, double r) {
  const double d = mb - ma;
  ma = ma + __dmul_rn(d * h, r);
  qa = qa + (qb + __dmul_rn(d * d * h * h, r));
}
/* The moments of one chunk of SDK_RED_CHUNK (256) consecutive paths, by one
 * warp: lane l holds the values x[j] of paths l + 32 j of the chunk (ok[j]:
 * the path is held and its value finite; bad: the paths held whose value is
 * not).  The moments are the pairwise tree over the chunk's paths, merging
 * i with i + s for s = 128, 64, ..., 1: the levels s >= 32 in registers,
 * shuffles for s <= 16 (the same merges in the same order as a tree in
 * shared memory, without a barrier); the values left out count 0.  A whole
 * chunk of finite values (nearly always) takes the tree with known counts.
 * Lane 0 returns the result. */
#if SDK_RED_CHUNK != 256
#error sdk_chunk_tree_ holds 8 paths per lane of a warp: SDK_RED_CHUNK must be 256
#endif
static __device__ __forceinline__ void sdk_chunk_tree_(double (&x)[8], const int (&ok)[8], int bad,
                                                       int lane, double &rn, double &rm, double &rq,
                                                       int &rbad) {
  int all = 1;
  for (int j = 0; j < 8; j++)
    all &= ok[j];
  if (__all_sync(0xffffffffu, all)) {
    double q[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int j = 0; j < 4; j++)
      sdk_merge_h_(x[j], q[j], x[j + 4], q[j + 4], 1.0, 0.5);
    for (int j = 0; j < 2; j++)
      sdk_merge_h_(x[j], q[j], x[j + 2], q[j + 2], 2.0, 0.25);
    sdk_merge_h_(x[0], q[0], x[1], q[1], 4.0, 0.125);
    double h = 8.0, r = 0.0625;
    for (int s = 16; s > 0; s >>= 1, h *= 2.0, r *= 0.5) {
      const double mb = __shfl_down_sync(0xffffffffu, x[0], s);
      const double qb = __shfl_down_sync(0xffffffffu, q[0], s);
      if (lane < s) sdk_merge_h_(x[0], q[0], mb, qb, h, r);
    }
    rn = (double)SDK_RED_CHUNK;
    rm = x[0];
    rq = q[0];
    rbad = 0;
    return;
  }
  double n[8], m[8], q[8];
  for (int j = 0; j < 8; j++) {
    n[j] = ok[j] ? 1.0 : 0.0;
    m[j] = ok[j] ? x[j] : 0.0;
    q[j] = 0.0;
  }
  /* s = 128, 64, 32: path l + 32 j merges with l + 32 (j + s / 32) */
  for (int h = 4; h >= 1; h >>= 1)
    for (int j = 0; j < h; j++)
      sdk_merge_(n[j], m[j], q[j], n[j + h], m[j + h], q[j + h]);
  for (int s = 16; s > 0; s >>= 1) {
    const double nb = __shfl_down_sync(0xffffffffu, n[0], s);
    const double mb = __shfl_down_sync(0xffffffffu, m[0], s);
    const double qb = __shfl_down_sync(0xffffffffu, q[0], s);
    if (lane < s) sdk_merge_(n[0], m[0], q[0], nb, mb, qb);
  }
  rn = n[0];
  rm = m[0];
  rq = q[0];
  rbad = bad;
}
/* A chunk's paths for sdk_chunk_tree_: lane's x[j] is path p0 + 32 j of
 * the rows (i0 + 32 j of its grid point's, held while below ppg), p0 =
 * g*ppg - path0 + c*SDK_RED_CHUNK + lane for chunk c of grid point g. */
static __device__ __forceinline__ void sdk_chunk_at_(sdk_i64 ppg, sdk_i64 path0, sdk_i64 nch,
                                                     sdk_i64 chunk, int lane, sdk_i64 &i0,
                                                     sdk_i64 &p0) {
  const sdk_i64 g = chunk / nch, c = chunk - g * nch;
  i0 = c * SDK_RED_CHUNK + lane;
  p0 = g * ppg - path0 + i0;
}
/* The chunk's values of a row.  Loads are kept apart from the warp votes
 * of sdk_chunk_reduce_: a vote after each guarded load kept the next load
 * behind it, eight trips to memory a chunk one after the other (issue 32:
 * 166 us for 2^23 x 3 values).  (Loading a chunk of four values before
 * reducing any took 100 registers and one block an SM: 115-127 us against
 * 78-86 us, H200, 2026-11-28.) */
static __device__ __forceinline__ void sdk_chunk_load_(const real *__restrict__ row, sdk_i64 ppg,
                                                       sdk_i64 i0, sdk_i64 p0, real (&v)[8]) {
  for (int j = 0; j < 8; j++)
    v[j] = i0 + 32 * j < ppg ? row[p0 + 32 * j] : (real)0;
}
/* The moments of the chunk's values v (sdk_chunk_load_), with mark the
 * displacement (v - mark) * scale. */
static __device__ __forceinline__ void
sdk_chunk_reduce_(const real (&v)[8], const real *__restrict__ mark, double scale, sdk_i64 ppg,
                  sdk_i64 i0, sdk_i64 p0, int lane, double &rn, double &rm, double &rq,
                  int &rbad) {
  real w[8];
  for (int j = 0; j < 8; j++)
    w[j] = i0 + 32 * j < ppg && mark ? mark[p0 + 32 * j] : (real)0;
  double x[8];
  int ok[8], bad = 0;
  for (int j = 0; j < 8; j++) {
    const int in = i0 + 32 * j < ppg;
    x[j] = 0.0;
    if (in) {
      x[j] = (double)v[j];
      if (mark) x[j] = (x[j] - (double)w[j]) * scale;
    }
    ok[j] = in && sdk_finite_(x[j]);
    bad += __popc(__ballot_sync(0xffffffffu, in && !ok[j]));
  }
  sdk_chunk_tree_(x, ok, bad, lane, rn, rm, rq, rbad);
}
/* The fold of a unit's nc chunk results sr[c] = {n, mean, m2} (non-finite
 * counts sb[c]) in chunk order, by one whole warp: the running counts and
 * their reciprocals first (sy, integers: exact in any order), then lane 0
 * merges with sdk_moments_merge's arithmetic (no product feeds an addition
 * directly, so no contraction can change it, and the quotients are
 * correctly rounded): the bits of the chunks merged on the host. */
#if SDK_RED_FOLD > 64
#error sdk_unit_fold_ scans the counts of a unit with one warp, two per lane
#endif
static __device__ __forceinline__ void sdk_unit_fold_(const double (*sr)[3], double (*sy)[2],
                                                      const int *sb, int nc, int lane, double *o,
                                                      int *nfo) {
  int a0 = lane < nc ? (int)sr[lane][0] : 0;
  int a1 = lane + 32 < nc ? (int)sr[lane + 32][0] : 0;
  for (int s = 1; s < 32; s <<= 1) {
    const int t0 = __shfl_up_sync(0xffffffffu, a0, s);
    const int t1 = __shfl_up_sync(0xffffffffu, a1, s);
    if (lane >= s) a0 += t0, a1 += t1;
  }
  a1 += __shfl_sync(0xffffffffu, a0, 31);
  sy[lane][0] = (double)a0;
  sy[lane][1] = a0 > 0 ? 1.0 / (double)a0 : 0.0;
  if (lane + 32 < SDK_RED_FOLD) {
    sy[lane + 32][0] = (double)a1;
    sy[lane + 32][1] = a1 > 0 ? 1.0 / (double)a1 : 0.0;
  }
  __syncwarp();
  if (lane != 0) return;
  double na = 0.0, ma = 0.0, qa = 0.0;
  int bad = 0;
  for (int c = 0; c < nc; c++) {
    sdk_merge_y_(na, ma, qa, sr[c][0], sr[c][1], sr[c][2], sy[c][0], sy[c][1]);
    bad += sb[c];
  }
  o[0] = na;
  o[1] = ma;
  o[2] = qa;
  if (nfo) *nfo = bad;
}
/* Moments per fold unit (backend.h), chunks and fold in one kernel: block
 * j takes unit j, the chunks units[2j] .. units[2j] + units[2j + 1] - 1 of
 * those held (counted from chunk0), at most SDK_RED_FOLD.  Values v0 ..
 * v0 + nvr - 1 in groups of SDK_RED_VALUES: the warps reduce the chunks of
 * every value of the group (sdk_chunk_reduce_) into shared memory, then
 * one warp per value folds them (sdk_unit_fold_), side by side.  The fold
 * is a chain of dependent merges (a few microseconds for 64 chunks); folded
 * one value at a time, behind a barrier each, it kept the block waiting
 * (issue 32: 128-166 us for 2^23 x 3 values, 55% of the warps' time at the
 * barrier).  Out: out[(j * nvr + k) * 3 + {n, mean, m2}], non-finite counts
 * nf[j * nvr + k]. */
#define SDK_RED_VALUES 4
extern "C" __global__ void __launch_bounds__(32 * SDK_RED_WARPS)
    sdk_red_units(const real *__restrict__ st, sdk_i64 npad, int v0, int nvr,
                  const real *__restrict__ mark, double scale, sdk_i64 ppg, sdk_i64 path0,
                  sdk_i64 nch, sdk_i64 chunk0, const sdk_i64 *__restrict__ units,
                  double *__restrict__ out, int *__restrict__ nf) {
  __shared__ double sr[SDK_RED_VALUES][SDK_RED_FOLD][3], sy[SDK_RED_VALUES][SDK_RED_FOLD][2];
  __shared__ int sb[SDK_RED_VALUES][SDK_RED_FOLD];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const sdk_i64 j = blockIdx.x, first = chunk0 + units[2 * j];
  const int nc = (int)units[2 * j + 1];
  for (int k0 = 0; k0 < nvr; k0 += SDK_RED_VALUES) {
    const int nk = nvr - k0 < SDK_RED_VALUES ? nvr - k0 : SDK_RED_VALUES;
    for (int c = wid; c < nc; c += nw) {
      sdk_i64 i0, p0;
      sdk_chunk_at_(ppg, path0, nch, first + c, lane, i0, p0);
      for (int kk = 0; kk < nk; kk++) {
        real v[8];
        sdk_chunk_load_(st + (sdk_i64)(v0 + k0 + kk) * npad, ppg, i0, p0, v);
        double n, m, q;
        int bad;
        sdk_chunk_reduce_(v, mark, scale, ppg, i0, p0, lane, n, m, q, bad);
        if (lane == 0) {
          sr[kk][c][0] = n;
          sr[kk][c][1] = m;
          sr[kk][c][2] = q;
          sb[kk][c] = bad;
        }
      }
    }
    __syncthreads();
    for (int kk = wid; kk < nk; kk += nw)
      sdk_unit_fold_(sr[kk], sy[kk], sb[kk], nc, lane, out + (j * nvr + k0 + kk) * 3,
                     nf ? nf + j * nvr + k0 + kk : NULL);
    __syncthreads(); /* (the group's shared results are written again by the next) */
  }
}
/* Paths whose variable k < nvr is NaN/Inf, per grid point held (j = g - g0):
 * cnt[j * nvr + k], one thread per path q of the n held (integer atomics,
 * only for the rare non-finite value). */
extern "C" __global__ void __launch_bounds__(SDK_RED_CHUNK)
    sdk_red_nonfinite(const real *__restrict__ st, sdk_i64 npad, int nvr, sdk_i64 ppg, sdk_i64 n,
                      sdk_i64 path0, sdk_i64 g0, unsigned long long *cnt) {
  const sdk_i64 q = (sdk_i64)blockIdx.x * SDK_RED_CHUNK + threadIdx.x;
  if (q >= n) return;
  for (int k = 0; k < nvr; k++)
    if (!sdk_finite_((double)st[(sdk_i64)k * npad + q]))
      atomicAdd(&cnt[((path0 + q) / ppg - g0) * nvr + k], 1ull);
}
/* Min and max (NaN ignored) of variable v per chunk chunk0 + b held:
 * lohi[2 * b + {0, 1}] (b = blockIdx.x). */
extern "C" __global__ void __launch_bounds__(SDK_RED_CHUNK)
    sdk_red_minmax(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 path0,
                   sdk_i64 nch, sdk_i64 chunk0, double *__restrict__ lohi) {
  __shared__ double slo[SDK_RED_CHUNK], shi[SDK_RED_CHUNK];
  const int t = threadIdx.x;
  const sdk_i64 chunk = chunk0 + blockIdx.x, g = chunk / nch, c = chunk - g * nch;
  const sdk_i64 i = c * SDK_RED_CHUNK + t;
  double lo = __longlong_as_double(0x7ff0000000000000ll), hi = -lo;
  if (i < ppg) {
    const double x = (double)st[(sdk_i64)v * npad + g * ppg - path0 + i];
    if (!sdk_isnan_(x)) lo = hi = x;
  }
  slo[t] = lo;
  shi[t] = hi;
  __syncthreads();
  for (int s = SDK_RED_CHUNK / 2; s > 0; s >>= 1) {
    if (t < s) {
      if (slo[t + s] < slo[t]) slo[t] = slo[t + s];
      if (shi[t + s] > shi[t]) shi[t] = shi[t + s];
    }
    __syncthreads();
  }
  if (t == 0) {
    lohi[2 * blockIdx.x] = slo[0];
    lohi[2 * blockIdx.x + 1] = shi[0];
  }
}
/* Histogram of variable v: one thread per path q of the n held (global path
 * path0 + q); per grid point g the range lo[j]..hi[j] (j = g - g0) in `bins`
 * bins (x == hi goes to the last bin), paths outside to under[j] / over[j],
 * NaN nowhere. */
extern "C" __global__ void __launch_bounds__(SDK_RED_CHUNK)
    sdk_red_hist(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 n,
                 sdk_i64 path0, sdk_i64 g0, sdk_i64 bins, const double *__restrict__ lo,
                 const double *__restrict__ hi, unsigned long long *counts,
                 unsigned long long *under, unsigned long long *over) {
  const sdk_i64 q = (sdk_i64)blockIdx.x * SDK_RED_CHUNK + threadIdx.x;
  if (q >= n) return;
  const sdk_i64 g = (path0 + q) / ppg - g0;
  const double x = (double)st[(sdk_i64)v * npad + q];
  const double l = lo[g], h = hi[g];
  if (sdk_isnan_(x)) return;
  if (x < l)
    atomicAdd(&under[g], 1ull);
  else if (x > h)
    atomicAdd(&over[g], 1ull);
  else {
    const double w = (h - l) / (double)bins;
    sdk_i64 b = w > 0 ? (sdk_i64)((x - l) / w) : 0;
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    atomicAdd(&counts[g * bins + b], 1ull);
  }
}
/* The paths whose row v is 0 per grid point held (a boundary's status: 0
 * alive; fpt's survival at every sample): cnt[j], j = g - g0, for the n
 * paths held (global path path0 + q).  Counted per warp (ballot), per block
 * in shared memory, one global atomic per block where its paths are of one
 * grid point (else one per path): sdk_red_hist with one bin made 2^20
 * same-address atomics a sample for 2^20 paths.  Integer counts: exact. */
extern "C" __global__ void __launch_bounds__(SDK_RED_CHUNK)
    sdk_red_zero(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 n,
                 sdk_i64 path0, sdk_i64 g0, unsigned long long *cnt) {
  __shared__ unsigned int sh;
  const sdk_i64 b0 = (sdk_i64)blockIdx.x * SDK_RED_CHUNK, q = b0 + threadIdx.x;
  const sdk_i64 last = (b0 + SDK_RED_CHUNK < n ? b0 + SDK_RED_CHUNK : n) - 1;
  const sdk_i64 gb = (path0 + b0) / ppg - g0;
  const int one = (path0 + last) / ppg - g0 == gb; /* (the same for the whole block) */
  const int zero = q < n && st[(sdk_i64)v * npad + q] == (real)0;
  if (threadIdx.x == 0) sh = 0u;
  __syncthreads();
  if (one) {
    const unsigned m = __ballot_sync(0xffffffffu, zero);
    if ((threadIdx.x & 31) == 0 && m) atomicAdd(&sh, (unsigned)__popc(m));
    __syncthreads();
    if (threadIdx.x == 0 && sh) atomicAdd(&cnt[gb], (unsigned long long)sh);
  } else if (zero) {
    atomicAdd(&cnt[(path0 + q) / ppg - g0], 1ull);
  }
}
/* Histogram of (x_v mod period) on [0, period): block b takes paths
 * [b * per, (b + 1) * per) of the n held (global path path0 + q), counting into
 * shared memory (bins <= shbins) for the grid point of its first path, then
 * adds the block's counts to counts[j * bins + bin], j = g - g0 (integer
 * atomics: deterministic). */
extern "C" __global__ void __launch_bounds__(SDK_RED_CHUNK)
    sdk_red_hist_mod(const real *__restrict__ st, sdk_i64 npad, int v, sdk_i64 ppg, sdk_i64 n,
                     sdk_i64 path0, sdk_i64 g0, sdk_i64 bins, double period, sdk_i64 per,
                     int shbins, unsigned long long *counts) {
  extern __shared__ unsigned int sh[];
  const sdk_i64 q0 = (sdk_i64)blockIdx.x * per;
  const sdk_i64 q1 = q0 + per < n ? q0 + per : n;
  const sdk_i64 gb = (path0 + q0) / ppg - g0;
  const double inv = 1.0 / period;
  for (int k = threadIdx.x; k < shbins; k += SDK_RED_CHUNK)
    sh[k] = 0u;
  __syncthreads();
  for (sdk_i64 q = q0 + threadIdx.x; q < q1; q += SDK_RED_CHUNK) {
    const double x = (double)st[(sdk_i64)v * npad + q];
    if (!sdk_finite_(x)) continue;
    double u = x * inv;
    u -= floor(u);
    sdk_i64 k = (sdk_i64)(u * (double)bins);
    if (k >= bins) k = bins - 1;
    if (k < 0) k = 0;
    const sdk_i64 g = (path0 + q) / ppg - g0;
    if (g == gb && shbins > 0)
      atomicAdd(&sh[k], 1u);
    else
      atomicAdd(&counts[g * bins + k], 1ull);
  }
  __syncthreads();
  for (int k = threadIdx.x; k < shbins; k += SDK_RED_CHUNK)
    if (sh[k]) atomicAdd(&counts[gb * bins + k], (unsigned long long)sh[k]);
}
